"""What the store tells the layers above about its commits (search indexes listen).

The store calls its listeners; it never imports them, so the search layer sits above the store
and keeps its per-process indexes current without the store knowing what they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ..domain.models import EmbeddingProfile
from .port import HeadProjectionRow


class CommitListener(Protocol):
    """Called by DatabaseMemoryBackend in this process, after the fact, never inside a
    transaction; a listener must not fail (the commit is durable already)."""

    def committed(
        self,
        artifact_id: str,
        base_revision: int,
        next_revision: int,
        rows: Sequence[HeadProjectionRow],
        removals: Sequence[str],
    ) -> None:
        """`artifact_id` moved from `base_revision` to `next_revision`: `rows` are its new or
        changed projection rows, `removals` the entry ids that left the projection."""

    def projection_replaced(self) -> None:
        """A projection was rebuilt without a new head: anything derived from it is stale."""

    def profile_changed(self, profile: EmbeddingProfile | None) -> None:
        """The database's embedding profile is now `profile` (None: no vectors)."""
