"""Verified reads inside one adapter read transaction, on their own so that the backend
(database.py) and the version warming it starts (version_warming.py) both import them."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ..api import RevisionChanges
from ..domain import idempotency
from ..domain.errors import DataLossError, NotFoundError, RevisionConflictError
from ..domain.models import ArtifactRef, EntryVersion, Revision, Source
from . import codec
from .port import ChangesRow, ReadTransaction
from .revision_cache import RevisionCache, read_revision
from .version_cache import VersionCache


class ReadSession:
    """Verified reads inside one adapter read transaction."""

    def __init__(
        self, tx: ReadTransaction, cache: RevisionCache, versions: VersionCache | None = None
    ) -> None:
        self.tx = tx
        self._cache = cache
        self._versions = versions

    async def heads(self, artifact_ids: Sequence[str]) -> dict[str, int]:
        return await self.tx.head_revisions(artifact_ids)

    async def head(self, artifact_id: str) -> int:
        heads = await self.tx.head_revisions([artifact_id])
        if artifact_id not in heads:
            raise NotFoundError(
                f"memory {artifact_id} does not exist",
                reason="MEMORY_NOT_FOUND",
                metadata={"artifactId": artifact_id},
            )
        return heads[artifact_id]

    async def revision(self, ref: ArtifactRef) -> Revision:
        cached = self._cache.get((ref.artifact_id, ref.revision))
        if cached is not None:
            return cached
        row = await self.tx.revision_row(ref.artifact_id, ref.revision)
        if row is None:
            await self.head(ref.artifact_id)  # NOT_FOUND for the memory itself first
            raise NotFoundError(
                f"memory {ref.artifact_id} has no revision {ref.revision}",
                reason="REVISION_NOT_FOUND",
                metadata={"artifactId": ref.artifact_id, "revision": str(ref.revision)},
            )
        revision = await read_revision(self.tx, row, self._cache)
        self._cache.put(revision, pieced=row.manifest_root is not None)
        return revision

    async def current(self, ref: ArtifactRef) -> Revision:
        """The revision `ref` names, which must be the head (writes are based on the head)."""
        head = await self.head(ref.artifact_id)
        if head != ref.revision:
            raise RevisionConflictError(ref.artifact_id, ref.revision, head)
        return await self.revision(ref)

    async def versions(
        self, version_ids: Sequence[str], *, verified_before: bool = False
    ) -> dict[str, EntryVersion]:
        """Verified versions by id; a missing one is data loss (manifests only name real rows).

        With `verified_before` (search and PrepareContext, whose rows the head manifest has
        confirmed), versions this process already verified are taken from its cache
        (backends/version_cache.py) and the others are read and kept."""
        wanted = list(dict.fromkeys(version_ids))
        found: dict[str, EntryVersion] = {}
        cache = self._versions if verified_before else None
        if cache is not None:
            for version_id in wanted:
                if (version := cache.get(version_id)) is not None:
                    found[version_id] = version
        unread = [v for v in wanted if v not in found]
        rows = await self.tx.entry_version_rows(unread) if unread else []
        for row in rows:
            version = found[row.entry_version_id] = codec.version_from_row(row)
            if cache is not None:
                cache.put(version)
        missing = [v for v in wanted if v not in found]
        if missing:
            raise DataLossError(
                f"memory_entry_versions[{missing[0]}]: referenced by a manifest but missing",
                metadata={"row": f"memory_entry_versions[{missing[0]}]"},
            )
        return found

    async def source(self, source_id: str, within: Sequence[str] | None = None) -> Source:
        """The verified source. `within` (a token's memory list): only a source those memories
        cite or had recorded for them, shown as created when it first became theirs; any
        other answers exactly as a source that does not exist (no existence oracle)."""
        first_linked = await self.tx.source_links([source_id], within) if within else None
        rows = await self.tx.source_rows([source_id])
        if not rows or (first_linked is not None and source_id not in first_linked):
            raise NotFoundError(
                f"source {source_id} does not exist",
                reason="SOURCE_NOT_FOUND",
                metadata={"sourceId": source_id},
            )
        source = codec.source_from_row(rows[0])
        if first_linked is not None:
            source = dataclasses.replace(source, created_at_ms=first_linked[source_id])
        return source

    async def changes(self, artifact_id: str, first: int, last: int) -> list[RevisionChanges]:
        """Compact changes of revisions first..last, ascending: only the changes columns are
        read, never a manifest or entry text. For a bounded range; whole histories are read
        page by page (DatabaseMemoryBackend.history)."""
        return [revision_changes(row) for row in await self.changes_rows(artifact_id, first, last)]

    async def changes_rows(self, artifact_id: str, first: int, last: int) -> list[ChangesRow]:
        """The stored changes of revisions first..last (all of which must exist), undecoded.

        A row stored without its changes columns (by an older server, after the backfill) has
        them derived from its verified content instead.
        """
        if first > last:
            return []
        rows = await self.tx.changes_rows(artifact_id, first, last)
        out: list[ChangesRow] = []
        for expected, row in enumerate(rows, start=first):
            if row.revision != expected:
                break
            if row.changes is None:
                full = await self.tx.revision_row(artifact_id, row.revision)
                assert full is not None  # the same snapshot just listed it
                changes, changes_hash = codec.stored_changes(full)
                row = dataclasses.replace(row, changes=changes, changes_hash=changes_hash)
            out.append(row)
        if len(out) != last - first + 1:
            missing = f"artifact_revisions[{artifact_id}@{first + len(out)}]"
            raise DataLossError(
                f"{missing}: missing (revisions are gapless up to the head)",
                metadata={"row": missing},
            )
        return out

    async def recorded_write(
        self, caller_key: str, request_id: str
    ) -> tuple[str, idempotency.RecordedOutcome] | None:
        """(fingerprint, outcome) recorded for this caller's request id, if any."""
        row = await self.tx.write_request_row(caller_key, request_id)
        if row is None:
            return None
        try:
            return row.fingerprint, idempotency.RecordedOutcome.from_json(row.outcome)
        except (ValueError, KeyError, TypeError, IndexError) as error:
            raise DataLossError(
                f"write_requests[{request_id}]: the recorded outcome is unreadable ({error})",
                metadata={"row": f"write_requests[{request_id}]"},
            ) from error


def revision_changes(row: ChangesRow) -> RevisionChanges:
    """One revision's stored changes as history reports them."""
    return RevisionChanges(
        ArtifactRef(row.artifact_id, row.revision),
        row.content_hash,
        codec.changes_from_row(row),
        row.committed_at_ms,
    )
