"""MemoryService: the one front of the service, for any backend.

The transport, the CLI, the admin commands and the tests call this class; it owns the
collaborators and routes each operation to the module that does it. Input checks are
request_checks.py; writes are planned by entry_writes.py and merge_operations.py and committed by
write_engine.py (request ids are answered once per caller, then replayed); embedding is
embedder.py and query_vectors.py; reads are search_requests.py, listing.py and context.py.
Execution and verified reads belong to the backend (backends/database.py).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncGenerator, Sequence

from . import follow, listing
from .api import (
    Capabilities,
    EntryFilter,
    EntryInput,
    EntryPage,
    EntryStatus,
    MemoryView,
    RecallManifestPage,
    RememberMode,
    RevisionChanges,
    WriteResult,
)
from .backends.codec import source_record_hash
from .backends.database import DatabaseMemoryBackend
from .candidates import CandidatePipeline
from .context import ContextPreparation
from .domain import lifecycle, validation
from .domain.errors import InvalidArgumentError, NotFoundError
from .domain.idempotency import IdempotencyKey
from .domain.lifecycle import EntryRef, OrganizeStep
from .domain.models import ArtifactRef, Source, SourceRef
from .embedder import Embedder, Vector
from .embedding.port import EmbeddingModel
from .entry_writes import EntryWrites
from .extracting import CandidateExtraction
from .follow import Progress
from .listing import GET_MEMORY_MAX_BYTES, estimated_size
from .memory_catalog import MemoryCatalog
from .merge_operations import MergeOperations
from .notifier import HeadWatcher
from .observing.port import ServiceObserver
from .query_vectors import QueryVectors
from .request_checks import checked_since_revision, checked_source_fields
from .search.indexes import SearchIndexes
from .search.searcher import Searcher
from .search_requests import SearchRequests
from .security.caller import current_caller
from .security.signing import TokenSigner
from .source_chunks import SourceChunk, checked_limit, content_window
from .streams import StreamLimits
from .write_engine import WriteEngine

DEFAULT_PROGRESS_INTERVAL = 15.0


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
        # GetMemory leaves the manifest out past this (a default gRPC client takes 4 MiB).
        self.get_memory_max_bytes = GET_MEMORY_MAX_BYTES
        # This process's full-text and vector indexes, kept current by the store's commits.
        self.indexes = SearchIndexes(native_vectors=backend.adapter.native_vector_search)
        backend.listen(self.indexes)
        self.searcher = Searcher(backend, self.indexes)
        self.embedder = Embedder(backend, embedding)
        query_vectors = QueryVectors(self.embedder)
        # Remember EXTRACT (candidates/): deterministic adapters, plus any model extractor.
        self.pipeline = pipeline or CandidatePipeline()
        # The one head watcher of this service's follow streams (commits wake it).
        self.notifier = HeadWatcher(self._read_heads, self._read_changes)
        self.streams = StreamLimits()  # caps on open Changes streams (the server sets them)
        self.progress_interval = progress_interval
        self.writes = WriteEngine(backend, self.notifier, self.embedder.with_vectors, id_factory)
        self.searches = SearchRequests(backend, self.searcher, query_vectors)
        extraction = CandidateExtraction(backend, self.pipeline, self.searches, self.get_source)
        self.entry_writes = EntryWrites(backend, id_factory, extraction)
        # Merge, Restore, UndoMerge, PreviewRestore (merge_operations.py sets preview expiry).
        self.merging = MergeOperations(backend, self.writes, self.signer)
        self.context = ContextPreparation(backend, self.searcher, query_vectors)
        # Calls the front hands on as they are, each declared once where it is done.
        self.search = self.searches.search
        self.expand = self.searches.expand
        self.prepare_context = self.context.prepare
        self.merge = self.merging.merge
        self.restore = self.merging.restore
        self.undo_merge = self.merging.undo_merge
        self.preview_restore = self.merging.preview_restore
        # ListMemories and SetMemoryLabel (memory_catalog.py).
        self.catalog = MemoryCatalog(backend, self.signer)
        self.list_memories = self.catalog.list_memories
        self.set_memory_label = self.catalog.set_memory_label

    @property
    def embedding(self) -> EmbeddingModel | None:
        return self.embedder.model

    @property
    def observer(self) -> ServiceObserver:
        """The observer travels with the backend, so every layer reports to the same one."""
        return self.backend.observer

    def observe(self, observer: ServiceObserver) -> None:
        """Report commits, conflicts, follow feeds, embedding calls and database errors."""
        self.backend.observer = observer

    def capabilities(self) -> Capabilities:
        backend = self.backend.capabilities()
        problem = self.embedder.problem()
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
        await self.embedder.close()
        await self.backend.close()

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
        kind, uri, media_type, meta = await checked_source_fields(
            kind, uri, media_type, content, metadata, memory_id
        )
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

    async def get_source_chunk(
        self, source_id: str, content_offset: int = 0, content_limit: int = 0
    ) -> SourceChunk:
        """GetSource: a window of the source's verified content (source_chunks.py), under the
        same access rules as get_source."""
        validation.require_id("source_id", source_id)
        limit = checked_limit(content_offset, content_limit)
        return content_window(await self.get_source(source_id), content_offset, limit)

    # -- writes (entry_writes.py, committed by write_engine.py) ---------------------------------

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
        return await self.writes.run(
            "remember", idempotency_key, self.entry_writes.remember,
            memory, sources, artifacts, entries, mode, tuple(extractors),
        )  # fmt: skip

    async def forget(
        self,
        memory: ArtifactRef,
        entries: Sequence[EntryRef],
        reason: str | None,
        *,
        idempotency_key: IdempotencyKey | None = None,
    ) -> WriteResult:
        return await self.writes.run(
            "forget", idempotency_key, self.entry_writes.forget, memory, entries, reason
        )

    async def reactivate(
        self,
        memory: ArtifactRef,
        entries: Sequence[EntryRef],
        reason: str | None,
        *,
        idempotency_key: IdempotencyKey | None = None,
    ) -> WriteResult:
        return await self.writes.run(
            "reactivate", idempotency_key, self.entry_writes.reactivate, memory, entries, reason
        )

    async def organize(
        self,
        memory: ArtifactRef,
        steps: Sequence[OrganizeStep],
        *,
        idempotency_key: IdempotencyKey | None = None,
    ) -> WriteResult:
        return await self.writes.run(
            "organize", idempotency_key, self.entry_writes.organize, memory, steps
        )

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
        validation.require_revision("memory.revision", memory.revision, allow_head=True)
        since_revision = checked_since_revision(memory, since)
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


async def embed_checked(
    service: MemoryService, texts: Sequence[str], *, purpose: str
) -> list[Vector | None]:
    """Vectors for `texts` with the service's model, None where there is none (embedder.py)."""
    return await service.embedder.embed(texts, purpose=purpose)
