"""One search result, below both the service vocabulary (api.py) and the candidate pipeline,
which is handed the hits of its own searches."""

from __future__ import annotations

from dataclasses import dataclass

from .models import ArtifactRef


@dataclass(frozen=True, slots=True)
class Hit:
    """One search result: a verified version of an active entry of a memory's head."""

    memory_ref: ArtifactRef
    entry_id: str
    entry_version_id: str
    entry_content_hash: str
    kind: str
    text: str
    score: float
    matched_by: tuple[str, ...]
    description: str = ""
    tags: tuple[str, ...] = ()
    # Parallel to matched_by: the hit's 1-based rank in each channel's admitted candidates.
    channel_ranks: tuple[int, ...] = ()
