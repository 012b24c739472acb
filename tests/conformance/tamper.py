"""Raw storage edits that simulate corruption; the only place tests touch tables directly.

Statements are written once with `?` placeholders; where the two schemas differ (SQLite keeps
full text in an FTS5 table, OceanBase in a FULLTEXT column of memory_entry_heads) the tamper
tool offers a named operation instead of SQL.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

import pymysql
import sqlean

from powercontext_memory.backends.oceanbase.wire import OceanBaseDsn


class Tamper(Protocol):
    backend: str

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> int: ...

    def scalar(self, sql: str, params: tuple[Any, ...] = ()) -> Any: ...

    def clear_fulltext(self) -> None:
        """Empty the full-text index, leaving the head rows."""
        ...

    def fulltext_rows(self) -> int:
        """Rows the full-text index holds."""
        ...

    def vector_rows(self) -> int:
        """Head rows that carry a vector."""
        ...

    def set_one_embedding_hash(self, value: str) -> None:
        """Overwrite the embedding hash of one stored vector."""
        ...

    def cells_containing(self, needle: str) -> list[str]:
        """`table.column` of every stored cell (text or bytes) that contains `needle`."""
        ...


class SQLiteTamper:
    backend = "sqlite"

    def __init__(self, path: Path) -> None:
        self.path = path

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> int:
        db = sqlean.connect(str(self.path), isolation_level=None)
        try:
            return db.execute(sql, params).rowcount
        finally:
            db.close()

    def scalar(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        db = sqlean.connect(str(self.path), isolation_level=None)
        try:
            row = db.execute(sql, params).fetchone()
            return row[0] if row else None
        finally:
            db.close()

    def clear_fulltext(self) -> None:
        self.execute("DELETE FROM memory_entry_search_fts")

    def fulltext_rows(self) -> int:
        return int(self.scalar("SELECT count(*) FROM memory_entry_search_fts"))

    def vector_rows(self) -> int:
        return int(self.scalar("SELECT count(*) FROM memory_entry_vector_metadata"))

    def set_one_embedding_hash(self, value: str) -> None:
        self.execute(
            "UPDATE memory_entry_vector_metadata SET embedding_content_hash = ? WHERE rowid = "
            "(SELECT min(rowid) FROM memory_entry_vector_metadata)",
            (value,),
        )

    def cells_containing(self, needle: str) -> list[str]:
        """Every ordinary table, including the FTS5 and vec0 shadow tables that hold the
        virtual tables' data (the virtual tables themselves need their modules loaded)."""
        db = sqlean.connect(str(self.path), isolation_level=None)
        try:
            tables = [
                name
                for name, sql in db.execute(
                    "SELECT name, sql FROM sqlite_master WHERE type='table'"
                )
                if not (sql or "").upper().startswith("CREATE VIRTUAL")
            ]
            return _cells_containing(
                needle, {t: db.execute(f'SELECT * FROM "{t}"') for t in tables}
            )
        finally:
            db.close()


def _pyformat(sql: str, params: tuple[Any, ...]) -> str:
    """`?` placeholders in PyMySQL's spelling (a literal % must then be doubled)."""
    return sql.replace("%", "%%").replace("?", "%s") if params else sql


class OceanBaseTamper:
    backend = "oceanbase"

    def __init__(self, dsn: str) -> None:
        self.dsn = OceanBaseDsn.parse(dsn)

    def _connect(self) -> pymysql.connections.Connection:  # type: ignore[type-arg]
        return pymysql.connect(
            host=self.dsn.host,
            port=self.dsn.port,
            user=self.dsn.user,
            password=self.dsn.password,
            database=self.dsn.database,
            autocommit=True,
        )

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> int:
        conn = self._connect()
        try:
            with conn.cursor() as cur:
                return int(cur.execute(_pyformat(sql, params), params or None))
        finally:
            conn.close()

    def scalar(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        conn = self._connect()
        try:
            with conn.cursor() as cur:
                cur.execute(_pyformat(sql, params), params or None)
                row = cur.fetchone()
                return row[0] if row else None
        finally:
            conn.close()

    def clear_fulltext(self) -> None:
        self.execute("UPDATE memory_entry_heads SET fulltext_tokens = ''")

    def fulltext_rows(self) -> int:
        return int(
            self.scalar("SELECT count(*) FROM memory_entry_heads WHERE fulltext_tokens <> ''")
        )

    def vector_rows(self) -> int:
        return int(
            self.scalar(
                "SELECT count(*) FROM memory_entry_heads WHERE embedding_content_hash IS NOT NULL"
            )
        )

    def set_one_embedding_hash(self, value: str) -> None:
        self.execute(
            "UPDATE memory_entry_heads SET embedding_content_hash = ? "
            "WHERE embedding_content_hash IS NOT NULL ORDER BY projection_id LIMIT 1",
            (value,),
        )

    def cells_containing(self, needle: str) -> list[str]:
        conn = self._connect()
        try:
            with conn.cursor() as cur:
                cur.execute("SHOW TABLES")
                tables = [row[0] for row in cur.fetchall()]
            cursors = {}
            for table in tables:
                cur = conn.cursor()
                cur.execute(f"SELECT * FROM `{table}`")
                cursors[table] = cur
            return _cells_containing(needle, cursors)
        finally:
            conn.close()


def _cells_containing(needle: str, cursors: dict[str, Any]) -> list[str]:
    """`table.column` where a cell of the DB-API cursors' rows contains `needle`."""
    raw = needle.encode()
    found = []
    for table, cursor in cursors.items():
        columns = [d[0] for d in cursor.description]
        for row in cursor.fetchall():
            for column, cell in zip(columns, row, strict=True):
                text = isinstance(cell, str) and needle in cell
                blob = isinstance(cell, bytes | bytearray | memoryview) and raw in bytes(cell)
                if text or blob:
                    found.append(f"{table}.{column}")
    return sorted(set(found))


def tamper_for(backend: str, location: str | Path) -> Tamper:
    return SQLiteTamper(Path(location)) if backend == "sqlite" else OceanBaseTamper(str(location))
