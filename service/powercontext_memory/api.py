"""The service's vocabulary: what operations take and answer, apart from how they are done.

MemoryService (memory.py) speaks it, the transport (transport/convert.py) maps it to and from
the wire, and nothing here knows about a backend: the transport never imports backends/.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .domain.analyzer import ANALYZER_VERSION
from .domain.entry_input import EntryInput
from .domain.hit import Hit
from .domain.lifecycle import EntryRef, EntryResult
from .domain.models import (
    ArtifactRef,
    Citation,
    EmbeddingProfile,
    EntryState,
    EntryVersion,
    MemoryChange,
    Revision,
)

if TYPE_CHECKING:
    # Annotations only: importing the package at run time would load every candidate adapter.
    from .candidates import Suggestion


class RememberMode(enum.Enum):
    AUTO = "auto"
    APPEND = "append"
    EXTRACT = "extract"


class SearchMode(enum.Enum):
    AUTO = "auto"
    FTS = "fts"
    VECTOR = "vector"
    HYBRID = "hybrid"


@dataclass(frozen=True, slots=True)
class WriteResult:
    memory: ArtifactRef | None
    changed: bool
    content_hash: str
    changes: tuple[MemoryChange, ...] = ()
    results: tuple[EntryResult, ...] = ()
    # EXTRACT: the candidates written (in `results` order) and what is left to the caller.
    candidates: tuple[EntryInput, ...] = ()
    suggestions: tuple[Suggestion, ...] = ()


@dataclass(frozen=True, slots=True)
class MemoryView:
    revision: Revision
    head_revision: int
    # The manifest and changes are not to be sent (asked for, or too large for one response).
    content_omitted: bool = False


@dataclass(frozen=True, slots=True)
class SearchResult:
    hits: list[Hit]
    mode: SearchMode
    fallback_reason: str = ""
    # Where the time went, for the server-timing trailer: query embedding, then the rest.
    embed_ms: float = 0.0
    search_ms: float = 0.0
    # The head revisions searched, one per memory in request order (revision 0 resolved).
    memories: list[ArtifactRef] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class ExpandedEntry:
    citation: Citation
    version: EntryVersion
    state: EntryState


@dataclass(frozen=True, slots=True)
class RevisionChanges:
    """One revision as history (Changes) reports it: never its manifest."""

    ref: ArtifactRef
    content_hash: str
    changes: tuple[MemoryChange, ...]
    committed_at_ms: int


@dataclass(frozen=True, slots=True)
class Capabilities:
    backend: str
    fts: bool = True
    vector: bool = False
    hybrid: bool = False
    candidate_extraction: bool = False
    change_follow: bool = True
    analyzer: str = ANALYZER_VERSION
    # The database's fixed profile (set even when this server's model cannot use it).
    embedding_profile: EmbeddingProfile | None = field(default=None)
    # Why vector/hybrid are off, when they are.
    vector_unavailable_reason: str = ""
    # Why fts/hybrid are off, when they are (a failed start-up probe).
    fts_unavailable_reason: str = ""
    engine_version: str = ""
    # The candidate pipeline's deterministic adapters and configured model extractors.
    candidate_adapters: tuple[str, ...] = ()
    candidate_extractors: tuple[str, ...] = ()


class TagMatch(enum.Enum):
    ALL = "all"
    ANY = "any"


class EntryStatus(enum.Enum):
    """Where an entry stands at a revision, as listings report it."""

    ACTIVE = "active"
    INACTIVE = "inactive"  # inactive and not merged
    MERGED = "merged"  # inactive, folded into another entry by a Merge


@dataclass(frozen=True, slots=True)
class EntryFilter:
    """Kind and tag filters of Search, ListEntries and GetRecallManifest (empty: no filter).
    Values are compared exactly as given (no normalization)."""

    kinds: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    tag_match: TagMatch = TagMatch.ALL

    @property
    def empty(self) -> bool:
        return not self.kinds and not self.tags


NO_FILTER = EntryFilter()


@dataclass(frozen=True, slots=True)
class ListedEntry:
    """One entry of a listing: metadata, and the text only when asked for."""

    citation: Citation
    kind: str
    description: str  # "" for versions written before descriptions existed
    status: EntryStatus
    tags: tuple[str, ...]
    entry_content_hash: str
    merged_into: str | None = None
    text: str | None = None


@dataclass(frozen=True, slots=True)
class RecallManifestPage:
    memory: ArtifactRef  # the revision read
    items: list[ListedEntry]
    next_page_token: str  # "" on the last page
    empty_memory: bool  # no active entries at all at this revision


@dataclass(frozen=True, slots=True)
class EntryPage:
    memory: ArtifactRef
    entries: list[ListedEntry]
    next_page_token: str


@dataclass(frozen=True, slots=True)
class MergeResult:
    memory: ArtifactRef
    content_hash: str
    changes: tuple[MemoryChange, ...]
    result: EntryRef  # the new entry


class RestoreOperation(enum.Enum):
    RESTORE = "restore"
    UNDO_MERGE = "undo_merge"


@dataclass(frozen=True, slots=True)
class RestoreOutcome:
    restored: tuple[EntryRef, ...] = ()
    retired: tuple[EntryRef, ...] = ()
    undone_merge_results: tuple[str, ...] = ()  # outermost first


@dataclass(frozen=True, slots=True)
class RestoreResult:
    memory: ArtifactRef
    changed: bool
    content_hash: str
    changes: tuple[MemoryChange, ...]
    outcome: RestoreOutcome


@dataclass(frozen=True, slots=True)
class RestorePreview:
    memory: ArtifactRef  # the head previewed
    outcome: RestoreOutcome
    would_change: bool
    preview_token: str
    expires_at_ms: int


@dataclass(frozen=True, slots=True)
class MemorySummary:
    """One memory as ListMemories shows it: where it stands at the read."""

    head: ArtifactRef
    active_entries: int
    inactive_entries: int
    created_at_ms: int
    changed_at_ms: int
    last_operation: str
    label: str = ""
    label_version: int = 0


@dataclass(frozen=True, slots=True)
class MemoryPage:
    memories: list[MemorySummary]
    next_page_token: str  # "" on the last page


@dataclass(frozen=True, slots=True)
class MemoryLabel:
    memory_id: str
    label: str
    label_version: int
    set_at_ms: int
