"""The storage SPI: what a database adapter implements, and nothing more.

Adapters do CRUD, head CAS, schema, isolation and their search dialect. They exchange plain
rows (stored strings, never parsed domain objects); parsing, hashing and every domain check
happen once, in DatabaseMemoryBackend (backends/database.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, fields
from typing import Protocol

# schema_meta keys of token signing keys: "signing_key.<key id>"; the range selects exactly
# them ("/" follows "." in every collation byte order).
SIGNING_KEY_PREFIX = "signing_key."
SIGNING_KEY_RANGE = (SIGNING_KEY_PREFIX, "signing_key/")


class RevisionExistsError(Exception):
    """insert_revision hit a unique conflict: another writer committed that revision first."""

    def __init__(self, artifact_id: str, revision: int) -> None:
        super().__init__(f"{artifact_id}@{revision} already exists")
        self.artifact_id = artifact_id
        self.revision = revision


class SnapshotMovedError(Exception):
    """An optimistic read (StorageAdapter.read) needed a second statement, and inside the
    snapshot begun for it the first statement no longer gives the answer it gave alone: a
    commit landed in between. Nothing read so far belongs to that snapshot; read again."""


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


class HotReads(Protocol):
    """The reads that serve requests (search, writes, history, context, auth): each is bounded
    by what one request touches. Every method reads; none writes."""

    async def head_revisions(self, artifact_ids: Sequence[str]) -> dict[str, int]:
        """Current head revision of each artifact that exists."""
        ...

    async def revision_row(self, artifact_id: str, revision: int) -> RevisionRow | None: ...

    async def changes_rows(self, artifact_id: str, first: int, last: int) -> list[ChangesRow]:
        """The compact changes of revisions first..last inclusive, ascending (history reads:
        a caller asks for a bounded page at a time)."""
        ...

    async def manifest_piece_rows(self, keys: Sequence[str]) -> list[ManifestPieceRow]:
        """The stored pieces among `keys` (any order; a missing key is simply absent)."""
        ...

    async def entry_version_rows(self, version_ids: Sequence[str]) -> list[EntryVersionRow]: ...

    async def source_rows(self, source_ids: Sequence[str]) -> list[SourceRow]: ...

    async def source_links(
        self, source_ids: Sequence[str], artifact_ids: Sequence[str]
    ) -> dict[str, int]:
        """Those of `source_ids` linked to any of `artifact_ids` (memory_sources), each with
        the earliest recorded_at_ms among those links."""
        ...

    async def existing_revisions(self, refs: Sequence[tuple[str, int]]) -> set[tuple[str, int]]:
        """Which (artifact_id, revision) pairs exist, in any family."""
        ...

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

    async def version_metadata_rows(self, version_ids: Sequence[str]) -> list[VersionMetadataRow]:
        """Kind, description and tags of these entry versions (any order; never the text)."""
        ...

    async def embedding_profile_json(self) -> str | None:
        """The database's fixed embedding profile (canonical JSON), if one was fixed."""
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

    async def access_token_row(self, token_id: str) -> AccessTokenRow | None: ...

    async def signing_key_rows(self) -> list[tuple[str, str]]:
        """(key id, hex secret) of every page/preview token signing key (security/signing.py),
        stored in schema_meta under "signing_key.<key id>"."""
        ...

    async def write_request_row(self, caller_key: str, request_id: str) -> WriteRequestRow | None:
        """The recorded outcome of this caller's request id, however old (pruning removes)."""
        ...


class AuditReads(Protocol):
    """Whole-database reads for the verifier, export, backfills and admin listings: offline or
    rare, each may scan a memory or the whole database."""

    async def revision_rows(self, artifact_id: str, first: int, last: int) -> list[RevisionRow]:
        """Revisions first..last inclusive, ascending."""
        ...

    async def lineage_rows(self, artifact_id: str) -> list[tuple[int, int, str]]:
        """(revision, committed_at_ms, lineage JSON) of every revision of one memory, ascending:
        never a manifest."""
        ...

    async def revisions_without_changes(
        self, after: tuple[str, int] | None, limit: int
    ) -> list[tuple[str, int]]:
        """Up to `limit` (artifact_id, revision) keys of revisions whose changes are not
        stored, after `after` in key order (the backfill walks them in batches)."""
        ...

    async def revisions_with_full_content(
        self, after: tuple[str, int] | None, limit: int
    ) -> list[tuple[str, int]]:
        """Up to `limit` keys of revisions still holding their whole content (not pieces),
        after `after` in key order (the manifest migration walks them in batches)."""
        ...

    async def head_projection_rows(self, artifact_id: str) -> list[HeadProjectionRow]:
        """Every projection row of one memory (verifier and rebuild)."""
        ...

    async def fts_rows(self, artifact_id: str) -> list[tuple[str, str]]:
        """(entry_id, indexed text) of the full-text index for one memory (verifier)."""
        ...

    async def artifact_ids(self) -> list[str]:
        """Every artifact with a head (verifier)."""
        ...

    async def all_entry_version_rows(self, artifact_id: str) -> list[EntryVersionRow]:
        """Every entry version of one memory (verifier)."""
        ...

    async def all_source_ids(self) -> list[str]: ...

    async def source_link_rows(self, artifact_id: str) -> list[SourceLinkRow]:
        """Every source linked to one memory, by source id (verifier)."""
        ...

    async def meta_value(self, key: str) -> str | None:
        """A schema_meta value: markers of the one-time backfills run on open."""
        ...

    async def access_token_rows(self) -> list[AccessTokenRow]:
        """Every token, revoked and expired ones included, oldest first."""
        ...


class ReadTransaction(HotReads, AuditReads, Protocol):
    """A consistent snapshot offering both kinds of reads (every adapter implements both)."""


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


class WriteTransaction(ReadTransaction, Protocol):
    """One serialized write transaction; committed on clean exit, rolled back on error."""

    async def insert_revision(self, row: RevisionRow) -> None:
        """Raises RevisionExistsError when that (artifact, revision) already exists."""
        ...

    async def advance_head(self, artifact_id: str, base_revision: int, next_revision: int) -> bool:
        """CAS the head from base to next (base 0: create it). False when the head moved."""
        ...

    async def insert_entry_versions(self, rows: Sequence[EntryVersionRow]) -> None: ...

    async def set_revision_changes(
        self, artifact_id: str, revision: int, changes: str, changes_hash: str
    ) -> None:
        """Fill the changes columns of a revision stored without them (never overwrites)."""
        ...

    async def insert_manifest_pieces(self, rows: Sequence[ManifestPieceRow]) -> None:
        """Store pieces; a key already stored is left as it is (content addressed)."""
        ...

    async def set_revision_pieces(self, artifact_id: str, revision: int, root: str) -> None:
        """Replace a revision's whole content by its piece root (the migration; only rows
        that still hold their content are changed)."""
        ...

    async def upsert_projection(self, revision: int, rows: Sequence[HeadProjectionRow]) -> None:
        """Insert or replace (by memory + entry) head rows and their full-text rows."""
        ...

    async def remove_projection(self, artifact_id: str, entry_ids: Sequence[str]) -> None: ...

    async def clear_projection(self, artifact_id: str) -> None:
        """Drop every head and full-text row of one memory (offline rebuild)."""
        ...

    async def insert_source(self, row: SourceRow) -> bool:
        """False when a source with this id already exists (sources are immutable)."""
        ...

    async def insert_source_links(self, rows: Sequence[SourceLinkRow]) -> None:
        """Link sources to memories; a pair already linked keeps its row (and its time)."""
        ...

    async def insert_meta_value(self, key: str, value: str) -> bool:
        """Set a schema_meta key once; False (nothing changed) when it is already set."""
        ...

    async def insert_access_token(self, row: AccessTokenRow) -> None:
        """A new token; its id is random, a duplicate is the driver's integrity error."""
        ...

    async def revoke_access_token(self, token_id: str, revoked_at_ms: int) -> bool:
        """Mark the token revoked; False when there is no such token or it already was."""
        ...

    async def insert_signing_key(self, key_id: str, secret_hex: str) -> bool:
        """Store a signing key; False (nothing changed) when that key id already exists."""
        ...

    async def delete_signing_keys(self, key_ids: Sequence[str]) -> None: ...

    async def set_embedding_profile(self, profile_json: str, dimension: int) -> None:
        """Fix (or, offline, replace) the profile: every stored vector is dropped."""
        ...

    async def insert_write_request(self, row: WriteRequestRow) -> bool:
        """False when (caller_key, request_id) is already recorded; the row is not changed.

        A concurrent transaction recording the same key makes this wait for it to end (the
        unique key), so two writers of one id never both succeed.
        """
        ...

    async def delete_write_requests(self, created_before_ms: int, limit: int) -> int:
        """Delete up to `limit` records created before `created_before_ms`, oldest first."""
        ...


class StorageAdapter(Protocol):
    """A database. `write()` transactions are serialized by the caller."""

    name: str
    location: str
    # True when read transactions also implement NativeVectorSearch: the vector channel then
    # asks the engine's index, and this process keeps no vectors, only their completeness.
    native_vector_search: bool
    # What its database driver raises: these, raised directly or as the cause of a domain
    # error (an unreachable OceanBase), are reported as database errors.
    driver_errors: tuple[type[Exception], ...]
    # The bound in seconds on each database call and each wait for a connection (None:
    # unbounded, offline commands); past it the call fails with UNAVAILABLE DATABASE_TIMEOUT
    # (backends/timeouts.py) and the connection it used is discarded.
    timeout: float | None

    @property
    def engine_version(self) -> str: ...

    @property
    def fts_problem(self) -> str:
        """Why full text failed the adapter's start-up probe ("" when it works)."""
        ...

    @property
    def vector_problem(self) -> str:
        """Why vectors failed the adapter's start-up probe ("" when they work)."""
        ...

    def read(self, *, optimistic: bool = False) -> AbstractAsyncContextManager[ReadTransaction]:
        """A consistent snapshot. `optimistic`: an adapter whose transaction costs round trips
        may run the first statement alone (its own snapshot) and begin the transaction only
        when a second statement follows, re-running the first inside it; if that answer
        differs, the second statement raises SnapshotMovedError. A read of one statement then
        costs one round trip. Sound only where equal first answers mean equal states: the heads
        (each names its revision, and all else a search reads is keyed on revisions)."""
        ...

    def write(self) -> AbstractAsyncContextManager[WriteTransaction]: ...

    async def close(self) -> None: ...
