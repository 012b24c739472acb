"""This process's search indexes over one database, kept current as a commit listener."""

from __future__ import annotations

from collections.abc import Sequence

from ..backends.port import HeadProjectionRow
from ..domain.models import EmbeddingProfile
from .text_index import TextIndex
from .vector_index import VectorIndex


class SearchIndexes:
    """The full-text channel's inverted lists and the vector channel's copy of the vectors.

    `native_vectors`: the engine searches its own vector index, so only ids and hashes are
    held here, not the vectors themselves.
    """

    def __init__(self, *, native_vectors: bool = False) -> None:
        self.native_vectors = native_vectors
        self.texts = TextIndex()
        self.vectors: VectorIndex | None = None  # None while the database has no profile

    def committed(
        self,
        artifact_id: str,
        base_revision: int,
        next_revision: int,
        rows: Sequence[HeadProjectionRow],
        removals: Sequence[str],
    ) -> None:
        for index in (self.vectors, self.texts):
            if index is not None:
                index.apply_commit(artifact_id, base_revision, next_revision, rows, removals)

    def projection_replaced(self) -> None:
        if self.vectors is not None:
            self.vectors.forget()
        self.texts.forget()

    def profile_changed(self, profile: EmbeddingProfile | None) -> None:
        store = not self.native_vectors
        self.vectors = VectorIndex(profile, store_vectors=store) if profile else None
