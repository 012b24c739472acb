"""MemoryService: validation and orchestration of every operation, for any backend.

Inputs arrive as plain domain values (the transport converts wire messages); each is checked
here, with the field path in the error. Planning is pure (domain/lifecycle.py); execution and
verified reads belong to the backend (backends/database.py). A write with a request id is
answered once per (caller, id) and replayed after that (domain/idempotency.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import logging
import math
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Concatenate, ParamSpec

import numpy as np
import numpy.typing as npt

from . import follow, listing
from .api import (
    NO_FILTER,
    Capabilities,
    EntryFilter,
    EntryInput,
    EntryPage,
    EntryStatus,
    ExpandedEntry,
    Hit,
    MemoryView,
    MergeResult,
    RecallManifestPage,
    RememberMode,
    RestoreOperation,
    RestorePreview,
    RestoreResult,
    RevisionChanges,
    SearchMode,
    SearchResult,
    WriteResult,
)
from .backends.codec import source_record_hash
from .backends.database import DatabaseMemoryBackend, ReadSession, WriteAlreadyRecorded
from .candidates import ActiveEntry, Candidate, CandidatePipeline, ExtractionInput, Suggestion
from .candidates import record as extraction_record
from .domain import fusion, idempotency, lifecycle, validation
from .domain.canonical import nfc
from .domain.errors import (
    CapabilityNotSupportedError,
    DataLossError,
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
    RevisionConflictError,
)
from .domain.idempotency import IdempotencyKey, RecordedOutcome, RequestScope
from .domain.lifecycle import EntryRef, EntryResult, OrganizeStep
from .domain.models import (
    ArtifactRef,
    Citation,
    EntryState,
    EntryVersion,
    Lineage,
    MemoryChange,
    Revision,
    Source,
    SourceRef,
)
from .embedding.base import EmbeddingModel, EmbeddingUnavailableError
from .follow import Progress
from .listing import GET_MEMORY_MAX_BYTES, checked_filter, estimated_size
from .merging import MergeOperations
from .notifier import HeadWatcher
from .observer import NO_OBSERVER, ServiceObserver
from .search.modes import Plan
from .search.searcher import Searcher
from .security.caller import current_caller
from .security.decoded import is_python
from .security.guard import Located, source_secret, text_secret
from .security.signing import TokenSigner
from .streams import StreamLimits

if TYPE_CHECKING:
    from .context import PreparedContext

logger = logging.getLogger(__name__)

DEFAULT_SEARCH_LIMIT = 8
MAX_SEARCH_LIMIT = 100
MAX_SEARCH_MEMORIES = 32
MAX_CITATIONS = 100
DEFAULT_PROGRESS_INTERVAL = 15.0
# EXTRACT reads at most this many active entries of the head (the candidate window), and the
# user-note adapter looks at this many full-text hits.
CANDIDATE_WINDOW = 1000
CANDIDATE_SEARCH_LIMIT = 10


def _write_result(
    base: Revision | None, revision: Revision | None, results: tuple[EntryResult, ...] = ()
) -> WriteResult:
    if revision is not None:
        return WriteResult(
            revision.ref, True, revision.content.content_hash, revision.content.changes, results
        )
    if base is not None:
        return WriteResult(base.ref, False, base.content.content_hash, (), results)
    return WriteResult(None, False, "", (), results)


P = ParamSpec("P")
_Write = Callable[Concatenate["MemoryService", P], Awaitable[WriteResult]]


def _reports_conflicts(operation: str) -> Callable[[_Write[P]], _Write[P]]:
    """Report every ABORTED of a write operation (stale base or lost CAS) to the observer."""

    def decorate(method: _Write[P]) -> _Write[P]:
        @functools.wraps(method)
        async def write(self: MemoryService, *args: P.args, **kwargs: P.kwargs) -> WriteResult:
            try:
                return await method(self, *args, **kwargs)
            except RevisionConflictError:
                self.observer.cas_conflict(operation)
                raise

        return write

    return decorate


class MemoryService:
    def __init__(
        self,
        backend: DatabaseMemoryBackend,
        *,
        embedding: EmbeddingModel | None = None,
        id_factory: lifecycle.IdFactory = lifecycle.random_id,
        progress_interval: float = DEFAULT_PROGRESS_INTERVAL,
        pipeline: CandidatePipeline | None = None,
        signer: TokenSigner | None = None,
    ) -> None:
        self.backend = backend
        # Signs page and preview tokens with the database's keys (app.open_service loads
        # them); without one, an ephemeral key (tokens die with this object).
        self.signer = signer or TokenSigner.ephemeral()
        # Merge, Restore, UndoMerge, PreviewRestore (merging.py; preview expiry is set there).
        self.merging = MergeOperations(self)
        # GetMemory leaves the manifest out past this (a default gRPC client takes 4 MiB).
        self.get_memory_max_bytes = GET_MEMORY_MAX_BYTES
        self.searcher = Searcher(backend)
        self.embedding = embedding
        # Remember EXTRACT (candidates/): deterministic adapters, plus any model extractor.
        self.pipeline = pipeline or CandidatePipeline()
        # The one head watcher of this service's follow streams (commits wake it).
        self.notifier = HeadWatcher(self._read_heads, self._read_changes)
        self.streams = StreamLimits()  # caps on open Changes streams (the server sets them)
        self._new_id = id_factory
        self.progress_interval = progress_interval
        self.observer: ServiceObserver = NO_OBSERVER

    def observe(self, observer: ServiceObserver) -> None:
        """Report commits, conflicts, follow feeds, embedding calls and database errors."""
        self.observer = observer
        self.backend.observer = observer

    def _vector_problem(self) -> str:
        """Why vectors cannot be written or searched here ("" when they can)."""
        if self.embedding is None:
            return "no embedding model is configured"
        if self.backend.profile is None:
            return "the database has no embedding profile"
        if self.embedding.profile != self.backend.profile:
            return (
                f"the model's embedding profile {self.embedding.profile.profile_id!r} differs "
                f"from the database's {self.backend.profile.profile_id!r}: run the offline "
                "migrate-embedding command"
            )
        return self.backend.capabilities().vector_problem

    def capabilities(self) -> Capabilities:
        backend = self.backend.capabilities()
        problem = self._vector_problem()
        fts_problem = backend.fts_problem
        return Capabilities(
            backend=backend.name,
            fts=not fts_problem,
            vector=not problem,
            hybrid=not problem and not fts_problem,
            embedding_profile=self.backend.profile,
            vector_unavailable_reason=problem,
            fts_unavailable_reason=fts_problem,
            engine_version=backend.engine_version,
            candidate_extraction=True,
            candidate_adapters=tuple(self.pipeline.adapter_names),
            candidate_extractors=tuple(self.pipeline.extractor_names),
        )

    async def close(self) -> None:
        self.notifier.close()
        if self.embedding is not None:
            await self.embedding.close()
        await self.backend.close()

    async def _commit(
        self, plan: lifecycle.CommitPlan, record: idempotency.WriteRecord | None = None
    ) -> Revision:
        plan = await self._with_vectors(plan)
        revision = await self.backend.commit(plan, record, current_caller().source_scope)
        self.notifier.publish(plan.artifact_id)
        self.observer.committed(plan.lineage.operation)
        return revision

    async def _with_vectors(self, plan: lifecycle.CommitPlan) -> lifecycle.CommitPlan:
        """Attach vectors to the rows this commit projects, computed outside the transaction.

        A model that is down, or a vector that fails the checks, leaves those rows without a
        vector (never a stale or placeholder one): the memory is then incomplete for vector
        search until an offline rebuild.
        """
        if not plan.projection_upserts or self._vector_problem():
            return plan
        vectors = await embed_checked(
            self, [r.text for r in plan.projection_upserts], purpose="commit"
        )
        assert self.backend.profile is not None
        profile = self.backend.profile
        rows = tuple(
            dataclasses.replace(
                row,
                embedding=vector.astype("<f4").tobytes(),
                embedding_content_hash=profile.embedding_content_hash(row.entry_content_hash),
            )
            if vector is not None
            else row
            for row, vector in zip(plan.projection_upserts, vectors, strict=True)
        )
        return dataclasses.replace(plan, projection_upserts=rows)

    # -- sources --------------------------------------------------------------------------------

    async def put_source(
        self,
        kind: str,
        uri: str,
        media_type: str,
        content: bytes,
        metadata: dict[str, str],
        memory_id: str | None = None,
    ) -> tuple[Source, bool]:
        """Store a source; with `memory_id`, also record it for that memory. A caller limited to
        some memories sees the answer as they see sources (backends: put_source)."""
        if memory_id is not None:
            validation.require_id("memory_id", memory_id)
        kind = validation.normalize_kind("kind", kind)
        uri = nfc(uri).strip()
        media_type = media_type.strip()
        if len(uri.encode("utf-8")) > 4096:
            raise InvalidArgumentError("uri", "exceeds 4096 UTF-8 bytes")
        if len(media_type) > 255 or not media_type.isascii():
            raise InvalidArgumentError("media_type", "must be ASCII, at most 255 characters")
        if len(content) > validation.MAX_SOURCE_BYTES:
            raise InvalidArgumentError(
                "content", f"exceeds {validation.MAX_SOURCE_BYTES} bytes", reason="SOURCE_TOO_LARGE"
            )
        meta = validation.validate_metadata("metadata", metadata)
        await _refuse_secrets_in_source(kind, uri, media_type, content, meta)
        content_hash = source_record_hash(kind, uri, media_type, content, meta)
        source = Source(
            "src_" + content_hash[:32],
            kind,
            uri,
            media_type,
            content,
            meta,
            content_hash,
            time.time_ns() // 1_000_000,
        )
        return await self.backend.put_source(source, memory_id, current_caller().source_scope)

    async def get_source(self, source_id: str) -> Source:
        """The source; a caller limited to some memories reads only theirs (others are
        SOURCE_NOT_FOUND, as if they did not exist)."""
        validation.require_id("source_id", source_id)
        async with self.backend.read() as session:
            return await session.source(source_id, current_caller().source_scope)

    # -- writes ---------------------------------------------------------------------------------

    @_reports_conflicts("remember")
    async def remember(
        self,
        memory: ArtifactRef | None,
        sources: Sequence[SourceRef],
        artifacts: Sequence[ArtifactRef],
        entries: Sequence[EntryInput],
        mode: RememberMode = RememberMode.AUTO,
        *,
        idempotency_key: IdempotencyKey | None = None,
        extractors: Sequence[str] = (),
    ) -> WriteResult:
        return await self._idempotent(
            idempotency_key,
            functools.partial(
                self._remember, memory, sources, artifacts, entries, mode, tuple(extractors)
            ),
        )

    async def _remember(
        self,
        memory: ArtifactRef | None,
        sources: Sequence[SourceRef],
        artifacts: Sequence[ArtifactRef],
        entries: Sequence[EntryInput],
        mode: RememberMode,
        extractors: tuple[str, ...],
        scope: RequestScope | None,
    ) -> WriteResult:
        lineage = Lineage(
            "remember",
            validation.validate_source_refs("sources", sources),
            validation.validate_artifact_refs("artifacts", artifacts),
        )
        if _resolve_remember_mode(mode, entries, lineage) is RememberMode.EXTRACT:
            return await self._extract(memory, lineage, extractors, scope)
        if extractors:
            raise InvalidArgumentError("extractors", "only with EXTRACT (evidence, no entries)")
        if len(entries) > validation.MAX_ENTRIES_PER_REQUEST:
            raise InvalidArgumentError(
                "entries", f"at most {validation.MAX_ENTRIES_PER_REQUEST} entries per request"
            )
        specs = [_entry_spec(f"entries[{i}]", e) for i, e in enumerate(entries)]
        if memory is not None:
            _require_memory_ref("memory", memory)
        async with self.backend.read() as session:
            base = await session.current(memory) if memory is not None else None
            predecessors = await _revise_targets(session, base, specs)
        plan = self._plan_remember(base, lineage, specs, predecessors)
        return await self._finish(base, plan.commit, plan.results, scope)

    def _plan_remember(
        self,
        base: Revision | None,
        lineage: Lineage,
        specs: Sequence[lifecycle.EntryInputSpec],
        predecessors: Mapping[str, EntryVersion],
    ) -> lifecycle.RememberPlan:
        """The pure plan of a Remember on `base` (a new memory's id when there is none)."""
        return lifecycle.plan_remember(
            artifact_id=base.ref.artifact_id
            if base
            else self._new_id(lifecycle.ARTIFACT_ID_PREFIX),
            base=base,
            lineage=lineage,
            inputs=specs,
            predecessors=predecessors,
            new_id=self._new_id,
        )

    async def _extract(
        self,
        memory: ArtifactRef | None,
        lineage: Lineage,
        extractors: tuple[str, ...],
        scope: RequestScope | None,
    ) -> WriteResult:
        """EXTRACT: run the candidate pipeline outside any transaction over the operation's
        persisted sources and the head's active entries, then write what passes the APPEND
        checks as one Remember (nothing to propose: a no-op, never an empty Memory)."""
        selected = self.pipeline.select(extractors)
        if memory is not None:
            _require_memory_ref("memory", memory)
        async with self.backend.read() as session:
            base = await session.current(memory) if memory is not None else None
            sources = [
                await _operation_source(session, f"sources[{i}]", ref)
                for i, ref in enumerate(lineage.sources)
            ]
            window = await _active_window(session, base)
        request = ExtractionInput(
            sources,
            [_active_entry(v) for v in window.values()],
            functools.partial(self._candidate_search, base),
            self.get_source,
        )
        found = await self.pipeline.run(request, selected)
        entries, specs = _admitted(found.candidates, request, window)
        suggestions = tuple(found.suggestions)
        if not specs:
            return await self._finish(base, None, (), scope, suggestions=suggestions)
        plan = self._plan_remember(base, lineage, specs, window)
        return await self._finish(base, plan.commit, plan.results, scope, entries, suggestions)

    async def _candidate_search(self, base: Revision | None, query: str) -> list[Hit]:
        """Full-text hits among the head's active entries, for the user-note adapter."""
        if base is None:
            return []
        try:
            found = await self.search(
                query[: validation.MAX_QUERY_CHARS], [base.ref], CANDIDATE_SEARCH_LIMIT,
                SearchMode.FTS,
            )  # fmt: skip
        except CapabilityNotSupportedError:
            return []  # no full text here: the note then names no entry
        return found.hits

    @_reports_conflicts("forget")
    async def forget(
        self,
        memory: ArtifactRef,
        entries: Sequence[EntryRef],
        reason: str | None,
        *,
        idempotency_key: IdempotencyKey | None = None,
    ) -> WriteResult:
        return await self._idempotent(
            idempotency_key, functools.partial(self._forget, memory, entries, reason)
        )

    async def _forget(
        self,
        memory: ArtifactRef,
        entries: Sequence[EntryRef],
        reason: str | None,
        scope: RequestScope | None,
    ) -> WriteResult:
        refs, reason = _state_change_inputs(memory, entries, reason)
        async with self.backend.read() as session:
            base = await session.current(memory)
        plan = lifecycle.plan_forget(base, refs, reason, Lineage("forget"))
        return await self._finish(base, plan, (), scope)

    @_reports_conflicts("reactivate")
    async def reactivate(
        self,
        memory: ArtifactRef,
        entries: Sequence[EntryRef],
        reason: str | None,
        *,
        idempotency_key: IdempotencyKey | None = None,
    ) -> WriteResult:
        return await self._idempotent(
            idempotency_key, functools.partial(self._reactivate, memory, entries, reason)
        )

    async def _reactivate(
        self,
        memory: ArtifactRef,
        entries: Sequence[EntryRef],
        reason: str | None,
        scope: RequestScope | None,
    ) -> WriteResult:
        refs, reason = _state_change_inputs(memory, entries, reason)
        async with self.backend.read() as session:
            base = await session.current(memory)
            wanted = [
                r.entry_version_id
                for r in refs
                if (e := base.content.entry(r.entry_id)) is not None
                and e.entry_version_id == r.entry_version_id
                and e.state is EntryState.INACTIVE
            ]
            versions = await session.versions(wanted)
        plan = lifecycle.plan_reactivate(base, refs, reason, Lineage("reactivate"), versions)
        return await self._finish(base, plan, (), scope)

    @_reports_conflicts("organize")
    async def organize(
        self,
        memory: ArtifactRef,
        steps: Sequence[OrganizeStep],
        *,
        idempotency_key: IdempotencyKey | None = None,
    ) -> WriteResult:
        return await self._idempotent(
            idempotency_key, functools.partial(self._organize, memory, steps)
        )

    async def _organize(
        self, memory: ArtifactRef, steps: Sequence[OrganizeStep], scope: RequestScope | None
    ) -> WriteResult:
        _require_memory_ref("memory", memory)
        async with self.backend.read() as session:
            base = await session.current(memory)
            versions: dict[str, EntryVersion] = {}
            if not steps or OrganizeStep.NORMALIZE in steps:
                versions = await session.versions(
                    [
                        e.entry_version_id
                        for e in base.content.entries
                        if e.state is EntryState.ACTIVE
                    ]
                )
        plan = lifecycle.plan_organize(base, steps, Lineage("organize"), versions, self._new_id)
        return await self._finish(base, plan, (), scope)

    # -- merge and restore (merging.py) ---------------------------------------------------------

    async def merge(
        self,
        memory: ArtifactRef,
        inputs: Sequence[EntryRef],
        result: EntryInput,
        reason: str | None,
    ) -> MergeResult:
        """Fold active entries into one new entry (result.sources/artifacts: the operation's
        evidence; result.target must be None)."""
        return await self.merging.merge(memory, inputs, result, reason)

    async def restore(
        self,
        memory: ArtifactRef,
        entry_id: str,
        entry_version_id: str | None,
        preview_token: str,
        reason: str | None,
    ) -> RestoreResult:
        return await self.merging.restore(memory, entry_id, entry_version_id, preview_token, reason)

    async def undo_merge(
        self, memory: ArtifactRef, entry_id: str, preview_token: str, reason: str | None
    ) -> RestoreResult:
        return await self.merging.undo_merge(memory, entry_id, preview_token, reason)

    async def preview_restore(
        self,
        memory: ArtifactRef,
        operation: RestoreOperation,
        entry_id: str,
        entry_version_id: str | None,
    ) -> RestorePreview:
        return await self.merging.preview_restore(memory, operation, entry_id, entry_version_id)

    # -- idempotent writes (domain/idempotency.py) ----------------------------------------------

    async def _idempotent(
        self,
        key: IdempotencyKey | None,
        write: Callable[[RequestScope | None], Awaitable[WriteResult]],
    ) -> WriteResult:
        """Run `write` once per (caller, request id): a repeat gets the recorded outcome.

        The record is looked up before planning, so a retry is answered even after the head
        moved on. A call that races another with the same id loses at the head CAS or at the
        record's unique key; it then answers with the winner's outcome.
        """
        request_id = idempotency.validate_request_id("request_id", key.request_id) if key else None
        if key is None or request_id is None:
            return await write(None)
        scope = RequestScope(current_caller().key, request_id, key.fingerprint)
        replayed = await self._replay(scope)
        if replayed is not None:
            return replayed
        try:
            return await write(scope)
        except (RevisionConflictError, WriteAlreadyRecorded):
            replayed = await self._replay(scope)
            if replayed is None:
                raise
            return replayed

    async def _replay(self, scope: RequestScope) -> WriteResult | None:
        """The response recorded for this request id (changes read back from the revision)."""
        async with self.backend.read() as session:
            recorded = await session.recorded_write(scope.caller_key, scope.request_id)
            if recorded is None:
                return None
            fingerprint, outcome = recorded
            idempotency.require_same_request(scope.request_id, scope.fingerprint, fingerprint)
            changes: tuple[MemoryChange, ...] = ()
            if outcome.changed and outcome.memory is not None:
                ref = outcome.memory
                found = await session.changes(ref.artifact_id, ref.revision, ref.revision)
                if [c.content_hash for c in found] != [outcome.content_hash]:
                    # Committed in one transaction with that revision: a mismatch is damage.
                    raise DataLossError(
                        f"write_requests[{scope.request_id}] names {ref} with hash "
                        f"{outcome.content_hash}, which is not what is stored",
                        metadata={"row": f"write_requests[{scope.request_id}]"},
                    )
                changes = found[0].changes
        logger.debug("write request %r answered from its record", scope.request_id)
        candidates, suggestions = extraction_record.decode(outcome.extraction)
        return WriteResult(
            outcome.memory,
            outcome.changed,
            outcome.content_hash,
            changes,
            outcome.results,
            candidates,
            suggestions,
        )

    async def _finish(
        self,
        base: Revision | None,
        plan: lifecycle.CommitPlan | None,
        results: tuple[EntryResult, ...],
        scope: RequestScope | None,
        candidates: tuple[EntryInput, ...] = (),
        suggestions: tuple[Suggestion, ...] = (),
    ) -> WriteResult:
        """Commit the plan (recording the outcome with it), or record a write that changes
        nothing in a small transaction of its own. EXTRACT's candidates and suggestions are
        part of the answer, and of the record."""
        extraction = extraction_record.encode(candidates, suggestions) if scope else ""
        if plan is None:
            result = _write_result(base, None, results)
            if scope is not None:
                await self.backend.record_write(
                    scope.record(
                        RecordedOutcome(
                            result.memory, False, result.content_hash, results, extraction
                        )
                    )
                )
        else:
            record = None
            if scope is not None:
                next_ref = ArtifactRef(plan.artifact_id, plan.next_revision)
                outcome = RecordedOutcome(
                    next_ref, True, plan.content.content_hash, results, extraction
                )
                record = scope.record(outcome)
            result = _write_result(base, await self._commit(plan, record), results)
        return dataclasses.replace(result, candidates=candidates, suggestions=suggestions)

    # -- reads ----------------------------------------------------------------------------------

    async def get_memory(self, memory: ArtifactRef, *, metadata_only: bool = False) -> MemoryView:
        """The revision; its manifest and changes are left out when asked (`metadata_only`)
        or when the response would pass `get_memory_max_bytes` (content_omitted: page the
        entries with ListEntries instead)."""
        validation.require_id("memory.artifact_id", memory.artifact_id)
        validation.require_revision("memory.revision", memory.revision, allow_head=True)
        async with self.backend.read() as session:
            head = await session.head(memory.artifact_id)
            revision = await session.revision(
                ArtifactRef(memory.artifact_id, memory.revision or head)
            )
        omitted = metadata_only or estimated_size(revision) > self.get_memory_max_bytes
        return MemoryView(revision, head, content_omitted=omitted)

    # -- recall manifest and listing (listing.py) -------------------------------------------

    async def recall_manifest(
        self, memory: ArtifactRef, page_size: int, page_token: str, filters: EntryFilter
    ) -> RecallManifestPage:
        """Active entries' citations, kind, description, tags: never text (rev 0: head)."""
        async with self.backend.read() as session:
            return await listing.recall_manifest(
                session, self.signer, memory, page_size, page_token, filters
            )

    async def list_entries(
        self,
        memory: ArtifactRef,
        page_size: int,
        page_token: str,
        statuses: Sequence[EntryStatus],
        filters: EntryFilter,
        include_text: bool,
    ) -> EntryPage:
        """Entries of these statuses (empty: ACTIVE) passing the filters, text when asked."""
        async with self.backend.read() as session:
            return await listing.list_entries(
                session, self.signer, memory, page_size, page_token, statuses, filters,
                include_text,
            )  # fmt: skip

    async def changes(
        self, memory: ArtifactRef, since: int | ArtifactRef | None, *, follow: bool = False
    ) -> tuple[int, AsyncGenerator[RevisionChanges, None]]:
        """History up to the target revision: (target, its revisions in ascending order).

        Everything is checked before this returns; the revisions are then read page by page
        as the caller consumes them (DatabaseMemoryBackend.history), never all at once.
        """
        validation.require_id("memory.artifact_id", memory.artifact_id)
        validation.require_revision("memory.revision", memory.revision, allow_head=follow)
        since_revision = _since_revision(memory, since)
        async with self.backend.read() as session:
            head = await session.head(memory.artifact_id)
        target = memory.revision or head
        if target > head:
            raise NotFoundError(
                f"memory {memory.artifact_id} has no revision {target} (head is {head})",
                reason="REVISION_NOT_FOUND",
                metadata={"artifactId": memory.artifact_id, "revision": str(target)},
            )
        if since_revision is not None and since_revision > target:
            raise InvalidArgumentError(
                "since_revision",
                f"{since_revision} is beyond the target revision {target}",
                reason="SINCE_BEYOND_TARGET",
            )
        first = target if since_revision is None else since_revision + 1
        return target, self.backend.history(memory.artifact_id, first, target)

    async def follow_changes(
        self, memory: ArtifactRef, since: int | ArtifactRef | None
    ) -> AsyncGenerator[RevisionChanges | Progress, None]:
        """History, then every new revision in order, with progress messages when idle."""
        self.observer.follow_opened()
        try:
            # Watching first: a commit between the history read and the first look at the
            # watch is then still seen.
            with self.notifier.watching(memory.artifact_id) as watch:
                last, history = await self.changes(memory, since, follow=True)
                async with contextlib.aclosing(history):
                    async for item in history:
                        yield item
                later = follow.after(
                    self.notifier, watch, self.backend.history, last, self.progress_interval
                )
                async with contextlib.aclosing(later):
                    async for event in later:
                        yield event
        finally:
            self.observer.follow_closed()

    async def _read_heads(self, artifact_ids: Sequence[str]) -> dict[str, int]:
        async with self.backend.read() as session:
            return await session.heads(artifact_ids)

    async def _read_changes(self, artifact_id: str, first: int, last: int) -> list[RevisionChanges]:
        async with self.backend.read() as session:
            return await session.changes(artifact_id, first, last)

    async def search(
        self,
        query: str,
        memories: Sequence[ArtifactRef],
        limit: int,
        mode: SearchMode,
        *,
        filters: EntryFilter = NO_FILTER,
        min_score: float | None = None,
    ) -> SearchResult:
        """`filters` (kinds, tags) apply inside each channel's candidate query, before the
        limit; `min_score` drops fused hits scoring below it."""
        filters = checked_filter(filters)
        if min_score is not None and not (math.isfinite(min_score) and min_score >= 0):
            raise InvalidArgumentError("min_score", "must be a finite number >= 0")
        query = nfc(query).strip()
        if not query:
            raise InvalidArgumentError("query", "is required", reason="EMPTY_QUERY")
        if len(query) > validation.MAX_QUERY_CHARS:
            raise InvalidArgumentError("query", f"exceeds {validation.MAX_QUERY_CHARS} characters")
        limit = limit or DEFAULT_SEARCH_LIMIT
        if not 1 <= limit <= MAX_SEARCH_LIMIT:
            raise InvalidArgumentError("limit", f"must be between 1 and {MAX_SEARCH_LIMIT}")
        if not memories:
            raise InvalidArgumentError("memories", "select at least one memory")
        if len(memories) > MAX_SEARCH_MEMORIES:
            raise InvalidArgumentError("memories", f"at most {MAX_SEARCH_MEMORIES} memories")
        for i, ref in enumerate(memories):
            _require_memory_ref(f"memories[{i}]", ref)
        refs = list(dict.fromkeys(memories))
        started = time.perf_counter()
        query_vector, problem = await self._query_vector(query, mode)
        embedded = time.perf_counter()

        async def search_heads(session: ReadSession) -> tuple[list[Hit], Plan]:
            heads = await session.heads([r.artifact_id for r in refs])
            for i, ref in enumerate(memories):
                require_head(f"memories[{i}]", ref, heads.get(ref.artifact_id))
            return await self.searcher.run(
                session, refs, query, limit, mode, query_vector, problem, filters, min_score
            )

        # Warm indexes read nothing but the heads: one statement, no transaction to begin.
        hits, plan = await self.backend.optimistic_read(search_heads)
        return SearchResult(
            hits,
            plan.mode,
            plan.fallback_reason if mode is SearchMode.AUTO else "",
            embed_ms=(embedded - started) * 1000,
            search_ms=(time.perf_counter() - embedded) * 1000,
        )

    async def _query_vector(
        self, query: str, mode: SearchMode
    ) -> tuple[npt.NDArray[np.float32] | None, str]:
        """The query's vector when the mode may use one, else why not (before any read)."""
        if mode is SearchMode.FTS:
            return None, ""
        problem = self._vector_problem()
        if problem:
            return None, problem
        [vector] = await embed_checked(self, [query], purpose="query")
        if vector is None:
            return None, "the embedding model is unavailable"
        return vector, ""

    async def expand(self, citations: Sequence[Citation]) -> list[ExpandedEntry]:
        if not citations:
            raise InvalidArgumentError("citations", "give at least one citation")
        if len(citations) > MAX_CITATIONS:
            raise InvalidArgumentError("citations", f"at most {MAX_CITATIONS} citations")
        for i, c in enumerate(citations):
            _require_memory_ref(f"citations[{i}].memory_ref", c.memory_ref)
            validation.require_id(f"citations[{i}].entry_id", c.entry_id)
            validation.require_id(f"citations[{i}].entry_version_id", c.entry_version_id)
        out = []
        async with self.backend.read() as session:
            for i, c in enumerate(citations):
                out.append(await _expand_one(session, f"citations[{i}]", c))
        return out

    async def prepare_context(
        self, memories: Sequence[ArtifactRef], query: str, budget_bytes: int
    ) -> PreparedContext:
        """The block of active entries for an agent's next task (context.py)."""
        from .context import prepare_context  # context.py builds on this module

        return await prepare_context(self, memories, query, budget_bytes)


async def _expand_one(session: ReadSession, field_name: str, citation: Citation) -> ExpandedEntry:
    revision = await session.revision(citation.memory_ref)
    entry = revision.content.entry(citation.entry_id)
    if entry is None or entry.entry_version_id != citation.entry_version_id:
        found = "absent" if entry is None else f"at version {entry.entry_version_id}"
        raise NotFoundError(
            f"{field_name}: entry {citation.entry_id} is {found} in {citation.memory_ref}, "
            f"so {citation.entry_version_id} is not citable there",
            reason="CITATION_MISMATCH",
            metadata={"field": field_name, "entryId": citation.entry_id},
        )
    version = (await session.versions([entry.entry_version_id]))[entry.entry_version_id]
    if (
        version.entry_content_hash != entry.entry_content_hash
        or version.entry_id != entry.entry_id
        or version.memory_artifact_id != citation.memory_ref.artifact_id
    ):
        raise DataLossError(
            f"memory_entry_versions[{version.entry_version_id}] does not match the manifest of "
            f"{citation.memory_ref}",
            metadata={"row": f"memory_entry_versions[{version.entry_version_id}]"},
        )
    return ExpandedEntry(citation, version, entry.state)


async def embed_checked(
    service: MemoryService, texts: Sequence[str], *, purpose: str
) -> list[npt.NDArray[np.float32] | None]:
    """Vectors for `texts`, None where the model failed or a vector fails the checks.

    `purpose` (commit, query, rebuild) labels the call's latency for the observer.
    """
    assert service.embedding is not None and service.backend.profile is not None
    started = time.perf_counter()
    outcome = "error"
    try:
        result = await service.embedding.embed(list(texts))
        outcome = "ok"
    except EmbeddingUnavailableError as error:
        logger.warning("embedding model unavailable, continuing without vectors: %s", error)
        return [None] * len(texts)
    finally:
        service.observer.embedded(purpose, outcome, time.perf_counter() - started)
    if len(result.vectors) != len(texts):
        logger.warning(
            "embedding model returned %d vectors for %d texts", len(result.vectors), len(texts)
        )
        return [None] * len(texts)
    out: list[npt.NDArray[np.float32] | None] = []
    for vector in result.vectors:
        try:
            out.append(fusion.check_embedding(vector, service.backend.profile.dimension))
        except ValueError as error:
            logger.warning("refusing a vector from the embedding model: %s", error)
            out.append(None)
    return out


def _resolve_remember_mode(
    mode: RememberMode, entries: Sequence[EntryInput], lineage: Lineage
) -> RememberMode:
    """The mode that runs: AUTO is APPEND with entries, EXTRACT with evidence alone."""
    has_evidence = bool(lineage.sources or lineage.artifacts)
    if mode is RememberMode.AUTO:
        if entries:
            return RememberMode.APPEND
        mode = RememberMode.EXTRACT if has_evidence else mode
    if mode is RememberMode.APPEND and not entries:
        raise InvalidArgumentError("entries", "APPEND needs at least one entry")
    if mode is RememberMode.EXTRACT:
        if entries:
            raise InvalidArgumentError("entries", "EXTRACT takes evidence, not entries")
        if not has_evidence:
            raise InvalidArgumentError("sources", "EXTRACT needs at least one source or artifact")
        return mode
    if not entries:
        raise InvalidArgumentError(
            "entries",
            "nothing to remember: give entries, or evidence to extract from",
            reason="NOTHING_TO_REMEMBER",
        )
    return RememberMode.APPEND


async def _operation_source(session: ReadSession, field_name: str, ref: SourceRef) -> Source:
    """A source the operation names, read and hash-verified (EXTRACT reads what it cites)."""
    source = await session.source(ref.source_id, current_caller().source_scope)
    if source.content_hash != ref.content_hash:
        raise InvalidArgumentError(
            field_name,
            f"source {ref.source_id} has hash {source.content_hash}, not {ref.content_hash}",
            reason="SOURCE_HASH_MISMATCH",
        )
    return source


async def _active_window(session: ReadSession, base: Revision | None) -> dict[str, EntryVersion]:
    """The current versions of the head's active entries, at most CANDIDATE_WINDOW of them
    (manifest order), by version id: what candidates may revise and are compared with."""
    if base is None:
        return {}
    active = [e.entry_version_id for e in base.content.entries if e.state is EntryState.ACTIVE]
    return await session.versions(active[:CANDIDATE_WINDOW])


def _active_entry(version: EntryVersion) -> ActiveEntry:
    content = version.content
    ref = EntryRef(version.entry_id, version.entry_version_id)
    return ActiveEntry(ref, content.kind, content.text, content.source_refs)


def _admitted(
    candidates: Sequence[Candidate], request: ExtractionInput, window: dict[str, EntryVersion]
) -> tuple[tuple[EntryInput, ...], list[lifecycle.EntryInputSpec]]:
    """The candidates that pass the APPEND checks, as entries and specs (same order).

    Candidates are untrusted: one that cites nothing, cites evidence outside the operation,
    revises an entry that is not a current active version, or fails an entry check (kind,
    text, the secret guard) is refused — left out and logged without its text — and the
    others still go ahead. The planner then checks the rest again, like any APPEND.
    """
    allowed = request.refs()
    entries: list[EntryInput] = []
    specs: list[lifecycle.EntryInputSpec] = []
    for candidate in candidates:
        problem = ""
        if not candidate.sources or not set(candidate.sources) <= allowed:
            problem = "cites evidence outside the operation (EVIDENCE_NOT_ALLOWED)"
        elif candidate.target is not None and (
            (current := window.get(candidate.target.entry_version_id)) is None
            or current.entry_id != candidate.target.entry_id
        ):
            problem = "revises an entry that is not a current active version"
        # A candidate revising an entry keeps that version's tags (a revision replaces tags,
        # and adapters never propose any); its description is derived like any other.
        revised = window.get(candidate.target.entry_version_id) if candidate.target else None
        entry = EntryInput(
            candidate.target, candidate.kind, candidate.text, candidate.sources, (),
            candidate.reason, tags=revised.content.tags if revised else (),
        )  # fmt: skip
        if not problem:
            try:
                spec = _entry_spec(f"candidates[{len(entries)}]", entry)
                specs.append(spec)
                entries.append(dataclasses.replace(entry, description=spec.content.description))
                continue
            except InvalidArgumentError as error:
                problem = f"{error.reason}: {error.message}"
        logger.warning("refused a %s candidate: %s", candidate.adapter, problem)
    return tuple(entries), specs


def _entry_spec(field_name: str, entry: EntryInput) -> lifecycle.EntryInputSpec:
    if entry.target is not None:
        validation.require_id(f"{field_name}.entry.entry_id", entry.target.entry_id)
        validation.require_id(f"{field_name}.entry.entry_version_id", entry.target.entry_version_id)
    content = validation.entry_content(
        field_name,
        kind=entry.kind,
        text=entry.text,
        sources=entry.sources,
        artifacts=entry.artifacts,
        description=entry.description,
        tags=entry.tags,
    )
    reason = validation.normalize_reason(f"{field_name}.reason", entry.reason)
    _refuse_secret(f"{field_name}.kind", content.kind)
    _refuse_secret(f"{field_name}.text", content.text)
    _refuse_secret(f"{field_name}.description", content.description)
    for j, tag in enumerate(content.tags):
        _refuse_secret(f"{field_name}.tags[{j}]", tag)
    _refuse_secret(f"{field_name}.reason", reason)
    return lifecycle.EntryInputSpec(entry.target, content, reason)


def _refuse_secret(field_name: str, text: str | None) -> None:
    """Memories never hold secrets (RFC): refuse, naming the field and the rule, never the
    value (not in the message, the metadata or a log line)."""
    found = text_secret(field_name, text)
    if found is not None:
        raise _secret_refused(found)


def _secret_refused(found: Located) -> InvalidArgumentError:
    finding = found.finding
    how = f" {found.how}" if found.how else ""
    return InvalidArgumentError(
        found.field,
        f"holds {finding.description}{how} (rule {finding.rule}); memories never hold "
        "secrets: store where the secret is kept (a vault path, an environment variable name), "
        "not its value",
        reason="SECRET_DETECTED",
        metadata={"rule": finding.rule},
    )


# Larger contents, and Python sources (whose string literals are parsed too), are scanned in a
# worker thread, so the event loop keeps turning between GIL switches (bench/secrets.py
# measures the guard per KB).
_SCAN_INLINE_BYTES = 64 * 1024


async def _refuse_secrets_in_source(
    kind: str, uri: str, media_type: str, content: bytes, metadata: tuple[tuple[str, str], ...]
) -> None:
    """Every stored field of a source, its content also as its readers decode it
    (security/guard.py)."""
    if len(content) <= _SCAN_INLINE_BYTES and not is_python(uri, media_type):
        found = source_secret(kind, uri, media_type, content, metadata)
    else:
        found = await asyncio.to_thread(source_secret, kind, uri, media_type, content, metadata)
    if found is not None:
        raise _secret_refused(found)


async def _revise_targets(
    session: ReadSession, base: Revision | None, specs: Sequence[lifecycle.EntryInputSpec]
) -> dict[str, EntryVersion]:
    """Load the current versions that revise inputs name (the planner rejects the rest)."""
    if base is None:
        return {}
    wanted = []
    for spec in specs:
        if spec.target is None:
            continue
        entry = base.content.entry(spec.target.entry_id)
        if entry is not None and entry.entry_version_id == spec.target.entry_version_id:
            wanted.append(entry.entry_version_id)
    return await session.versions(wanted)


def _state_change_inputs(
    memory: ArtifactRef, entries: Sequence[EntryRef], reason: str | None
) -> tuple[list[EntryRef], str | None]:
    _require_memory_ref("memory", memory)
    if not entries:
        raise InvalidArgumentError("entries", "name at least one entry")
    if len(entries) > validation.MAX_ENTRIES_PER_REQUEST:
        raise InvalidArgumentError(
            "entries", f"at most {validation.MAX_ENTRIES_PER_REQUEST} entries per request"
        )
    for i, ref in enumerate(entries):
        validation.require_id(f"entries[{i}].entry_id", ref.entry_id)
        validation.require_id(f"entries[{i}].entry_version_id", ref.entry_version_id)
    reason = validation.normalize_reason("reason", reason)
    _refuse_secret("reason", reason)
    return list(entries), reason


def _require_memory_ref(field_name: str, ref: ArtifactRef) -> None:
    validation.require_id(f"{field_name}.artifact_id", ref.artifact_id)
    validation.require_revision(f"{field_name}.revision", ref.revision)


def require_head(field_name: str, ref: ArtifactRef, head: int | None) -> None:
    if head is None:
        raise NotFoundError(
            f"{field_name}: memory {ref.artifact_id} does not exist",
            reason="MEMORY_NOT_FOUND",
            metadata={"artifactId": ref.artifact_id, "field": field_name},
        )
    if ref.revision != head:
        raise FailedPreconditionError(
            f"{field_name}: {ref} is not the head (revision {head}); search and context read "
            "only current heads — re-read the head, or use Expand for an exact old revision",
            reason="MEMORY_NOT_AT_HEAD",
            subject=field_name,
            metadata={
                "field": field_name,
                "artifactId": ref.artifact_id,
                "headRevision": str(head),
            },
        )


def _since_revision(memory: ArtifactRef, since: int | ArtifactRef | None) -> int | None:
    if since is None:
        return None
    if isinstance(since, ArtifactRef):
        if since.artifact_id != memory.artifact_id:
            raise InvalidArgumentError(
                "since_ref.artifact_id",
                f"names memory {since.artifact_id}, not {memory.artifact_id}",
                reason="CROSS_MEMORY_SINCE",
            )
        return validation.require_since_revision("since_ref.revision", since.revision)
    return validation.require_since_revision("since_revision", since)
