"""A Remember input as the service receives it, below both the service vocabulary (api.py) and
the candidate pipeline, which proposes entries in this shape."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .lifecycle import EntryRef
from .models import ArtifactRef, SourceRef


@dataclass(frozen=True, slots=True)
class EntryInput:
    """A Remember input as received: unvalidated."""

    target: EntryRef | None
    kind: str
    text: str
    sources: Sequence[SourceRef] = ()
    artifacts: Sequence[ArtifactRef] = ()
    reason: str | None = None
    # None: derived from the text (domain/descriptions.py). Tags: as given (validated there).
    description: str | None = None
    tags: Sequence[str] = ()
