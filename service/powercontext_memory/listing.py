"""GetRecallManifest and ListEntries: keyset pages over one revision's manifest, and the
bound that keeps GetMemory receivable.

A page walks the revision's manifest rows after the token's entry id (PieceManifest.rows_after),
keeps the rows of the wanted statuses, reads the kind, description and tags of their versions
in batches (never the text, unless ListEntries asks for it), applies the kind and tag filters
and stops when the page is full or after SCAN_BUDGET rows (a short page with a token: a
selective filter over a large memory never makes one call read all of it).

Page tokens are signed (security/signing.py) and carry the memory, the operation, the revision
read, the last entry id and a fingerprint binding the caller and every filter exactly as given:
a token is refused with other filters, by another caller, on another memory or operation.
Later pages read the token's revision, so one listing is one consistent snapshot.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .api import (
    EntryFilter,
    EntryPage,
    EntryStatus,
    ListedEntry,
    RecallManifestPage,
    TagMatch,
)
from .backends.read_session import ReadSession
from .domain import validation
from .domain.canonical import canonical_json, sha256_hex
from .domain.entry_filters import check_kinds, check_tags, matches
from .domain.errors import InvalidArgumentError
from .domain.models import ArtifactRef, Citation, EntryState, ManifestEntry, Revision
from .security.caller import current_caller
from .security.signing import PAGE, TokenSigner

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 100
# Manifest rows one call looks at before it answers a short page with a token.
SCAN_BUDGET = 5000
# Versions whose metadata one statement reads.
METADATA_BATCH = 256
# GetMemory leaves the manifest and changes out past this (a default client takes 4 MiB).
GET_MEMORY_MAX_BYTES = 3 * 1024 * 1024
# The rest of a GetMemory response (refs, hashes, lineage), generously.
_FRAME_BYTES = 64 * 1024

RECALL = "recall"
LIST = "list"
PAGE_TOKEN_FIELD = "page_token"


def checked_filter(filters: EntryFilter) -> EntryFilter:
    """The filter with its values checked (never normalized: compared exactly as given)."""
    if filters.tag_match not in (TagMatch.ALL, TagMatch.ANY):
        raise InvalidArgumentError("tag_match", "must be ALL or ANY")
    return EntryFilter(
        check_kinds("kinds", filters.kinds), check_tags("tags", filters.tags), filters.tag_match
    )


def estimated_size(revision: Revision) -> int:
    """About the encoded size of a GetMemory response, never below it: the canonical JSON
    of the manifest (its pieces, already in memory) and of the changes (JSON spells each
    field's name, protobuf a one-byte tag) plus the frame."""
    content = revision.content
    manifest = sum(len(leaf.body) for leaf in content.manifest.leaves)
    changes = len(canonical_json([c.to_json() for c in content.changes]))
    return manifest + changes + _FRAME_BYTES


def status_of(row: ManifestEntry) -> EntryStatus:
    if row.state is EntryState.ACTIVE:
        return EntryStatus.ACTIVE
    return EntryStatus.MERGED if row.merged_into else EntryStatus.INACTIVE


def _page_size(value: int) -> int:
    size = value or DEFAULT_PAGE_SIZE
    if not 1 <= size <= MAX_PAGE_SIZE:
        raise InvalidArgumentError(
            "page_size", f"must be 1 to {MAX_PAGE_SIZE} (0: {DEFAULT_PAGE_SIZE})"
        )
    return size


@dataclass(frozen=True, slots=True)
class PageQuery:
    """What one listing asks for; every field but the memory's revision and the position is
    bound into the page token's fingerprint."""

    operation: str  # RECALL or LIST
    memory: ArtifactRef  # revision 0: the head
    page_size: int
    statuses: frozenset[EntryStatus]
    filters: EntryFilter
    include_text: bool

    def fingerprint(self) -> str:
        """SHA-256 of the caller's key, the memory, the operation and the filters exactly as
        given (composed and decomposed tags differ); fixed length whatever the filters."""
        bound = {
            "caller": current_caller().key,
            "memory": self.memory.artifact_id,
            "operation": self.operation,
            "kinds": sorted(set(self.filters.kinds)),
            "tags": sorted(set(self.filters.tags)),
            "tag_match": self.filters.tag_match.value,
            "statuses": sorted(s.value for s in self.statuses),
            "include_text": self.include_text,
        }
        return sha256_hex(canonical_json(bound))


def page_query(
    operation: str,
    memory: ArtifactRef,
    page_size: int,
    statuses: Sequence[EntryStatus],
    filters: EntryFilter,
    include_text: bool,
) -> PageQuery:
    validation.require_id("memory.artifact_id", memory.artifact_id)
    validation.require_revision("memory.revision", memory.revision, allow_head=True)
    for i, status in enumerate(statuses):
        if not isinstance(status, EntryStatus):
            raise InvalidArgumentError(f"statuses[{i}]", "must be ACTIVE, INACTIVE or MERGED")
    return PageQuery(
        operation,
        memory,
        _page_size(page_size),
        frozenset(statuses or (EntryStatus.ACTIVE,)),
        checked_filter(filters),
        include_text,
    )


@dataclass(frozen=True, slots=True)
class Position:
    revision: int  # 0 on the first page: the head
    after: str | None  # the last entry id of the previous page


def read_position(signer: TokenSigner, query: PageQuery, token: str) -> Position:
    """Where a page starts: the first page, or the one the token names when it is bound to
    this query (else INVALID_ARGUMENT PAGE_TOKEN_MISMATCH)."""
    if not token:
        return Position(query.memory.revision, None)
    payload = signer.verify(PAGE, token, PAGE_TOKEN_FIELD)
    revision, after = payload.get("rev"), payload.get("after")
    if not (isinstance(revision, int) and isinstance(after, str)):
        raise InvalidArgumentError(
            PAGE_TOKEN_FIELD, "not a page token", reason="PAGE_TOKEN_INVALID"
        )
    if (
        payload.get("op") != query.operation
        or payload.get("mem") != query.memory.artifact_id
        or payload.get("fp") != query.fingerprint()
        or query.memory.revision not in (0, revision)
    ):
        raise InvalidArgumentError(
            PAGE_TOKEN_FIELD,
            "this token belongs to another listing (memory, revision, filters or caller): "
            "use it only with the request it came from",
            reason="PAGE_TOKEN_MISMATCH",
        )
    return Position(revision, after)


def _token(signer: TokenSigner, query: PageQuery, revision: int, after: str) -> str:
    return signer.sign(
        PAGE,
        {
            "op": query.operation,
            "mem": query.memory.artifact_id,
            "rev": revision,
            "fp": query.fingerprint(),
            "after": after,
        },
    )


@dataclass(frozen=True, slots=True)
class _Walk:
    revision: Revision
    items: list[ListedEntry]
    resume_after: str | None  # None: the manifest ended


async def _walk(
    session: ReadSession, query: PageQuery, revision: Revision, after: str | None
) -> _Walk:
    rows = revision.content.manifest.rows_after(after)
    items: list[ListedEntry] = []
    scanned = 0
    last_scanned: str | None = None
    filtered = not query.filters.empty
    while len(items) < query.page_size:
        wanted = METADATA_BATCH if filtered else query.page_size - len(items)
        batch, scanned_now, last = _status_batch(rows, query.statuses, wanted, scanned)
        scanned += scanned_now
        last_scanned = last or last_scanned
        if batch:
            for item in await _listed(session, query, revision.ref, batch):
                items.append(item)
                if len(items) == query.page_size:
                    return _Walk(revision, items, item.citation.entry_id)
        if last is None:  # the manifest ended
            return _Walk(revision, items, None)
        if scanned >= SCAN_BUDGET:
            return _Walk(revision, items, last_scanned)
    return _Walk(revision, items, last_scanned)


def _status_batch(
    rows: Iterator[ManifestEntry], statuses: frozenset[EntryStatus], wanted: int, scanned: int
) -> tuple[list[ManifestEntry], int, str | None]:
    """Up to `wanted` rows of these statuses, stopping at the scan budget: (rows, rows
    looked at, the last entry id looked at — None when the manifest ended first)."""
    batch: list[ManifestEntry] = []
    seen = 0
    last: str | None = None
    for row in rows:
        seen += 1
        last = row.entry_id
        if status_of(row) in statuses:
            batch.append(row)
        if len(batch) >= wanted or scanned + seen >= SCAN_BUDGET:
            return batch, seen, last
    return batch, seen, None


async def _listed(
    session: ReadSession, query: PageQuery, ref: ArtifactRef, rows: list[ManifestEntry]
) -> list[ListedEntry]:
    """The rows as listed entries (in row order), those failing the kind/tag filter left out.
    Metadata comes from a narrow read of the versions; the text, when asked, from the
    verified versions."""
    ids = [r.entry_version_id for r in rows]
    texts: dict[str, str] = {}
    meta: dict[str, tuple[str, str, tuple[str, ...]]] = {}
    if query.include_text:
        for version_id, version in (await session.versions(ids)).items():
            content = version.content
            texts[version_id] = content.text
            meta[version_id] = (content.kind, content.description or "", tuple(content.tags))
    else:
        for found in await session.tx.version_metadata_rows(ids):
            tags = tuple(json.loads(found.tags)) if found.tags else ()
            meta[found.entry_version_id] = (found.kind, found.description or "", tags)
    out: list[ListedEntry] = []
    match_all = query.filters.tag_match is TagMatch.ALL
    for row in rows:
        kind, description, tags = meta[row.entry_version_id]
        if not matches(kind, tags, query.filters.kinds, query.filters.tags, match_all=match_all):
            continue
        out.append(
            ListedEntry(
                citation=Citation(ref, row.entry_id, row.entry_version_id),
                kind=kind,
                description=description,
                status=status_of(row),
                tags=tags,
                entry_content_hash=row.entry_content_hash,
                merged_into=row.merged_into,
                text=texts.get(row.entry_version_id) if query.include_text else None,
            )
        )
    return out


async def _page(
    session: ReadSession, signer: TokenSigner, query: PageQuery, token: str
) -> tuple[_Walk, str]:
    await signer.refresh(token)
    position = read_position(signer, query, token)
    head = await session.head(query.memory.artifact_id)
    revision = await session.revision(
        ArtifactRef(query.memory.artifact_id, position.revision or head)
    )
    walk = await _walk(session, query, revision, position.after)
    next_token = (
        _token(signer, query, revision.ref.revision, walk.resume_after)
        if walk.resume_after is not None and _has_rows_after(revision, walk.resume_after)
        else ""
    )
    return walk, next_token


def _has_rows_after(revision: Revision, entry_id: str) -> bool:
    return next(revision.content.manifest.rows_after(entry_id), None) is not None


async def recall_manifest(
    session: ReadSession,
    signer: TokenSigner,
    memory: ArtifactRef,
    page_size: int,
    page_token: str,
    filters: EntryFilter,
) -> RecallManifestPage:
    query = page_query(RECALL, memory, page_size, (EntryStatus.ACTIVE,), filters, False)
    walk, next_token = await _page(session, signer, query, page_token)
    return RecallManifestPage(
        memory=walk.revision.ref,
        items=walk.items,
        next_page_token=next_token,
        empty_memory=walk.revision.content.active_count == 0,
    )


async def list_entries(
    session: ReadSession,
    signer: TokenSigner,
    memory: ArtifactRef,
    page_size: int,
    page_token: str,
    statuses: Sequence[EntryStatus],
    filters: EntryFilter,
    include_text: bool,
) -> EntryPage:
    query = page_query(LIST, memory, page_size, statuses, filters, include_text)
    walk, next_token = await _page(session, signer, query, page_token)
    return EntryPage(memory=walk.revision.ref, entries=walk.items, next_page_token=next_token)
