"""The channel strategies: each ranks its own admitted candidates over the head projection.

A channel answers keys best first, each with the projection's content hash (the verified-hit
filter checks that hash against the manifest). Which vector channel a backend gets is decided
once, from its capabilities (Searcher): the engine's own index, or this process's NumPy copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, cast

import numpy as np
import numpy.typing as npt

from ..backends.port import HeadCondition, HotReads, NativeVectorSearch
from ..domain import fts_rank, fusion
from ..domain.models import ArtifactRef
from . import text_index
from .ranked import Ranked
from .text_index import MemoryText
from .vector_index import MemoryVectors, VectorHit, merge_nearest


class Channel(Protocol):
    @property
    def name(self) -> str:
        """The channel's name in `matched_by` ("fts", "vector")."""
        ...

    async def rank(self, tx: HotReads, heads: Sequence[ArtifactRef], pool: int) -> list[Ranked]:
        """Up to `pool` admitted candidates of these heads, best first."""
        ...


@dataclass(frozen=True, slots=True)
class RankedAhead:
    """A channel ranked before the search knew its plan: full text, ranked while the query was
    being embedded (Searcher.run_embedding)."""

    found: list[Ranked]
    name: str = "fts"

    async def rank(self, tx: HotReads, heads: Sequence[ArtifactRef], pool: int) -> list[Ranked]:
        return self.found


@dataclass(frozen=True, slots=True)
class FullTextChannel:
    """The engine picks a window of candidates; admission and the BM25 order are the domain's
    (domain/fts_rank.py), so every engine answers the same order for the same window."""

    terms: Sequence[str]  # analyzer query terms, distinct
    condition: HeadCondition | None = None  # a search's kind/tag filters
    name: str = "fts"

    async def rank(self, tx: HotReads, heads: Sequence[ArtifactRef], pool: int) -> list[Ranked]:
        if not self.terms:
            return []
        found = await tx.fts_candidates(
            [h.artifact_id for h in heads],
            self.terms,
            fusion.fts_required_matches(len(self.terms)),
            pool * fts_rank.WINDOW_FACTOR,
            self.condition,
        )
        hashes: dict[fusion.HitKey, str] = {}
        admitted: list[tuple[fusion.HitKey, str]] = []
        for row in found:
            key = fusion.HitKey(row.memory_artifact_id, row.entry_id, row.entry_version_id)
            hashes[key] = row.entry_content_hash
            admitted.append((key, row.searchable_text))
        return [Ranked(k, hashes[k]) for k in fts_rank.admit_and_order(self.terms, admitted, pool)]


@dataclass(frozen=True, slots=True)
class IndexedFullTextChannel:
    """Every admitted match of this process's inverted lists (text_index.py), ranked by the
    domain's BM25 over all of them: no engine window, the same answer on every backend."""

    terms: Sequence[str]
    memories: Sequence[MemoryText]  # already brought to the heads
    condition: HeadCondition | None = None
    name: str = "fts"

    async def rank(self, tx: HotReads, heads: Sequence[ArtifactRef], pool: int) -> list[Ranked]:
        return text_index.rank(self.memories, self.terms, pool, self.condition)


@dataclass(frozen=True, slots=True)
class NumpyVectorChannel:
    """Nearest rows from this process's copy of each memory's vectors (search/vector_index.py),
    already brought to the heads when the searcher checked their completeness."""

    query: npt.NDArray[np.float32]
    memories: Sequence[MemoryVectors]
    condition: HeadCondition | None = None
    name: str = "vector"

    async def rank(self, tx: HotReads, heads: Sequence[ArtifactRef], pool: int) -> list[Ranked]:
        eligible: dict[str, set[str]] | None = None
        if self.condition is not None:
            # Filters mask the ineligible rows before the top-k (the heads' own columns say
            # which are eligible; read only when a search is filtered).
            eligible = {h.artifact_id: set() for h in heads}
            pairs = await tx.eligible_entry_ids([h.artifact_id for h in heads], self.condition)
            for artifact_id, entry_id in pairs:
                eligible[artifact_id].add(entry_id)
        groups = [
            m.nearest(self.query, pool, None if eligible is None else eligible[m.artifact_id])
            for m in self.memories
        ]
        return [Ranked(h.key, h.entry_content_hash) for h in merge_nearest(groups, pool)]


@dataclass(frozen=True, slots=True)
class NativeVectorChannel:
    """The engine's own index finds the nearest rows; admission and tie-break stay here."""

    query: npt.NDArray[np.float32]
    memories: Sequence[MemoryVectors]  # only their completeness was needed
    condition: HeadCondition | None = None
    name: str = "vector"

    async def rank(self, tx: HotReads, heads: Sequence[ArtifactRef], pool: int) -> list[Ranked]:
        # Only backends whose capabilities say native_vector_search get this channel, and
        # their read transactions implement NativeVectorSearch (backends/port/).
        found = await cast(NativeVectorSearch, tx).nearest_vectors(
            [h.artifact_id for h in heads],
            self.query.astype("<f4").tobytes(),
            pool,
            self.condition,
        )
        hits: list[VectorHit] = []
        # Every memory of one database shares its profile, so any one's floor is the floor.
        floor = self.memories[0].min_cosine if self.memories else fusion.VECTOR_MIN_COSINE
        for item in found:
            row = item.projection
            if not fusion.vector_admits(item.distance, floor):
                continue
            key = fusion.HitKey(row.memory_artifact_id, row.entry_id, row.entry_version_id)
            hits.append(VectorHit(key, row.entry_content_hash, item.distance))
        return [Ranked(h.key, h.entry_content_hash) for h in merge_nearest([hits], pool)]
