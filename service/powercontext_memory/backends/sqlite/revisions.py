"""Revisions, their manifest pieces and entry versions, and the head CAS."""

from __future__ import annotations

from collections.abc import Sequence

import sqlean

from ..port import EntryVersionRow, ManifestPieceRow, RevisionExistsError, RevisionRow, values
from ..sql_reads import REVISION_COLUMNS, VERSION_INSERT
from .statements import Db, execute, placeholders
from .transaction_base import TransactionBase


class SQLiteRevisions(TransactionBase):
    async def existing_revisions(self, refs: Sequence[tuple[str, int]]) -> set[tuple[str, int]]:
        def go(db: Db) -> set[tuple[str, int]]:
            sql = "SELECT 1 FROM artifact_revisions WHERE artifact_id = ? AND revision = ?"
            return {ref for ref in refs if db.execute(sql, ref).fetchone()}

        return await self._run(go)

    async def insert_revision(self, row: RevisionRow) -> None:
        params = values(row)

        def go(db: Db) -> None:
            try:
                execute(
                    db,
                    f"INSERT INTO artifact_revisions ({REVISION_COLUMNS}) "
                    f"VALUES ({placeholders(len(params))})",
                    params,
                )
            except sqlean.IntegrityError as exc:
                if "artifact_revisions" in str(exc):
                    raise RevisionExistsError(row.artifact_id, row.revision) from exc
                raise

        self._queue(go)  # a conflict surfaces at the next flush (advance_head flushes first)

    async def advance_head(self, artifact_id: str, base_revision: int, next_revision: int) -> bool:
        def go(db: Db) -> bool:
            if base_revision == 0:
                cur = db.execute(
                    "INSERT OR IGNORE INTO artifact_heads (artifact_id, revision) VALUES (?, ?)",
                    (artifact_id, next_revision),
                )
            else:
                cur = db.execute(
                    "UPDATE artifact_heads SET revision = ? WHERE artifact_id = ? AND revision = ?",
                    (next_revision, artifact_id, base_revision),
                )
            return cur.rowcount == 1

        await self.flush()  # a failed queued insert must surface before the CAS result
        return await self._run(go)

    async def set_revision_changes(
        self, artifact_id: str, revision: int, changes: str, changes_hash: str
    ) -> None:
        self._queue(
            lambda db: db.execute(
                "UPDATE artifact_revisions SET changes = ?, changes_hash = ? "
                "WHERE artifact_id = ? AND revision = ? AND changes IS NULL",
                (changes, changes_hash, artifact_id, revision),
            )
        )

    async def insert_manifest_pieces(self, rows: Sequence[ManifestPieceRow]) -> None:
        if not rows:
            return
        self._queue(
            lambda db: db.executemany(
                "INSERT OR IGNORE INTO manifest_pieces (piece_key, body) VALUES (?, ?)",
                [(r.piece_key, r.body) for r in rows],
            )
        )

    async def set_revision_pieces(self, artifact_id: str, revision: int, root: str) -> None:
        self._queue(
            lambda db: db.execute(
                "UPDATE artifact_revisions SET content = '', manifest_root = ? "
                "WHERE artifact_id = ? AND revision = ? AND manifest_root IS NULL",
                (root, artifact_id, revision),
            )
        )

    async def insert_entry_versions(self, rows: Sequence[EntryVersionRow]) -> None:
        if not rows:
            return
        self._queue(
            lambda db: db.executemany(
                VERSION_INSERT,
                [values(r) for r in rows],
            )
        )
