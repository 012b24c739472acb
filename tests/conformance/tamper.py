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

from powercontext_memory.backends.oceanbase_wire import OceanBaseDsn


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


def tamper_for(backend: str, location: str | Path) -> Tamper:
    return SQLiteTamper(Path(location)) if backend == "sqlite" else OceanBaseTamper(str(location))
