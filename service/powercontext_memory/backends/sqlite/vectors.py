"""The vector projection: metadata rows beside a sqlite-vec (vec0) table keyed by projection id."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..port import HeadProjectionRow, VectorRow
from .statements import Db, in_chunks, placeholders
from .transaction_base import TransactionBase

VECTOR_TABLE = "memory_entry_search_vector"


def has_vector_table(db: Db) -> bool:
    return (
        db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (VECTOR_TABLE,)
        ).fetchone()
        is not None
    )


def drop_vectors(db: Db, pids: Sequence[int]) -> None:
    for chunk in in_chunks(list(pids)):
        marks = placeholders(len(chunk))
        db.execute(
            f"DELETE FROM memory_entry_vector_metadata WHERE projection_id IN ({marks})", chunk
        )
        if has_vector_table(db):
            db.execute(f"DELETE FROM {VECTOR_TABLE} WHERE rowid IN ({marks})", chunk)


def insert_vector(db: Db, pid: int, row: HeadProjectionRow) -> None:
    db.execute(
        "INSERT INTO memory_entry_vector_metadata "
        "(projection_id, entry_version_id, entry_content_hash, embedding_content_hash) "
        "VALUES (?, ?, ?, ?)",
        (pid, row.entry_version_id, row.entry_content_hash, row.embedding_content_hash),
    )
    db.execute(f"INSERT INTO {VECTOR_TABLE} (rowid, embedding) VALUES (?, ?)", (pid, row.embedding))


def _vector_row(r: Sequence[Any]) -> VectorRow:
    return VectorRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], bool(r[7]))


class SQLiteVectors(TransactionBase):
    async def vector_rows(
        self,
        artifact_id: str,
        entry_ids: Sequence[str] | None,
        *,
        with_vectors: bool = True,
        after: str | None = None,
        limit: int | None = None,
    ) -> list[VectorRow]:
        def go(db: Db) -> list[VectorRow]:
            has_vectors = has_vector_table(db)
            embedding = "v.embedding" if with_vectors else "NULL"
            vector = f"{embedding}, v.rowid IS NOT NULL" if has_vectors else "NULL, 0"
            join = (
                f"LEFT JOIN {VECTOR_TABLE} v ON v.rowid = h.projection_id " if has_vectors else ""
            )
            sql = (
                "SELECT h.entry_id, h.entry_version_id, h.entry_content_hash, "
                "m.entry_version_id, m.entry_content_hash, m.embedding_content_hash, "
                f"{vector} FROM memory_entry_heads h "
                "LEFT JOIN memory_entry_vector_metadata m ON m.projection_id = h.projection_id "
                f"{join}WHERE h.memory_artifact_id = ?"
            )
            if entry_ids is None:
                params: list[Any] = [artifact_id]
                if after is not None:
                    sql += " AND h.entry_id > ?"
                    params.append(after)
                if limit is not None:
                    sql += " ORDER BY h.entry_id LIMIT ?"
                    params.append(limit)
                return [_vector_row(r) for r in db.execute(sql, params).fetchall()]
            out: list[VectorRow] = []
            for chunk in in_chunks(list(entry_ids)):
                out.extend(
                    _vector_row(r)
                    for r in db.execute(
                        f"{sql} AND h.entry_id IN ({placeholders(len(chunk))})",
                        (artifact_id, *chunk),
                    ).fetchall()
                )
            return out

        return await self._run(go)
