"""Input rules (docs/api.md: IDs, text, reason, kind, refs). Every check names the bad field."""

from __future__ import annotations

import re
from collections.abc import Iterable

from . import descriptions
from .canonical import nfc
from .errors import InvalidArgumentError
from .models import (
    ArtifactRef,
    EntryContent,
    SourceRef,
    normalize_artifact_refs,
    normalize_source_refs,
)

MAX_ID_LENGTH = 128
MAX_TEXT_BYTES = 8192
MAX_REASON_CODE_POINTS = 512
MAX_KIND_LENGTH = 64
MAX_QUERY_CHARS = 1000
MAX_ENTRIES_PER_REQUEST = 1000
MAX_REFS_PER_LIST = 256
MAX_SOURCE_BYTES = 8 * 1024 * 1024
MAX_METADATA_ITEMS = 64
# Every integer a request carries into canonical JSON or the database must be one RFC 8785
# (I-JSON) can encode exactly: at most 2^53 - 1. Larger revisions used to reach the encoder
# and answer INTERNAL; they are refused here, naming the field.
MAX_SAFE_INTEGER = 2**53 - 1

_ID = re.compile(r"[A-Za-z0-9_.:\-]{1,128}")
_KIND = re.compile(r"[A-Za-z0-9_.:\-]{1,64}")
_METADATA_KEY = re.compile(r"[A-Za-z0-9_.\-]{1,64}")
_HASH = re.compile(r"[0-9a-f]{64}")


def require_id(field: str, value: str) -> str:
    """IDs are ASCII (letters, digits, `_ . : -`), 1..128 characters, compared byte-wise."""
    if not value:
        raise InvalidArgumentError(field, "is required")
    if len(value) > MAX_ID_LENGTH or not _ID.fullmatch(value):
        raise InvalidArgumentError(
            field, "must be 1-128 ASCII letters, digits or '_.:-'", reason="INVALID_ID"
        )
    return value


def require_hash(field: str, value: str) -> str:
    if not _HASH.fullmatch(value):
        raise InvalidArgumentError(
            field, "must be 64 lowercase hex characters", reason="INVALID_HASH"
        )
    return value


def require_revision(field: str, value: int, *, allow_head: bool = False) -> int:
    lowest = 0 if allow_head else 1
    if not lowest <= value <= MAX_SAFE_INTEGER:
        expected = ">= 0 (0 = head)" if allow_head else ">= 1"
        raise InvalidArgumentError(
            field, f"must be {expected} and <= {MAX_SAFE_INTEGER}", reason="INVALID_REVISION"
        )
    return value


def require_since_revision(field: str, value: int) -> int:
    """An exclusive lower bound of history: 0 (the whole history) up to 2^53 - 1."""
    if not 0 <= value <= MAX_SAFE_INTEGER:
        raise InvalidArgumentError(
            field,
            f"must be >= 0 (0 = whole history) and <= {MAX_SAFE_INTEGER}",
            reason="INVALID_REVISION",
        )
    return value


def normalize_text(field: str, value: str) -> str:
    """NFC then trim; non-empty; at most 8192 UTF-8 bytes."""
    text = nfc(value).strip()
    if not text:
        raise InvalidArgumentError(field, "must not be empty after trimming", reason="EMPTY_TEXT")
    size = len(text.encode("utf-8"))
    if size > MAX_TEXT_BYTES:
        raise InvalidArgumentError(
            field, f"is {size} UTF-8 bytes; the limit is {MAX_TEXT_BYTES}", reason="TEXT_TOO_LONG"
        )
    return text


def normalize_reason(field: str, value: str | None) -> str | None:
    """NFC then trim; empty means no reason; at most 512 code points."""
    if value is None:
        return None
    reason = nfc(value).strip()
    if not reason:
        return None
    if len(reason) > MAX_REASON_CODE_POINTS:
        raise InvalidArgumentError(
            field,
            f"is {len(reason)} code points; the limit is {MAX_REASON_CODE_POINTS}",
            reason="REASON_TOO_LONG",
        )
    return reason


def normalize_kind(field: str, value: str) -> str:
    """Kind is an open string (fact, preference, ...); unknown kinds are kept as they are."""
    kind = value.strip()
    if not kind:
        raise InvalidArgumentError(field, "is required")
    if not _KIND.fullmatch(kind):
        raise InvalidArgumentError(
            field, "must be 1-64 ASCII letters, digits or '_.:-'", reason="INVALID_KIND"
        )
    return kind


def entry_content(
    field: str,
    *,
    kind: str,
    text: str,
    sources: Iterable[SourceRef],
    artifacts: Iterable[ArtifactRef],
    description: str | None,
    tags: Iterable[str],
) -> EntryContent:
    """The content of a new entry version from unvalidated input (`field` names the entry,
    e.g. "entries[0]"): its description is the given one or derived from the normalized text
    before anything is hashed, so every new version hashes as v2."""
    checked_kind = normalize_kind(f"{field}.kind", kind)
    checked_text = normalize_text(f"{field}.text", text)
    return EntryContent(
        checked_kind,
        checked_text,
        validate_source_refs(f"{field}.sources", sources),
        validate_artifact_refs(f"{field}.artifacts", artifacts),
        descriptions.describe(f"{field}.description", description, checked_text),
        descriptions.normalize_tags(f"{field}.tags", tags),
    )


def validate_source_refs(field: str, refs: Iterable[SourceRef]) -> tuple[SourceRef, ...]:
    items = list(refs)
    if len(items) > MAX_REFS_PER_LIST:
        raise InvalidArgumentError(field, f"has more than {MAX_REFS_PER_LIST} refs")
    for i, ref in enumerate(items):
        require_id(f"{field}[{i}].source_id", ref.source_id)
        require_hash(f"{field}[{i}].content_hash", ref.content_hash)
    ids: dict[str, str] = {}
    for i, ref in enumerate(items):
        if ids.setdefault(ref.source_id, ref.content_hash) != ref.content_hash:
            raise InvalidArgumentError(
                f"{field}[{i}]", "names one source with two different hashes"
            )
    return normalize_source_refs(items)


def validate_artifact_refs(field: str, refs: Iterable[ArtifactRef]) -> tuple[ArtifactRef, ...]:
    items = list(refs)
    if len(items) > MAX_REFS_PER_LIST:
        raise InvalidArgumentError(field, f"has more than {MAX_REFS_PER_LIST} refs")
    for i, ref in enumerate(items):
        require_id(f"{field}[{i}].artifact_id", ref.artifact_id)
        require_revision(f"{field}[{i}].revision", ref.revision)
    return normalize_artifact_refs(items)


def validate_metadata(field: str, metadata: dict[str, str]) -> tuple[tuple[str, str], ...]:
    if len(metadata) > MAX_METADATA_ITEMS:
        raise InvalidArgumentError(field, f"has more than {MAX_METADATA_ITEMS} items")
    for key, value in metadata.items():
        if not _METADATA_KEY.fullmatch(key):
            raise InvalidArgumentError(
                f"{field}[{key!r}]", "keys must be 1-64 ASCII letters, digits or '_.-'"
            )
        if len(value.encode("utf-8")) > 4096:
            raise InvalidArgumentError(f"{field}[{key!r}]", "value exceeds 4096 UTF-8 bytes")
    return tuple(sorted((k, nfc(v)) for k, v in metadata.items()))
