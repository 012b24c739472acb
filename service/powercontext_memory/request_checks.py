"""Input checks shared by the service's operations, each error naming the field path.

Requests arrive as plain domain values (the transport converts wire messages). Every check
that more than one operation applies, or that the front, the write planners and curation
all rely on, lives here so a rule is stated once; the per-field rules themselves are
domain/validation.py and the secret refusal is secret_refusal.py.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from .api import EntryFilter, EntryInput, RememberMode
from .domain import lifecycle, validation
from .domain.canonical import nfc
from .domain.errors import FailedPreconditionError, InvalidArgumentError, NotFoundError
from .domain.lifecycle import EntryRef
from .domain.models import ArtifactRef, Citation, Lineage
from .listing import checked_filter
from .secret_refusal import refuse_secret, refuse_secrets_in_source

DEFAULT_SEARCH_LIMIT = 8
MAX_SEARCH_LIMIT = 100
MAX_SEARCH_MEMORIES = 32
MAX_CITATIONS = 100
MAX_URI_BYTES = 4096
MAX_MEDIA_TYPE_CHARS = 255


def require_memory_ref(field_name: str, ref: ArtifactRef, *, allow_head: bool = False) -> None:
    validation.require_id(f"{field_name}.artifact_id", ref.artifact_id)
    validation.require_revision(f"{field_name}.revision", ref.revision, allow_head=allow_head)


def require_head(field_name: str, ref: ArtifactRef, head: int | None) -> None:
    """Search and context read current heads only: `ref` must name the head it found."""
    if head is None:
        raise NotFoundError(
            f"{field_name}: memory {ref.artifact_id} does not exist",
            reason="MEMORY_NOT_FOUND",
            metadata={"artifactId": ref.artifact_id, "field": field_name},
        )
    if ref.revision != head:
        raise FailedPreconditionError(
            f"{field_name}: {ref} is not the head (revision {head}); search and context read "
            "only current heads — re-read the head, or use Expand for an exact old revision",
            reason="MEMORY_NOT_AT_HEAD",
            subject=field_name,
            metadata={
                "field": field_name,
                "artifactId": ref.artifact_id,
                "headRevision": str(head),
            },
        )


def heads_named(memories: Sequence[ArtifactRef], heads: Mapping[str, int]) -> list[ArtifactRef]:
    """The head each of `memories` names (revision 0: whatever the head is now), duplicates
    removed in order; a memory that is missing or not at the revision named is refused."""
    named = []
    for i, ref in enumerate(memories):
        head = heads.get(ref.artifact_id)
        at = ArtifactRef(ref.artifact_id, ref.revision or head or 0)
        require_head(f"memories[{i}]", at, head)
        named.append(at)
    return list(dict.fromkeys(named))


def checked_reason(field_name: str, reason: str | None) -> str | None:
    """A write's reason, normalized, and refused when it holds a secret."""
    reason = validation.normalize_reason(field_name, reason)
    refuse_secret(field_name, reason)
    return reason


def entry_spec(field_name: str, entry: EntryInput) -> lifecycle.EntryInputSpec:
    """One entry input checked like any Remember entry (ids, content, secrets), as a spec."""
    if entry.target is not None:
        validation.require_id(f"{field_name}.entry.entry_id", entry.target.entry_id)
        validation.require_id(f"{field_name}.entry.entry_version_id", entry.target.entry_version_id)
    content = validation.entry_content(
        field_name,
        kind=entry.kind,
        text=entry.text,
        sources=entry.sources,
        artifacts=entry.artifacts,
        description=entry.description,
        tags=entry.tags,
    )
    reason = validation.normalize_reason(f"{field_name}.reason", entry.reason)
    refuse_secret(f"{field_name}.kind", content.kind)
    refuse_secret(f"{field_name}.text", content.text)
    refuse_secret(f"{field_name}.description", content.description)
    for j, tag in enumerate(content.tags):
        refuse_secret(f"{field_name}.tags[{j}]", tag)
    refuse_secret(f"{field_name}.reason", reason)
    return lifecycle.EntryInputSpec(entry.target, content, reason)


def require_entry_count(count: int) -> None:
    if count > validation.MAX_ENTRIES_PER_REQUEST:
        raise InvalidArgumentError(
            "entries", f"at most {validation.MAX_ENTRIES_PER_REQUEST} entries per request"
        )


def resolve_remember_mode(
    mode: RememberMode, entries: Sequence[EntryInput], lineage: Lineage
) -> RememberMode:
    """The mode that runs: AUTO is APPEND with entries, EXTRACT with evidence alone."""
    has_evidence = bool(lineage.sources or lineage.artifacts)
    if mode is RememberMode.AUTO:
        if entries:
            return RememberMode.APPEND
        mode = RememberMode.EXTRACT if has_evidence else mode
    if mode is RememberMode.APPEND and not entries:
        raise InvalidArgumentError("entries", "APPEND needs at least one entry")
    if mode is RememberMode.EXTRACT:
        if entries:
            raise InvalidArgumentError("entries", "EXTRACT takes evidence, not entries")
        if not has_evidence:
            raise InvalidArgumentError("sources", "EXTRACT needs at least one source or artifact")
        return mode
    if not entries:
        raise InvalidArgumentError(
            "entries",
            "nothing to remember: give entries, or evidence to extract from",
            reason="NOTHING_TO_REMEMBER",
        )
    return RememberMode.APPEND


def checked_state_change(
    memory: ArtifactRef, entries: Sequence[EntryRef], reason: str | None
) -> tuple[list[EntryRef], str | None]:
    """The inputs of Forget and Reactivate: a memory, the entries to change, a reason."""
    require_memory_ref("memory", memory)
    if not entries:
        raise InvalidArgumentError("entries", "name at least one entry")
    require_entry_count(len(entries))
    for i, ref in enumerate(entries):
        validation.require_id(f"entries[{i}].entry_id", ref.entry_id)
        validation.require_id(f"entries[{i}].entry_version_id", ref.entry_version_id)
    return list(entries), checked_reason("reason", reason)


async def checked_source_fields(
    kind: str,
    uri: str,
    media_type: str,
    content: bytes,
    metadata: dict[str, str],
    memory_id: str | None,
) -> tuple[str, str, str, tuple[tuple[str, str], ...]]:
    """A source's kind, uri, media type and metadata as stored, after every check (secrets
    included)."""
    if memory_id is not None:
        validation.require_id("memory_id", memory_id)
    kind = validation.normalize_kind("kind", kind)
    uri = nfc(uri).strip()
    media_type = media_type.strip()
    if len(uri.encode("utf-8")) > MAX_URI_BYTES:
        raise InvalidArgumentError("uri", f"exceeds {MAX_URI_BYTES} UTF-8 bytes")
    if len(media_type) > MAX_MEDIA_TYPE_CHARS or not media_type.isascii():
        raise InvalidArgumentError(
            "media_type", f"must be ASCII, at most {MAX_MEDIA_TYPE_CHARS} characters"
        )
    if len(content) > validation.MAX_SOURCE_BYTES:
        raise InvalidArgumentError(
            "content", f"exceeds {validation.MAX_SOURCE_BYTES} bytes", reason="SOURCE_TOO_LARGE"
        )
    meta = validation.validate_metadata("metadata", metadata)
    await refuse_secrets_in_source(kind, uri, media_type, content, meta)
    return kind, uri, media_type, meta


def checked_search(
    query: str,
    memories: Sequence[ArtifactRef],
    limit: int,
    filters: EntryFilter,
    min_score: float | None,
) -> tuple[str, int, EntryFilter]:
    """A Search request's query, limit (0: the default) and filters, after every check."""
    filters = checked_filter(filters)
    if min_score is not None and not (math.isfinite(min_score) and min_score >= 0):
        raise InvalidArgumentError("min_score", "must be a finite number >= 0")
    query = nfc(query).strip()
    if not query:
        raise InvalidArgumentError("query", "is required", reason="EMPTY_QUERY")
    if len(query) > validation.MAX_QUERY_CHARS:
        raise InvalidArgumentError("query", f"exceeds {validation.MAX_QUERY_CHARS} characters")
    limit = limit or DEFAULT_SEARCH_LIMIT
    if not 1 <= limit <= MAX_SEARCH_LIMIT:
        raise InvalidArgumentError("limit", f"must be between 1 and {MAX_SEARCH_LIMIT}")
    if not memories:
        raise InvalidArgumentError("memories", "select at least one memory")
    if len(memories) > MAX_SEARCH_MEMORIES:
        raise InvalidArgumentError("memories", f"at most {MAX_SEARCH_MEMORIES} memories")
    for i, ref in enumerate(memories):
        require_memory_ref(f"memories[{i}]", ref, allow_head=True)
    return query, limit, filters


def check_citations(citations: Sequence[Citation]) -> None:
    if not citations:
        raise InvalidArgumentError("citations", "give at least one citation")
    if len(citations) > MAX_CITATIONS:
        raise InvalidArgumentError("citations", f"at most {MAX_CITATIONS} citations")
    for i, c in enumerate(citations):
        require_memory_ref(f"citations[{i}].memory_ref", c.memory_ref)
        validation.require_id(f"citations[{i}].entry_id", c.entry_id)
        validation.require_id(f"citations[{i}].entry_version_id", c.entry_version_id)


def checked_since_revision(memory: ArtifactRef, since: int | ArtifactRef | None) -> int | None:
    """The revision a Changes request starts after (None: only the target revision)."""
    if since is None:
        return None
    if isinstance(since, ArtifactRef):
        if since.artifact_id != memory.artifact_id:
            raise InvalidArgumentError(
                "since_ref.artifact_id",
                f"names memory {since.artifact_id}, not {memory.artifact_id}",
                reason="CROSS_MEMORY_SINCE",
            )
        return validation.require_since_revision("since_ref.revision", since.revision)
    return validation.require_since_revision("since_revision", since)
