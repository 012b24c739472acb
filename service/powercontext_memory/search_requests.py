"""Search and Expand: hits at the current heads, and the exact entries citations name.

Search runs on the heads only (an optimistic read: at warm indexes the heads read is its only
statement); the ranking is search/. Expand reads any revision a citation names and
verifies the version it reads against that revision's manifest.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import partial

from .api import NO_FILTER, EntryFilter, ExpandedEntry, Hit, SearchMode, SearchResult
from .backends.database import DatabaseMemoryBackend
from .backends.read_session import ReadSession
from .domain.errors import DataLossError, NotFoundError
from .domain.models import ArtifactRef, Citation
from .query_vectors import QueryVectors, TimedVector
from .request_checks import check_citations, checked_search, heads_named
from .search.modes import Plan
from .search.searcher import Searcher


class SearchRequests:
    def __init__(
        self, backend: DatabaseMemoryBackend, searcher: Searcher, query_vectors: QueryVectors
    ) -> None:
        self.backend = backend
        self.searcher = searcher
        self.query_vectors = query_vectors

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
        query, limit, filters = checked_search(query, memories, limit, filters, min_score)
        ids = list(dict.fromkeys(r.artifact_id for r in memories))
        started = time.perf_counter()
        # The query is embedded (a worker thread) while the heads are read and full text ranks.
        embedding = TimedVector(partial(self.query_vectors.for_query, query, mode))

        problem = self.query_vectors.without_vector(mode)

        async def search_heads(session: ReadSession) -> tuple[list[Hit], Plan, list[ArtifactRef]]:
            refs = heads_named(memories, await session.heads(ids))
            if problem is not None:  # no model to wait for: full text's cached answers apply
                hits, plan = await self.searcher.run(
                    session, refs, query, limit, mode, None, problem, filters, min_score
                )
            else:
                hits, plan = await self.searcher.run_embedding(
                    session, refs, query, limit, mode, embedding.answer, filters, min_score
                )
            return hits, plan, refs

        try:
            # Warm indexes read nothing but the heads: one statement, no transaction to begin.
            hits, plan, searched = await self.backend.optimistic_read(search_heads)
        finally:
            embedding.abandon()
        total_ms = (time.perf_counter() - started) * 1000
        return SearchResult(
            hits,
            plan.mode,
            plan.fallback_reason if mode is SearchMode.AUTO else "",
            embed_ms=embedding.ms,
            search_ms=max(0.0, total_ms - embedding.ms),
            memories=searched,
        )

    async def expand(self, citations: Sequence[Citation]) -> list[ExpandedEntry]:
        check_citations(citations)
        out = []
        async with self.backend.read() as session:
            for i, c in enumerate(citations):
                out.append(await _expand_one(session, f"citations[{i}]", c))
        return out


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
