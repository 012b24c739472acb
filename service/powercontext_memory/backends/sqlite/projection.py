"""The head projection: one row per active entry, with its FTS5 row and its vector."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..port import HeadCondition, HeadProjectionRow
from ..sql_reads import HEAD_COLUMNS, condition_sql
from .fts import fts_match_expression
from .statements import Db, in_chunks, placeholders
from .transaction_base import TransactionBase
from .vectors import drop_vectors, insert_vector


def _drop_projection(db: Db, pids: Sequence[int]) -> None:
    """Remove head rows with their full-text and vector rows (virtual tables do not cascade)."""
    drop_vectors(db, pids)
    for chunk in in_chunks(list(pids)):
        marks = placeholders(len(chunk))
        db.execute(f"DELETE FROM memory_entry_search_fts WHERE rowid IN ({marks})", chunk)
        db.execute(f"DELETE FROM memory_entry_heads WHERE projection_id IN ({marks})", chunk)


class SQLiteProjection(TransactionBase):
    async def fts_candidates(
        self,
        artifact_ids: Sequence[str],
        terms: Sequence[str],
        min_matches: int,
        limit: int,
        condition: HeadCondition | None = None,
    ) -> list[HeadProjectionRow]:
        # Two statements in one hop: FTS5 answers "ORDER BY rank LIMIT k" on its own table
        # without sorting every match only when it is the whole query (not a joined subquery).
        expression = fts_match_expression(artifact_ids, terms, min_matches)
        if condition is not None:
            return await self._filtered_fts_candidates(expression, limit, condition)

        def go(db: Db) -> list[Any]:
            # Unranked first: when every match fits in the window, FTS5's bm25 (most of a
            # search's time, paid per match: bench/search_cache.py) is not needed, the caller
            # orders the window.
            matches = db.execute(
                "SELECT rowid FROM memory_entry_search_fts "
                "WHERE memory_entry_search_fts MATCH ? LIMIT ?",
                (expression, limit + 1),
            ).fetchall()
            if len(matches) > limit:
                matches = db.execute(
                    "SELECT rowid FROM memory_entry_search_fts "
                    "WHERE memory_entry_search_fts MATCH ? ORDER BY rank LIMIT ?",
                    (expression, limit),
                ).fetchall()
            ids = [r[0] for r in matches]
            by_id = {
                r[0]: r[1:]
                for r in db.execute(
                    f"SELECT projection_id, {HEAD_COLUMNS} FROM memory_entry_heads "
                    f"WHERE projection_id IN ({placeholders(len(ids))})",
                    ids,
                ).fetchall()
            }
            return [by_id[i] for i in ids if i in by_id]

        return [HeadProjectionRow(*r) for r in await self._run(go)]

    async def _filtered_fts_candidates(
        self, expression: str, limit: int, condition: HeadCondition
    ) -> list[HeadProjectionRow]:
        """Kind and tag conditions joined into the match, so the window holds only eligible
        rows (FTS5 then ranks every match of the join before the cut: filters cost that)."""
        where, params = condition_sql(condition, "h.")
        columns = ", ".join(f"h.{c.strip()}" for c in HEAD_COLUMNS.split(","))
        rows = await self._all(
            f"SELECT {columns} FROM memory_entry_search_fts f "
            "JOIN memory_entry_heads h ON h.projection_id = f.rowid "
            f"WHERE memory_entry_search_fts MATCH ?{where} ORDER BY f.rank LIMIT ?",
            (expression, *params, limit),
        )
        return [HeadProjectionRow(*r) for r in rows]

    async def fts_rows(self, artifact_id: str) -> list[tuple[str, str]]:
        rows = await self._all(
            "SELECT h.entry_id, f.searchable_text FROM memory_entry_heads h "
            "LEFT JOIN memory_entry_search_fts f ON f.rowid = h.projection_id "
            "WHERE h.memory_artifact_id = ? ORDER BY h.entry_id",
            (artifact_id,),
        )
        return [(e, t if t is not None else "") for e, t in rows]

    async def upsert_projection(self, revision: int, rows: Sequence[HeadProjectionRow]) -> None:
        def go(db: Db) -> None:
            for r in rows:
                found = db.execute(
                    "SELECT projection_id FROM memory_entry_heads "
                    "WHERE memory_artifact_id = ? AND entry_id = ?",
                    (r.memory_artifact_id, r.entry_id),
                ).fetchone()
                if found:
                    pid = found[0]
                    db.execute(
                        "UPDATE memory_entry_heads SET projected_in_revision = ?, "
                        "entry_version_id = ?, entry_content_hash = ?, searchable_text = ?, "
                        "kind = ?, description = ?, tags = ? "
                        "WHERE projection_id = ?",
                        (
                            revision,
                            r.entry_version_id,
                            r.entry_content_hash,
                            r.searchable_text,
                            r.kind,
                            r.description,
                            r.tags,
                            pid,
                        ),
                    )
                    db.execute("DELETE FROM memory_entry_search_fts WHERE rowid = ?", (pid,))
                    drop_vectors(db, [pid])
                else:
                    pid = db.execute(
                        "INSERT INTO memory_entry_heads "
                        "(memory_artifact_id, projected_in_revision, entry_id, "
                        "entry_version_id, entry_content_hash, searchable_text, "
                        "kind, description, tags) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            r.memory_artifact_id,
                            revision,
                            r.entry_id,
                            r.entry_version_id,
                            r.entry_content_hash,
                            r.searchable_text,
                            r.kind,
                            r.description,
                            r.tags,
                        ),
                    ).lastrowid
                db.execute(
                    "INSERT INTO memory_entry_search_fts "
                    "(rowid, memory_artifact_id, searchable_text) VALUES (?, ?, ?)",
                    (pid, r.memory_artifact_id, r.searchable_text),
                )
                if r.embedding is not None:
                    insert_vector(db, pid, r)

        if rows:
            self._queue(go)

    async def remove_projection(self, artifact_id: str, entry_ids: Sequence[str]) -> None:
        def go(db: Db) -> None:
            for chunk in in_chunks(list(entry_ids)):
                params = (artifact_id, *chunk)
                where = f"memory_artifact_id = ? AND entry_id IN ({placeholders(len(chunk))})"
                pids = [
                    r[0]
                    for r in db.execute(
                        f"SELECT projection_id FROM memory_entry_heads WHERE {where}", params
                    ).fetchall()
                ]
                _drop_projection(db, pids)

        self._queue(go)

    async def clear_projection(self, artifact_id: str) -> None:
        def go(db: Db) -> None:
            pids = [
                r[0]
                for r in db.execute(
                    "SELECT projection_id FROM memory_entry_heads WHERE memory_artifact_id = ?",
                    (artifact_id,),
                ).fetchall()
            ]
            _drop_projection(db, pids)

        self._queue(go)
