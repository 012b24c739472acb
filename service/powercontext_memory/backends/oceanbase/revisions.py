"""Revisions on OceanBase: the revision row with its manifest in pieces, the head CAS, entry
versions and content-addressed manifest pieces."""

from __future__ import annotations

from collections.abc import Sequence

from asyncmy.errors import IntegrityError

from ..port import EntryVersionRow, ManifestPieceRow, RevisionExistsError, RevisionRow, values
from ..sql_reads import REVISION_COLUMNS, VERSION_INSERT
from .statements import OceanBaseStatements
from .wire import driver_sql, hex_literal, split_utf8

MANIFEST_PIECE_BYTES = 6 * 1024 * 1024  # hex doubles it: 12 MiB statements under 16 MiB
_DUPLICATE_KEY = 1062


class RevisionStatements(OceanBaseStatements):
    async def existing_revisions(self, refs: Sequence[tuple[str, int]]) -> set[tuple[str, int]]:
        found: set[tuple[str, int]] = set()
        for artifact_id, revision in refs:
            if await self._all(
                "SELECT 1 FROM artifact_revisions WHERE artifact_id = ? AND revision = ?",
                (artifact_id, revision),
            ):
                found.add((artifact_id, revision))
        return found

    async def insert_revision(self, row: RevisionRow) -> None:
        """The manifest is the one large value of a commit (MBs for a big memory). It travels
        as hex literals, which the client builds in C, instead of through the driver's string
        escaping (several times slower end to end on large values), and in pieces that each
        fit the engine's 16 MiB default max_allowed_packet; the row is invisible until COMMIT."""
        pieces = split_utf8(row.content.encode("utf-8"), MANIFEST_PIECE_BYTES)
        try:
            await self._exec(
                f"INSERT INTO artifact_revisions ({REVISION_COLUMNS}) "
                f"VALUES (?, ?, ?, {hex_literal(pieces[0])}, ?, ?, ?, ?, ?, ?)",
                (
                    row.artifact_id,
                    row.revision,
                    row.family,
                    row.content_hash,
                    row.lineage,
                    row.committed_at_ms,
                    row.changes,
                    row.changes_hash,
                    row.manifest_root,
                ),
            )
        except IntegrityError as exc:
            if exc.args and exc.args[0] == _DUPLICATE_KEY:
                raise RevisionExistsError(row.artifact_id, row.revision) from exc
            raise
        for piece in pieces[1:]:
            await self._exec(
                f"UPDATE artifact_revisions SET content = CONCAT(content, {hex_literal(piece)}) "
                "WHERE artifact_id = ? AND revision = ?",
                (row.artifact_id, row.revision),
            )

    async def advance_head(self, artifact_id: str, base_revision: int, next_revision: int) -> bool:
        if base_revision == 0:
            affected = await self._exec(
                "INSERT IGNORE INTO artifact_heads (artifact_id, revision) VALUES (?, ?)",
                (artifact_id, next_revision),
            )
        else:
            affected = await self._exec(
                "UPDATE artifact_heads SET revision = ? WHERE artifact_id = ? AND revision = ?",
                (next_revision, artifact_id, base_revision),
            )
        return affected == 1

    async def set_revision_changes(
        self, artifact_id: str, revision: int, changes: str, changes_hash: str
    ) -> None:
        await self._exec(
            "UPDATE artifact_revisions SET changes = ?, changes_hash = ? "
            "WHERE artifact_id = ? AND revision = ? AND changes IS NULL",
            (changes, changes_hash, artifact_id, revision),
        )

    async def insert_manifest_pieces(self, rows: Sequence[ManifestPieceRow]) -> None:
        """One statement per few MB; bodies travel as hex literals (see insert_revision),
        keys are hex digests."""
        batch: list[str] = []
        size = 0
        for row in rows:
            batch.append(f"('{row.piece_key}', {hex_literal(row.body.encode('utf-8'))})")
            size += len(batch[-1])
            if size > MANIFEST_PIECE_BYTES:
                await self._insert_pieces(batch)
                batch, size = [], 0
        if batch:
            await self._insert_pieces(batch)

    async def _insert_pieces(self, literals: list[str]) -> None:
        await self._exec(
            f"INSERT IGNORE INTO manifest_pieces (piece_key, body) VALUES {', '.join(literals)}",
            (),
        )

    async def set_revision_pieces(self, artifact_id: str, revision: int, root: str) -> None:
        await self._exec(
            "UPDATE artifact_revisions SET content = '', manifest_root = ? "
            "WHERE artifact_id = ? AND revision = ? AND manifest_root IS NULL",
            (root, artifact_id, revision),
        )

    async def insert_entry_versions(self, rows: Sequence[EntryVersionRow]) -> None:
        if not rows:
            return
        async with await self._cursor() as cur, self._storage.within(self._conn):
            await cur.executemany(
                driver_sql(VERSION_INSERT),
                [values(r) for r in rows],
            )
