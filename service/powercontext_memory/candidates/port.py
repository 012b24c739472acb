"""The extractor port of the candidate pipeline: what an adapter sees and what it returns.

Adapters and extractors propose; they never write. Everything they return is untrusted: the
service validates each candidate like an APPEND entry (secret guard, evidence within the
operation, canonical hash, no-op, head CAS) before anything is committed. Suggestions (forget
this entry, this instruction named no single entry) are handed back to the caller, never applied.
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ..domain.hit import Hit
from ..domain.lifecycle import EntryRef
from ..domain.models import Source, SourceRef


@dataclass(frozen=True, slots=True)
class Candidate:
    """A proposed entry: `target` unset = add, set = revise exactly that current version.

    `topic` is the adapter's stable key for what the text is about (e.g. "make:test"); it lets
    a git change match a re-derived text to the text an existing entry was derived from.
    """

    target: EntryRef | None
    kind: str
    text: str
    sources: tuple[SourceRef, ...]
    adapter: str
    topic: str = ""
    reason: str | None = None


class SuggestionKind(enum.Enum):
    FORGET = "forget"
    AMBIGUOUS = "ambiguous"


@dataclass(frozen=True, slots=True)
class Suggestion:
    """Something only the caller may decide: forget an entry, or ask which entry was meant."""

    kind: SuggestionKind
    entries: tuple[EntryRef, ...]
    adapter: str
    reason: str
    sources: tuple[SourceRef, ...] = ()


@dataclass(frozen=True, slots=True)
class ActiveEntry:
    """One active entry of the current head, as the pipeline may read it (the window)."""

    ref: EntryRef
    kind: str
    text: str
    sources: tuple[SourceRef, ...]


@dataclass(frozen=True, slots=True)
class Extraction:
    candidates: list[Candidate] = field(default_factory=list)
    suggestions: list[Suggestion] = field(default_factory=list)


# Full-text search over the memory's active entries (the service's own search path).
SearchEntries = Callable[[str], Awaitable[list[Hit]]]
# A persisted source by id, hash-verified (an old source an entry cites; not evidence).
ReadSource = Callable[[str], Awaitable[Source]]


@dataclass(frozen=True)
class ExtractionInput:
    """The operation's persisted sources, the head's active entries (a bounded window) and the
    two reads an adapter may need. `entries` is empty when the operation creates a memory."""

    sources: Sequence[Source]
    entries: Sequence[ActiveEntry]
    search: SearchEntries
    read_source: ReadSource

    def refs(self) -> frozenset[SourceRef]:
        return frozenset(s.ref for s in self.sources)


class Extractor(Protocol):
    """One adapter or model extractor of the pipeline, selectable by `name`."""

    @property
    def name(self) -> str: ...

    async def extract(self, request: ExtractionInput) -> Extraction: ...
