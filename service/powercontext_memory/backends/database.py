"""DatabaseMemoryBackend: the shared half of every database backend (the storage interface).

It serializes writes, executes commit plans inside one adapter transaction (head check,
evidence reload, revision insert + head CAS, entry versions, projection), verifies everything it
reads against hashes and canonical bytes, and filters search candidates against the
authoritative manifest. Adapters supply only storage primitives (backends/port/).
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import json
import logging
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from typing import TypeVar

import numpy as np

from ..api import RevisionChanges
from ..domain import fusion, idempotency
from ..domain.errors import (
    AbortedError,
    DataLossError,
    FailedPreconditionError,
    NotFoundError,
    RevisionConflictError,
)
from ..domain.lifecycle import CommitPlan
from ..domain.models import (
    ArtifactRef,
    EmbeddingProfile,
    Revision,
    Source,
)
from ..observing.port import NO_OBSERVER, ServiceObserver
from ..security.tokens import AccessToken
from . import codec
from .capabilities import BackendCapabilities
from .commit_checks import check_evidence, check_predecessors
from .commit_listener import CommitListener
from .commit_rows import expected_projection, head_row, revision_row
from .history_pages import HistoryPages
from .kind_rows_cache import KindRowsCache
from .port import (
    ChangesRow,
    EntryVersionRow,
    HeadProjectionRow,
    ManifestPieceRow,
    MemoryLabelRow,
    ReadTransaction,
    RevisionExistsError,
    RevisionRow,
    SnapshotMovedError,
    StorageAdapter,
    WriteRequestRow,
    WriteTransaction,
)
from .read_session import ReadSession
from .revision_cache import RevisionCache
from .source_links import cited_source_links, source_links
from .transaction_scopes import ReadScope, Reported, WriterLock, driver_error
from .version_cache import VersionCache
from .version_warming import VersionWarmer

# Test seam: called with a step name inside the commit transaction ("checked", "request" when
# the write records a request id, "revision", "head", "versions", "projection"); raising there
# must roll everything back. Then "committed", once the transaction is durable and before the
# caller hears of it (where a lost response leaves a client that must retry).
CommitHook = Callable[[str], None]
RevisionKey = tuple[str, int]  # (artifact id, revision)

T = TypeVar("T")

logger = logging.getLogger(__name__)

# Revisions per read of a history (Changes) stream: one short query on a reader each.
HISTORY_PAGE = 256
# Revisions per transaction of the changes backfill (read one at a time: each holds a manifest).
BACKFILL_BATCH = 256
# Revisions per transaction of the manifest migration (migrate-manifests).
MIGRATE_BATCH = 64
# schema_meta marker: every source a stored revision cites is linked to its memory.
SOURCE_LINKS_KEY = "memory_sources"
SOURCE_LINKS = "cited-v1"


class _HeadMoved(Exception):
    """The head CAS found another writer's revision: roll back, then report its head."""


class WriteAlreadyRecorded(Exception):
    """Another call with the same caller and request id recorded its outcome first (a racing
    retry); this transaction was rolled back, and the caller answers with that outcome."""


class DatabaseMemoryBackend:
    """Domain-level storage on top of one StorageAdapter."""

    def __init__(
        self,
        adapter: StorageAdapter,
        *,
        commit_hook: CommitHook | None = None,
        clock: Callable[[], int] | None = None,
    ) -> None:
        self.adapter = adapter
        self.commit_hook = commit_hook
        # Milliseconds since the epoch for request records and their retention (tests move it).
        self.clock: Callable[[], int] = clock or _now_ms
        self._prune_due_ms = 0  # when a write next deletes expired request records
        self.observer: ServiceObserver = NO_OBSERVER
        self._cache = RevisionCache()
        self._versions = VersionCache()
        # PrepareContext's confirmed rule and note rows per memory revision (kind_rows_cache.py).
        self.kind_rows = KindRowsCache()
        # Fills _versions with a memory's versions on its first search (version_warming.py).
        self.version_warmer = VersionWarmer(self.read, self._versions)
        self._write_lock = WriterLock(adapter)
        self.history_page = HISTORY_PAGE
        # History pages, shared by the Changes streams on them (history_pages.py).
        self.history_pages = HistoryPages()
        # The database's fixed embedding profile (None until one is fixed).
        self.profile: EmbeddingProfile | None = None
        # Told of every commit of this process (the search indexes: search/indexes.py).
        self.listeners: list[CommitListener] = []

    def _report(self, error: Exception) -> None:
        """A failure of the database driver (inside `error`'s chain) goes to the observer."""
        failed = driver_error(error, self.adapter.driver_errors)
        if failed is not None:
            self.observer.database_error(self.name, type(failed).__name__)

    def _read_tx(self) -> AbstractAsyncContextManager[ReadTransaction]:
        return Reported(self.adapter.read(), self._report)

    def _write_tx(self) -> AbstractAsyncContextManager[WriteTransaction]:
        return Reported(self.adapter.write(), self._report)

    async def load_profile(self) -> EmbeddingProfile | None:
        async with self._read_tx() as tx:
            stored = await tx.embedding_profile_json()
        self._use_profile(EmbeddingProfile.from_json(json.loads(stored)) if stored else None)
        return self.profile

    def listen(self, listener: CommitListener) -> None:
        """Tell `listener` of this process's commits from now on (and of the profile now)."""
        self.listeners.append(listener)
        listener.profile_changed(self.profile)

    def _use_profile(self, profile: EmbeddingProfile | None) -> None:
        self.profile = profile
        for listener in self.listeners:
            listener.profile_changed(profile)

    async def set_profile(self, profile: EmbeddingProfile) -> None:
        """Fix the profile (first use) or, offline, replace it: all stored vectors are dropped."""
        async with self._write_lock, self._write_tx() as tx:
            await tx.set_embedding_profile(profile.canonical_text, profile.dimension)
        self._use_profile(profile)

    @property
    def name(self) -> str:
        return self.adapter.name

    def capabilities(self) -> BackendCapabilities:
        """What this database can do (the service asks this, never the adapter)."""
        adapter = self.adapter
        return BackendCapabilities(
            name=adapter.name,
            location=adapter.location,
            engine_version=adapter.engine_version,
            fts_problem=adapter.fts_problem,
            vector_problem=adapter.vector_problem,
            native_vector_search=adapter.native_vector_search,
        )

    def read(self) -> AbstractAsyncContextManager[ReadSession]:
        return ReadScope(self.adapter.read(), self._report, self._cache, self._versions)

    async def optimistic_read(self, body: Callable[[ReadSession], Awaitable[T]]) -> T:
        """`body` over a read that begins its snapshot only if a second statement is needed
        (StorageAdapter.read); when a commit moved the first statement's answer meanwhile,
        `body` runs once more over a plain snapshot. `body` only reads, so a second run is
        safe. The search path: warm, it reads nothing but its heads."""
        try:
            scope = ReadScope(
                self.adapter.read(optimistic=True), self._report, self._cache, self._versions
            )
            async with scope as session:
                return await body(session)
        except SnapshotMovedError:
            self.observer.snapshot_moved(self.name)
        async with self.read() as session:
            return await body(session)

    def audit_read(self) -> AbstractAsyncContextManager[ReadTransaction]:
        """A snapshot for whole-database reads (verifier, export): the AuditReads as well as
        the HotReads of backends/port/, its driver failures reported like any other."""
        return self._read_tx()

    async def history(
        self, artifact_id: str, first: int, last: int
    ) -> AsyncGenerator[RevisionChanges, None]:
        """Revisions first..last (all existing), ascending, a page of `history_page` at a time.

        Pages start at multiples of `history_page` and are shared by the streams of this
        process on them (history_pages.py): replays of one memory at the same time read and
        verify each revision once.

        Each page read is one short read transaction of the changes columns only, released
        before anything is yielded: a client that reads slowly or not at all holds no reader
        and at most one page (revisions are immutable, so pages need no common snapshot).
        Revisions are decoded one at a time as they are yielded, so the event loop never runs
        a page's worth of hashing and parsing in one step; replays never load manifests, so
        many at once leave memory and other calls alone (measured by bench/history.py).
        """
        while first <= last:
            start = first - (first - 1) % self.history_page
            end = min(last, start + self.history_page - 1)
            page = await self.history_pages.page(
                artifact_id, start, first, end, functools.partial(self._history_rows, artifact_id)
            )
            for revision in range(first, end + 1):
                yield page.item(revision)
            first = end + 1

    async def _history_rows(self, artifact_id: str, first: int, last: int) -> list[ChangesRow]:
        """One page of history from the database, undecoded."""
        async with self.read() as session:
            rows = await session.changes_rows(artifact_id, first, last)
        self.observer.history_page(len(rows))
        return rows

    async def backfill_changes(self, batch: int = BACKFILL_BATCH) -> int:
        """Store the changes columns of revisions stored without them (databases created before
        those columns); returns how many were filled. Idempotent: it only looks at rows whose
        changes are NULL. Each batch is a transaction of its own. A row whose content fails its
        hash is left as it is (logged): its history reads still answer DATA_LOSS, and the
        verifier names it."""
        filled = 0

        async def fill(tx: WriteTransaction, row: RevisionRow) -> None:
            nonlocal filled
            try:
                changes, changes_hash = codec.stored_changes(row)
            except DataLossError as error:
                logger.warning("not backfilling its changes: %s", error.message)
                return
            await tx.set_revision_changes(row.artifact_id, row.revision, changes, changes_hash)
            filled += 1

        await self._each_listed_revision(
            lambda tx, after: tx.revisions_without_changes(after, batch), batch, fill
        )
        return filled

    async def migrate_manifests(
        self, batch: int = MIGRATE_BATCH, progress: Callable[[int], None] | None = None
    ) -> tuple[int, list[str]]:
        """Store every revision still held whole as manifest pieces (databases written before
        pieces); returns (migrated, rows left as they were). Each batch is a transaction of its
        own, so a killed run resumes where it stopped; only rows without a root are touched and
        pieces are content addressed, so running it again changes nothing. A row whose content
        fails its hash is left whole (logged and returned): the verifier names it."""
        migrated, failed = 0, []
        written: set[str] = set()  # consecutive revisions share most pieces: insert once

        async def migrate(tx: WriteTransaction, row: RevisionRow) -> None:
            nonlocal migrated
            try:
                pieces, root = codec.pieces_of_whole_row(row)
            except DataLossError as error:
                logger.warning("not migrating its manifest: %s", error.message)
                failed.append(f"{row.artifact_id}@{row.revision}")
                return
            await tx.insert_manifest_pieces([p for p in pieces if p.piece_key not in written])
            written.update(p.piece_key for p in pieces)  # a failed batch ends the run
            await tx.set_revision_pieces(row.artifact_id, row.revision, root)
            migrated += 1

        await self._each_listed_revision(
            lambda tx, after: tx.revisions_with_full_content(after, batch),
            batch,
            migrate,
            lambda: progress(migrated) if progress is not None else None,
        )
        return migrated, failed

    async def _each_listed_revision(
        self,
        listing: Callable[
            [WriteTransaction, tuple[str, int] | None], Awaitable[list[tuple[str, int]]]
        ],
        batch: int,
        visit: Callable[[WriteTransaction, RevisionRow], Awaitable[None]],
        after_batch: Callable[[], None] | None = None,
    ) -> None:
        """Visit, in batches of `batch` (each one write transaction, so a killed walk resumes
        where it stopped), every revision `listing` names after the last key seen: one manifest
        in memory at a time."""
        after: tuple[str, int] | None = None
        while True:
            async with self._write_lock, self._write_tx() as tx:
                keys = await listing(tx, after)
                for artifact_id, revision in keys:
                    row = await tx.revision_row(artifact_id, revision)
                    assert row is not None  # listed in this very transaction
                    await visit(tx, row)
            if after_batch is not None:
                after_batch()
            if len(keys) < batch:
                return
            after = keys[-1]

    async def close(self) -> None:
        await self.version_warmer.close()
        await self.adapter.close()

    # -- writes ---------------------------------------------------------------------------------

    def _step(self, name: str) -> None:
        if self.commit_hook is not None:
            self.commit_hook(name)

    async def commit(
        self,
        plan: CommitPlan,
        record: idempotency.WriteRecord | None = None,
        within: Sequence[str] | None = None,
    ) -> Revision:
        """Execute a plan atomically: all of it commits, or none of it. With `record`, the
        write's outcome is recorded under its request id in the same transaction; when that id
        is already recorded, everything is rolled back and WriteAlreadyRecorded raised. With
        `within` (a token's memory list), the plan may cite only sources of those memories.
        Every source the revision cites is linked to its memory (memory_sources)."""
        next_ref = ArtifactRef(plan.artifact_id, plan.next_revision)
        row_task = asyncio.ensure_future(revision_row(plan, _now_ms()))
        base_key = (plan.artifact_id, plan.base_revision)
        base = self._cache.get(base_key) if self._cache.is_pieced(base_key) else None
        stored = codec.stored_piece_keys(base.content) if base is not None else frozenset()
        pieces = codec.piece_rows(plan.content, stored)
        version_rows = [codec.version_to_row(v) for v in plan.new_versions]
        request_row = self._request_row(record) if record is not None else None
        try:
            rows = await self._commit_rows(
                plan, row_task, pieces, version_rows, request_row, within
            )
        except _HeadMoved:
            # The CAS was lost after the in-transaction check (another process committed in
            # between; the transaction is rolled back by now). Report the head that won, read
            # afresh: callers re-apply on it, and "0" would send them to a revision that never
            # was the head.
            async with self._read_tx() as tx:
                head = (await tx.head_revisions([plan.artifact_id])).get(plan.artifact_id)
            raise RevisionConflictError(plan.artifact_id, plan.base_revision, head) from None
        finally:
            row_task.cancel()  # when the transaction failed before it needed the row
        row = row_task.result()
        revision = Revision(next_ref, plan.content, plan.lineage, row.committed_at_ms)
        self._cache.put(revision, pieced=True)
        for listener in self.listeners:
            listener.committed(
                plan.artifact_id,
                plan.base_revision,
                plan.next_revision,
                rows,
                plan.projection_removals,
            )
        self._step("committed")
        return revision

    async def _commit_rows(
        self,
        plan: CommitPlan,
        revision_row: Awaitable[RevisionRow],
        pieces: list[ManifestPieceRow],
        version_rows: list[EntryVersionRow],
        request_row: WriteRequestRow | None,
        within: Sequence[str] | None,
    ) -> list[HeadProjectionRow]:
        """The transaction of `commit`; returns the projection rows it wrote."""
        async with self._write_lock, self._write_tx() as tx:
            head = (await tx.head_revisions([plan.artifact_id])).get(plan.artifact_id)
            if head != (plan.base_revision or None):
                raise RevisionConflictError(plan.artifact_id, plan.base_revision, head)
            await check_evidence(tx, plan, within)
            await check_predecessors(tx, plan)
            self._step("checked")
            if request_row is not None:
                await self._record(tx, request_row)
                self._step("request")
            row = await revision_row  # its hash was computed while the checks ran
            try:
                await tx.insert_manifest_pieces(pieces)
                await tx.insert_revision(row)
                self._step("revision")
                moved = await tx.advance_head(
                    plan.artifact_id, plan.base_revision, plan.next_revision
                )
            except RevisionExistsError:  # another writer inserted this revision first
                moved = False
            if not moved:
                raise _HeadMoved
            self._step("head")
            await tx.insert_entry_versions(version_rows)
            await tx.insert_source_links(
                source_links(plan.artifact_id, plan.evidence_sources, row.committed_at_ms)
            )
            self._step("versions")
            if plan.projection_removals:
                await tx.remove_projection(plan.artifact_id, plan.projection_removals)
            rows = [head_row(plan.artifact_id, r) for r in plan.projection_upserts]
            self._check_vectors(rows)
            await tx.upsert_projection(plan.next_revision, rows)
            self._step("projection")
        return rows

    def _request_row(self, record: idempotency.WriteRecord) -> WriteRequestRow:
        return WriteRequestRow(
            record.caller_key,
            record.request_id,
            record.fingerprint,
            record.outcome.to_json(),
            self.clock(),
        )

    async def _record(self, tx: WriteTransaction, row: WriteRequestRow) -> None:
        """Record a request's outcome; now and then, delete expired records too (see
        idempotency.PRUNE_INTERVAL_MS: work bounded per write, a table of about a day)."""
        if not await tx.insert_write_request(row):
            raise WriteAlreadyRecorded(row.request_id)
        if row.created_at_ms < self._prune_due_ms:
            return
        deleted = await tx.delete_write_requests(
            row.created_at_ms - idempotency.RETENTION_MS, idempotency.PRUNE_BATCH
        )
        # A full batch may have left more behind: the next write prunes again.
        wait = 0 if deleted >= idempotency.PRUNE_BATCH else idempotency.PRUNE_INTERVAL_MS
        self._prune_due_ms = row.created_at_ms + wait

    async def record_write(self, record: idempotency.WriteRecord) -> None:
        """Record the outcome of a write that committed nothing, in a transaction of its own
        (WriteAlreadyRecorded when the id is taken: a racing call recorded first)."""
        row = self._request_row(record)
        async with self._write_lock, self._write_tx() as tx:
            await self._record(tx, row)

    def _check_vectors(self, rows: Sequence[HeadProjectionRow]) -> None:
        """A vector enters the projection only bound to this profile and this exact content."""
        for row in rows:
            if row.embedding is None:
                continue
            if self.profile is None or row.embedding_content_hash != (
                self.profile.embedding_content_hash(row.entry_content_hash)
            ):
                raise FailedPreconditionError(
                    f"vector for entry {row.entry_id} is not bound to this database's embedding "
                    "profile and the entry's content",
                    reason="EMBEDDING_MISMATCH",
                    metadata={"entryId": row.entry_id},
                )
            fusion.check_embedding(
                np.frombuffer(row.embedding, dtype="<f4"), self.profile.dimension
            )

    async def put_source(
        self, source: Source, memory_id: str | None = None, within: Sequence[str] | None = None
    ) -> tuple[Source, bool]:
        """Store the source (or find the identical one) and, with `memory_id`, record it for
        that memory, which must exist. Returns the stored source and whether it is new. With
        `within` (a token's memory list, which holds `memory_id`) both answers are as those
        memories see it: new unless they already had it, created when they first had it."""
        async with self._write_lock, self._write_tx() as tx:
            if memory_id is not None and not await tx.head_revisions([memory_id]):
                raise NotFoundError(
                    f"memory_id: memory {memory_id} does not exist",
                    reason="MEMORY_NOT_FOUND",
                    metadata={"artifactId": memory_id, "field": "memory_id"},
                )
            seen = await tx.source_links([source.source_id], within) if within else {}
            inserted = await tx.insert_source(codec.source_to_row(source))
            if memory_id is not None:
                await tx.insert_source_links(
                    source_links(memory_id, [source.ref], source.created_at_ms)
                )
            stored = (
                source
                if inserted
                else codec.source_from_row((await tx.source_rows([source.source_id]))[0])
            )
        if within is None:
            return stored, inserted
        if source.source_id in seen:
            return dataclasses.replace(stored, created_at_ms=seen[source.source_id]), False
        return dataclasses.replace(stored, created_at_ms=source.created_at_ms), True

    async def backfill_source_links(self) -> int:
        """Link every source that stored revisions cite to its memory (databases written before
        memory_sources), once: a schema_meta marker records that it ran. A memory per
        transaction, and links already there stay, so a killed run simply runs again; a row
        that does not parse is left out (logged), and the verifier names it."""
        async with self._read_tx() as tx:
            if await tx.meta_value(SOURCE_LINKS_KEY) is not None:
                return 0
            artifact_ids = await tx.artifact_ids()
        linked = 0
        for artifact_id in artifact_ids:
            async with self._write_lock, self._write_tx() as tx:
                rows = await cited_source_links(tx, artifact_id)
                await tx.insert_source_links(rows)
            linked += len(rows)
        async with self._write_lock, self._write_tx() as tx:
            await tx.insert_meta_value(SOURCE_LINKS_KEY, SOURCE_LINKS)
        return linked

    # -- memory labels (port/catalog.py) -------------------------------------------------------

    async def set_memory_label(
        self, memory_id: str, label: str, replaces: int, set_at_ms: int
    ) -> MemoryLabelRow:
        """Store `label` as the version after `replaces` (0: none yet); the same text as the
        current label stores nothing and answers the current row. NOT_FOUND for a memory that
        does not exist; ABORTED LABEL_CONFLICT when `replaces` is not the current version."""
        async with self._write_lock, self._write_tx() as tx:
            if not await tx.head_revisions([memory_id]):
                raise NotFoundError(
                    f"memory_id: memory {memory_id} does not exist",
                    reason="MEMORY_NOT_FOUND",
                    metadata={"artifactId": memory_id, "field": "memory_id"},
                )
            current = await tx.memory_label_rows([memory_id])
            now = current[0] if current else None
            version = now.label_version if now else 0
            if version == replaces and (now.label if now else "") == label:
                return now or MemoryLabelRow(memory_id, 0, "", 0)  # nothing to change
            row = MemoryLabelRow(memory_id, replaces + 1, label, set_at_ms)
            if version != replaces or not await tx.insert_memory_label(row):
                raise AbortedError(
                    f"memory {memory_id}'s label is at version {version}, not {replaces}: "
                    "read it again (ListMemories) and set it based on that version",
                    reason="LABEL_CONFLICT",
                    metadata={
                        "artifactId": memory_id,
                        "expectedLabelVersion": str(replaces),
                        "labelVersion": str(version),
                    },
                )
            return row

    # -- access tokens (security/tokens.py) -----------------------------------------------------

    async def access_token(self, token_id: str) -> AccessToken | None:
        async with self._read_tx() as tx:
            row = await tx.access_token_row(token_id)
        return codec.token_from_row(row) if row is not None else None

    async def access_tokens(self) -> list[AccessToken]:
        """Every token, revoked and expired ones included, oldest first."""
        async with self._read_tx() as tx:
            rows = await tx.access_token_rows()
        return [codec.token_from_row(row) for row in rows]

    async def add_access_token(self, token: AccessToken) -> None:
        async with self._write_lock, self._write_tx() as tx:
            await tx.insert_access_token(codec.token_to_row(token))

    async def revoke_access_token(self, token_id: str, revoked_at_ms: int) -> bool:
        """False when there is no such token or it was already revoked."""
        async with self._write_lock, self._write_tx() as tx:
            return await tx.revoke_access_token(token_id, revoked_at_ms)

    # -- token signing keys (security/signing.py) ---------------------------------------------

    async def signing_keys(self) -> dict[str, str]:
        """Key id → hex secret of every stored signing key."""
        async with self._read_tx() as tx:
            return dict(await tx.signing_key_rows())

    async def add_signing_key(self, key_id: str, secret_hex: str) -> bool:
        """False when that key id is already stored (another server added it first)."""
        async with self._write_lock, self._write_tx() as tx:
            return await tx.insert_signing_key(key_id, secret_hex)

    async def drop_signing_keys(self, key_ids: Sequence[str]) -> None:
        async with self._write_lock, self._write_tx() as tx:
            await tx.delete_signing_keys(key_ids)

    async def rebuild_projection(
        self, artifact_id: str, vectors: Mapping[str, tuple[bytes, str]] | None = None
    ) -> int:
        """Offline: replace one memory's projection with the one derived from its head.

        `vectors` maps entry version id -> (float32 bytes, embedding hash) for the rows that get
        a vector; rows without one are written without (their memory stays incomplete).
        """
        async with self._write_lock, self._write_tx() as tx:
            session = ReadSession(tx, self._cache)
            head = await session.head(artifact_id)
            revision = await session.revision(ArtifactRef(artifact_id, head))
            rows = [
                dataclasses.replace(r, embedding=v[0], embedding_content_hash=v[1])
                if (v := (vectors or {}).get(r.entry_version_id))
                else r
                for r in await expected_projection(session, revision)
            ]
            self._check_vectors(rows)
            await tx.clear_projection(artifact_id)
            await tx.upsert_projection(head, rows)
        for listener in self.listeners:
            listener.projection_replaced()
        return len(rows)


def _now_ms() -> int:
    return time.time_ns() // 1_000_000
