"""The head projection: each memory's active entries at its head, with full-text and vector data.

Derived state: written in the same transaction that moves the head (so it always matches the
head it names), and rebuildable from the revisions at any time (rebuild-projection)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from .rows import HeadCondition, HeadKindRow, HeadProjectionRow, VectorCandidate, VectorRow


class ProjectionReads(Protocol):
    """What search and context read: rows of the heads, never of older revisions."""

    async def fts_candidates(
        self,
        artifact_ids: Sequence[str],
        terms: Sequence[str],
        min_matches: int,
        limit: int,
        condition: HeadCondition | None = None,
    ) -> list[HeadProjectionRow]:
        """Top `limit` projection rows of these memories matching analyzer terms, by the
        engine's relevance; when no more than `limit` rows match, all of them in any order
        (the caller orders its window itself: domain/fts_rank.py).

        `terms` are Analyzer v1 tokens; the adapter quotes them for its own MATCH syntax. Rows
        matching fewer than `min_matches` distinct terms are useless to the caller (admission
        refuses them), so an adapter may leave them out of the ranking. With `condition`, only
        rows meeting it are candidates (inside the query, before the limit).
        """
        ...

    async def head_rows_of_kinds(
        self,
        artifact_ids: Sequence[str],
        kinds: Sequence[str],
        entry_ids: Sequence[str] | None = None,
    ) -> list[HeadKindRow]:
        """Projection rows of these memories whose version has one of `kinds` (any order);
        with `entry_ids`, only those entries' rows (of one memory)."""
        ...

    async def eligible_entry_ids(
        self, artifact_ids: Sequence[str], condition: HeadCondition
    ) -> set[tuple[str, str]]:
        """(memory, entry id) of the head rows of these memories meeting `condition`."""
        ...

    async def head_text_rows(
        self,
        artifact_id: str,
        entry_ids: Sequence[str] | None,
        *,
        after: str | None = None,
        limit: int | None = None,
    ) -> list[HeadProjectionRow]:
        """Head projection rows of one memory with their searchable text, kind and tags (no
        vectors): those of `entry_ids` (absent ones are simply missing), or with None every
        row after entry id `after`, in entry id order, at most `limit` (a page)."""
        ...

    async def vector_rows(
        self,
        artifact_id: str,
        entry_ids: Sequence[str] | None,
        *,
        with_vectors: bool = True,
        after: str | None = None,
        limit: int | None = None,
    ) -> list[VectorRow]:
        """Head rows of one memory (all, or these entries) joined with their vector data.

        With `limit` (and entry_ids None): one page of at most `limit` rows by ascending
        entry id, starting after the entry id `after`, so a large memory is read in calls
        that each fit the database timeout.
        """
        ...


class NativeVectorSearch(Protocol):
    """Read transactions of adapters whose engine has its own vector index (OceanBase HNSW)."""

    async def nearest_vectors(
        self,
        artifact_ids: Sequence[str],
        query: bytes,
        limit: int,
        condition: HeadCondition | None = None,
    ) -> list[VectorCandidate]:
        """Up to `limit` head rows of these memories nearest to `query` (float32 bytes), by
        ascending L2 distance, meeting `condition` when given. Rows without a vector are never
        returned."""
        ...


class ProjectionWrites(Protocol):
    """Projection changes of a commit, or of an offline rebuild."""

    async def upsert_projection(self, revision: int, rows: Sequence[HeadProjectionRow]) -> None:
        """Insert or replace (by memory + entry) head rows and their full-text rows."""
        ...

    async def remove_projection(self, artifact_id: str, entry_ids: Sequence[str]) -> None: ...

    async def clear_projection(self, artifact_id: str) -> None:
        """Drop every head and full-text row of one memory (offline rebuild)."""
        ...
