"""The plain rows adapters and the store exchange: stored strings and numbers, never parsed
domain objects (parsing, hashing and every check happen once, in backends/database.py)."""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True, slots=True)
class RevisionRow:
    artifact_id: str
    revision: int
    family: str
    content: str  # RFC 8785 canonical JSON of MemoryContent
    content_hash: str
    lineage: str  # canonical JSON of Lineage
    committed_at_ms: int
    # The canonical JSON of content's changes array, stored apart so that history reads never
    # load the manifest, and its SHA-256. None in rows stored before these columns existed,
    # until the backfill on open fills them (DatabaseMemoryBackend.backfill_changes).
    changes: str | None
    changes_hash: str | None
    # A revision whose manifest is stored as pieces (manifest_pieces): content is '' and this
    # names the index pieces ("pieces-v1:" + keys). None in rows holding the whole content.
    manifest_root: str | None = None


@dataclass(frozen=True, slots=True)
class ManifestPieceRow:
    """One content-addressed piece of manifests (a run of rows or of leaf keys), shared by
    every revision that contains it: piece_key is the SHA-256 of body."""

    piece_key: str
    body: str


@dataclass(frozen=True, slots=True)
class ChangesRow:
    """The columns of a revision that history (Changes) reads: never its manifest."""

    artifact_id: str
    revision: int
    content_hash: str
    committed_at_ms: int
    changes: str | None
    changes_hash: str | None


@dataclass(frozen=True, slots=True)
class EntryVersionRow:
    memory_artifact_id: str
    entry_id: str
    entry_version_id: str
    version: int
    previous_version_id: str | None
    kind: str
    text: str
    source_refs: str  # canonical JSON array
    artifact_refs: str  # canonical JSON array
    entry_content_hash: str
    created_in_revision: int
    # NULL (None) in versions without a description (hash v1, all written before descriptions
    # existed); tags then NULL too, else a canonical JSON array of strings.
    description: str | None = None
    tags: str | None = None


@dataclass(frozen=True, slots=True)
class SourceRow:
    source_id: str
    kind: str
    uri: str
    media_type: str
    content: bytes
    metadata: str  # canonical JSON object
    content_hash: str
    created_at_ms: int


@dataclass(frozen=True, slots=True)
class SourceLinkRow:
    """A source one memory cites (in a revision's lineage or an entry version's evidence) or had
    recorded for it (PutSource `memory_id`): what a token limited to that memory may read.
    `recorded_at_ms` is when the pair was first linked; linking it again changes nothing."""

    memory_artifact_id: str
    source_id: str
    recorded_at_ms: int


@dataclass(frozen=True, slots=True)
class HeadProjectionRow:
    """A row of the latest-head projection (memory_entry_heads) as the adapter stores it.

    `embedding` (float32 little-endian bytes) and `embedding_content_hash` come together or not
    at all; written without them, the row has no vector (any old one is removed).
    """

    memory_artifact_id: str
    entry_id: str
    entry_version_id: str
    entry_content_hash: str
    searchable_text: str
    embedding: bytes | None = None
    embedding_content_hash: str | None = None
    # The version's kind, description (None: it has none) and tags in delimited form
    # (descriptions.delimited_tags), for listing and search filters. Last, so that the hot
    # reads selecting HEAD_COLUMNS (the first five) build rows positionally; they leave these
    # at their defaults, only head_projection_rows reads them.
    kind: str = ""
    description: str | None = None
    tags: str = ""


@dataclass(frozen=True, slots=True)
class HeadKindRow:
    """A head projection row with its version's kind and revision (PrepareContext's rules and
    recent notes are chosen from these before any entry text is read)."""

    memory_artifact_id: str
    entry_id: str
    entry_version_id: str
    entry_content_hash: str
    kind: str
    created_in_revision: int


@dataclass(frozen=True, slots=True)
class WriteRequestRow:
    """The recorded outcome of a write that carried a request id (domain/idempotency.py).

    Keyed by (caller_key, request_id); `outcome` is the domain's JSON, opaque here.
    """

    caller_key: str
    request_id: str
    fingerprint: str
    outcome: str
    created_at_ms: int


@dataclass(frozen=True, slots=True)
class VectorRow:
    """A head row with whatever vector metadata and vector are stored for it (may be none).

    `has_vector` says whether a vector is stored; `embedding` carries it only when it was asked
    for (vector_rows with_vectors=True).
    """

    entry_id: str
    entry_version_id: str
    entry_content_hash: str
    meta_entry_version_id: str | None
    meta_entry_content_hash: str | None
    embedding_content_hash: str | None
    embedding: bytes | None
    has_vector: bool


@dataclass(frozen=True, slots=True)
class HeadCondition:
    """Which head rows a filtered search reads: the version's kind among `kinds` (empty: any)
    and its delimited tags (memory_entry_heads.tags) containing all (`all_tags`) or any of
    `tag_needles` (descriptions.tag_needle; empty: any). Compared byte for byte."""

    kinds: tuple[str, ...] = ()
    tag_needles: tuple[str, ...] = ()
    all_tags: bool = True


@dataclass(frozen=True, slots=True)
class VersionMetadataRow:
    """An entry version without its text or evidence (listings read only this)."""

    entry_version_id: str
    entry_id: str
    kind: str
    description: str | None
    tags: str | None  # canonical JSON array, or None


@dataclass(frozen=True, slots=True)
class VectorCandidate:
    """A projection row found by an engine's own vector index, with its L2 distance."""

    projection: HeadProjectionRow
    distance: float


@dataclass(frozen=True, slots=True)
class AccessTokenRow:
    """A bearer token as stored (security/tokens.py): never its secret, only its SHA-256.

    `scope` is read/write/admin; `memories` a canonical JSON array of artifact ids (`[]`:
    every memory); the times are Unix milliseconds, None for never.
    """

    token_id: str
    name: str
    scope: str
    memories: str
    secret_hash: str
    created_at_ms: int
    expires_at_ms: int | None
    revoked_at_ms: int | None


def columns(row_type: type, count: int | None = None) -> str:
    """The SELECT/INSERT column list of a row type, in field order (adapters build rows from
    result tuples positionally, so the order is defined once, here)."""
    names = [f.name for f in fields(row_type)][:count]
    return ", ".join(names)


def values(row: object) -> tuple[object, ...]:
    """A row's values in column order (see columns())."""
    return tuple(getattr(row, f.name) for f in fields(row))  # type: ignore[arg-type]
