"""The Searcher: one search over checked heads, inside one read session.

The mode is resolved once (modes.py), each memory's vectors are brought to its head once (for
the completeness check and the NumPy channel alike), the channels run as strategies
(channels.py), the domain admits and fuses (domain/fusion.py), and only verified hits are
answered (verify.py). Full-text answers are kept in a bounded cache keyed by the heads.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

import numpy as np
import numpy.typing as npt

from ..api import NO_FILTER, EntryFilter, Hit, SearchMode, TagMatch
from ..backends.database import DatabaseMemoryBackend
from ..backends.port import HeadCondition
from ..backends.read_session import ReadSession
from ..domain import analyzer, fusion
from ..domain.descriptions import tag_needle
from ..domain.errors import CapabilityNotSupportedError, InvalidArgumentError
from ..domain.models import ArtifactRef
from .answers import AnswerCache
from .channels import (
    Channel,
    FullTextChannel,
    IndexedFullTextChannel,
    NativeVectorChannel,
    NumpyVectorChannel,
    RankedAhead,
)
from .indexes import SearchIndexes
from .modes import Plan, resolve
from .text_index import ChangedEntries, MemoryText
from .vector_index import MemoryVectors
from .verify import verified_hits


class Searcher:
    def __init__(
        self,
        backend: DatabaseMemoryBackend,
        indexes: SearchIndexes,
        answers: AnswerCache | None = None,
    ) -> None:
        self.backend = backend
        self.indexes = indexes
        self.answers = answers if answers is not None else AnswerCache()

    async def run_embedding(
        self,
        session: ReadSession,
        heads: Sequence[ArtifactRef],
        query: str,
        limit: int,
        mode: SearchMode,
        query_vector: Callable[[], Awaitable[tuple[npt.NDArray[np.float32] | None, str]]],
        filters: EntryFilter = NO_FILTER,
        min_score: float | None = None,
    ) -> tuple[list[Hit], Plan]:
        """run(), while the query is still being embedded (`query_vector()` answers the vector
        and the reason there is none, as QueryVectors.for_query): the modes that run full text
        whatever the vector (AUTO, HYBRID) rank it meanwhile, on the other core."""
        ahead = None
        if mode in (SearchMode.AUTO, SearchMode.HYBRID):
            terms = analyzer.query_terms(query)
            if terms and not self.backend.capabilities().fts_problem:
                channel = await self._full_text(session, heads, terms, head_condition(filters))
                pool = fusion.candidate_pool_size(limit)
                ahead = RankedAhead(await channel.rank(session.tx, heads, pool))
        vector, problem = await query_vector()
        return await self.run(
            session, heads, query, limit, mode, vector, problem, filters, min_score, ahead
        )

    async def run(
        self,
        session: ReadSession,
        heads: Sequence[ArtifactRef],
        query: str,
        limit: int,
        mode: SearchMode,
        query_vector: npt.NDArray[np.float32] | None,
        vector_problem: str,
        filters: EntryFilter = NO_FILTER,
        min_score: float | None = None,
        full_text: RankedAhead | None = None,
    ) -> tuple[list[Hit], Plan]:
        """Search `heads` (checked to be the heads in this session) for `query`; `query_vector`
        is the query's vector when the mode may use one, else `vector_problem` says why not.
        `filters` (checked) go into each channel's candidate query; `min_score` drops fused
        hits below it. `full_text`: the full-text channel, ranked already for this request."""
        capabilities = self.backend.capabilities()
        memories: list[MemoryVectors] = []
        if query_vector is not None:
            memories = [await memory_vectors(self.indexes, session, h) for h in heads]
            vector_problem = _incompleteness(memories)
        plan = resolve(
            mode,
            has_vector=query_vector is not None,
            vector_problem=vector_problem,
            fts_problem=capabilities.fts_problem,
        )
        terms = analyzer.query_terms(query) if plan.fts else ()
        if plan.fts and not terms and not plan.vector:
            raise InvalidArgumentError("query", "has no searchable terms", reason="EMPTY_QUERY")
        key = (
            AnswerCache.key(heads, query, limit, (filters, min_score))
            if plan.mode is SearchMode.FTS
            else None
        )
        if key is not None and (cached := self.answers.get(key)) is not None:
            return cached, plan
        self.backend.version_warmer.warm(heads)  # once per memory: hits' versions from memory
        condition = head_condition(filters)
        channels: list[Channel] = []
        if plan.fts and terms:
            channels.append(full_text or await self._full_text(session, heads, terms, condition))
        if plan.vector:
            assert query_vector is not None
            vector_channel = (
                NativeVectorChannel if capabilities.native_vector_search else NumpyVectorChannel
            )
            channels.append(vector_channel(query_vector, memories, condition))
        hits = await self._hits(session, heads, channels, limit, filters, min_score)
        if key is not None:
            self.answers.put(key, hits)
        return hits, plan

    async def _full_text(
        self,
        session: ReadSession,
        heads: Sequence[ArtifactRef],
        terms: Sequence[str],
        condition: HeadCondition | None,
    ) -> Channel:
        """This process's inverted lists when every memory fits in them, else the engine's
        full-text query (its window)."""
        texts = [await memory_texts(self.indexes, session, h) for h in heads]
        if all(t is not None for t in texts):
            return IndexedFullTextChannel(terms, [t for t in texts if t is not None], condition)
        return FullTextChannel(terms, condition)

    async def _hits(
        self,
        session: ReadSession,
        heads: Sequence[ArtifactRef],
        channels: Sequence[Channel],
        limit: int,
        filters: EntryFilter,
        min_score: float | None,
    ) -> list[Hit]:
        pool = fusion.candidate_pool_size(limit)
        ranked: dict[str, list[fusion.HitKey]] = {}
        candidates: dict[fusion.HitKey, str] = {}  # -> the projection's content hash
        for channel in channels:
            found = await channel.rank(session.tx, heads, pool)
            keys = [item.key for item in found]
            hashes = dict(zip(keys, [item.entry_content_hash for item in found], strict=True))
            candidates = hashes | candidates  # the first channel's hash stands for a key
            ranked[channel.name] = keys
        fused = fusion.rrf_fuse(ranked)
        if min_score is not None:
            fused = [hit for hit in fused if hit.score >= min_score]
        return await verified_hits(session, heads, fused, candidates, limit, filters)


async def memory_vectors(
    indexes: SearchIndexes, session: ReadSession, head: ArtifactRef
) -> MemoryVectors:
    """One memory's checked vectors at `head` (loaded once, then kept current from the
    changes of later revisions)."""
    if indexes.vectors is None:
        raise CapabilityNotSupportedError("vector", "this database has no embedding profile")
    return await indexes.vectors.at_head(session.tx, head, _changed_entries(session))


async def memory_texts(
    indexes: SearchIndexes, session: ReadSession, head: ArtifactRef
) -> MemoryText | None:
    """One memory's inverted lists at `head` (None: it does not fit in the index)."""
    return await indexes.texts.at_head(session.tx, head, _changed_entries(session))


def _changed_entries(session: ReadSession) -> ChangedEntries:
    async def changed(artifact_id: str, first: int, last: int) -> set[str]:
        revisions = await session.changes(artifact_id, first, last)
        return {c.entry_id for r in revisions for c in r.changes}

    return changed


def head_condition(filters: EntryFilter) -> HeadCondition | None:
    """The SQL-side form of a search's filters (None: no filter, no extra condition)."""
    if filters.empty:
        return None
    return HeadCondition(
        kinds=filters.kinds,
        tag_needles=tuple(tag_needle(t) for t in filters.tags),
        all_tags=filters.tag_match is TagMatch.ALL,
    )


def _incompleteness(memories: Sequence[MemoryVectors]) -> str:
    for memory in memories:
        if not memory.complete:
            return (
                f"the vector projection of memory {memory.artifact_id} is incomplete: "
                "run the offline rebuild-vectors command"
            )
    return ""
