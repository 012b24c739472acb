"""The export file (JSON Lines), written by export.py and read by importer.py.

Format `powercontext-memory-export`, version 2: one RFC 8785 canonical JSON object per line,
told apart by its "record" member:

    header         format, format_version, exported_at, source_backend, analyzer,
                   embedding_profile (or null), memories (how many the file holds)
    source         source_id, kind, uri, media_type, metadata, content_base64, content_hash,
                   created_at_ms
    memory         artifact_id, head: the memory's section starts (its revisions 1..head follow)
    entry_version  memory_artifact_id, entry_id, entry_version_id, version, previous_version_id,
                   created_in_revision, content {artifact_refs, kind, source_refs, text} (and
                   description, tags for versions that have a description: hash v2),
                   entry_content_hash
    revision       artifact_id, revision, changes, content_hash, lineage, committed_at_ms
    label          memory_artifact_id, label_version, label, set_at_ms: every label ever set on
                   the memory, versions 1..n in order, right after its last revision
                   (export_labels.py)
    trailer        lines, counts (per record kind), sha256 of every line before it

Version 1 is version 2 without label records (its trailer counts no "label"); it is still read.
A version 1 reader refuses a version 2 file by its header, rather than at its first label.

These are the API's model objects, not table rows, so the file does not change when the storage
layout does. A revision carries its compact changes and the content_hash of its full canonical
MemoryContent: the manifest is the previous one with the changes applied (domain/replay.py),
so a file grows with the changes, not with revisions x entries. Every record comes after what
it references: a source before the first version or revision citing it, a revision's new entry
versions right before it, and a revision after the revisions of other memories it cites.
Hashes make each record self-verifying; the trailer's digest catches truncation and edits to
what no hash covers (timestamps, order). Neither is a signature: whoever edits the file can
recompute them.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any, TypeVar

from ..backends import codec
from ..backends.port import EntryVersionRow, SourceRow
from ..domain.canonical import canonical_json
from ..domain.errors import MemoryServiceError
from ..domain.models import (
    ArtifactRef,
    ChangeOp,
    EntryVersion,
    Lineage,
    MemoryChange,
    Source,
    SourceRef,
)
from ..domain.validation import MAX_SAFE_INTEGER, require_hash, require_id

FORMAT = "powercontext-memory-export"
FORMAT_VERSION = 2
KINDS = ("source", "memory", "entry_version", "revision", "label")
# The record kinds each readable format version may hold (and its trailer counts).
KINDS_OF_VERSION: dict[int, tuple[str, ...]] = {1: KINDS[:4], 2: KINDS}

R = TypeVar("R")
T = TypeVar("T")


class ExportFileError(Exception):
    """The file is not a valid export; `line` is the 1-based line it was found on."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


class RecordError(ValueError):
    """A record's content is invalid (the reader adds the line number)."""


# -- writing -------------------------------------------------------------------------------------


class Writer:
    """Writes canonical lines, counting them and hashing them for the trailer."""

    def __init__(self, out: IO[bytes]) -> None:
        self._out = out
        self._digest = hashlib.sha256()
        self.lines = 0
        self.counts: Counter[str] = Counter()

    def write(self, record: dict[str, Any]) -> None:
        data = canonical_json(record) + b"\n"
        self._out.write(data)
        self._digest.update(data)
        self.lines += 1
        self.counts[record["record"]] += 1

    def finish(self) -> None:
        counts = {kind: self.counts[kind] for kind in KINDS}
        trailer = {
            "counts": counts,
            "lines": self.lines,
            "record": "trailer",
            "sha256": self._digest.hexdigest(),
        }
        self._out.write(canonical_json(trailer) + b"\n")


def header_record(
    *,
    exported_at: str,
    source_backend: str,
    analyzer: str,
    embedding_profile: dict[str, Any] | None,
    memories: int,
) -> dict[str, Any]:
    return {
        "analyzer": analyzer,
        "embedding_profile": embedding_profile,
        "exported_at": exported_at,
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "memories": memories,
        "record": "header",
        "source_backend": source_backend,
    }


def source_record(source: Source) -> dict[str, Any]:
    return {
        "content_base64": base64.b64encode(source.content).decode("ascii"),
        "content_hash": source.content_hash,
        "created_at_ms": source.created_at_ms,
        "kind": source.kind,
        "media_type": source.media_type,
        "metadata": dict(source.metadata),
        "record": "source",
        "source_id": source.source_id,
        "uri": source.uri,
    }


def memory_record(artifact_id: str, head: int) -> dict[str, Any]:
    return {"artifact_id": artifact_id, "head": head, "record": "memory"}


def version_record(version: EntryVersion) -> dict[str, Any]:
    return {
        "content": version.content.to_json(),
        "created_in_revision": version.created_in_revision,
        "entry_content_hash": version.entry_content_hash,
        "entry_id": version.entry_id,
        "entry_version_id": version.entry_version_id,
        "memory_artifact_id": version.memory_artifact_id,
        "previous_version_id": version.previous_version_id,
        "record": "entry_version",
        "version": version.version,
    }


@dataclass(frozen=True, slots=True)
class RevisionRecord:
    artifact_id: str
    revision: int
    changes: tuple[MemoryChange, ...]
    content_hash: str
    lineage: Lineage
    committed_at_ms: int

    def to_json(self) -> dict[str, Any]:
        return {
            "artifact_id": self.artifact_id,
            "changes": [c.to_json() for c in self.changes],
            "committed_at_ms": self.committed_at_ms,
            "content_hash": self.content_hash,
            "lineage": self.lineage.to_json(),
            "record": "revision",
            "revision": self.revision,
        }


# -- reading -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Header:
    format_version: int
    exported_at: str
    source_backend: str
    analyzer: str
    embedding_profile: dict[str, Any] | None
    memories: int


def read_lines(stream: IO[bytes]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, record) of every line between header and trailer, header first.

    Checks the frame: a header first, a trailer last whose counts and digest match the lines
    before it, nothing after it. The trailer is checked when the caller reaches the end.
    """
    digest = hashlib.sha256()
    counts: Counter[str] = Counter()
    number = 0
    ended = False
    kinds: tuple[str, ...] = KINDS  # narrowed by the header's format version
    for raw in stream:
        number += 1
        if ended:
            raise ExportFileError(number, "data after the trailer")
        if not raw.endswith(b"\n"):
            raise ExportFileError(number, "the line is cut off: the file is truncated")
        try:
            record = json.loads(raw)
        except ValueError:
            raise ExportFileError(number, "not a JSON object") from None
        kind = record.get("record") if isinstance(record, dict) else None
        if number == 1 and kind != "header":
            raise ExportFileError(1, f"not a {FORMAT} file (no header)")
        if number == 1 and type(record.get("format_version")) is int:
            # An unreadable version is refused when the header is parsed.
            kinds = KINDS_OF_VERSION.get(record["format_version"], KINDS)
        if kind == "trailer":
            _check_trailer(number, record, number - 1, counts, digest.hexdigest(), kinds)
            ended = True
            continue
        if number > 1 and kind not in kinds:
            raise ExportFileError(number, f"unknown record kind {kind!r}")
        digest.update(raw)
        counts[str(kind)] += 1
        yield number, record
    if number == 0:
        raise ExportFileError(1, f"the file is empty (not a {FORMAT} file)")
    if not ended:
        raise ExportFileError(
            number, "the file ends without a trailer: it is truncated (or still being written)"
        )


def _check_trailer(
    number: int,
    record: dict[str, Any],
    lines: int,
    counts: Counter[str],
    digest: str,
    kinds: tuple[str, ...],
) -> None:
    expected = {"counts": {k: counts[k] for k in kinds}, "lines": lines, "sha256": digest}
    got = {k: record.get(k) for k in expected}
    if got["lines"] != lines or got["counts"] != expected["counts"]:
        raise ExportFileError(
            number,
            f"the trailer counts {got['lines']} lines, the file has {lines}: lines "
            "were added or removed",
        )
    if got["sha256"] != digest:
        raise ExportFileError(
            number, "the digest of the lines does not match the trailer: the file was edited"
        )


def _fields(record: dict[str, Any], *names: str) -> None:
    expected = {"record", *names}
    if set(record) != expected:
        extra = sorted(set(record) - expected)
        missing = sorted(expected - set(record))
        raise RecordError(
            f"{record['record']} record has unexpected fields {extra} or lacks {missing}"
        )


def _str(record: dict[str, Any], name: str) -> str:
    value = record[name]
    if not isinstance(value, str):
        raise RecordError(f"{name} must be a string")
    return value


def _int(record: dict[str, Any], name: str, minimum: int = 0) -> int:
    value = record[name]
    if type(value) is not int or not minimum <= value <= MAX_SAFE_INTEGER:
        raise RecordError(f"{name} must be an integer >= {minimum} and <= {MAX_SAFE_INTEGER}")
    return value


def _id(record: dict[str, Any], name: str) -> str:
    try:
        return require_id(name, _str(record, name))
    except MemoryServiceError as error:
        raise RecordError(f"{name} {record[name]!r}: {error.message}") from None


def _hash(record: dict[str, Any], name: str) -> str:
    try:
        return require_hash(name, _str(record, name))
    except MemoryServiceError as error:
        raise RecordError(f"{name}: {error.message}") from None


def parse_header(record: dict[str, Any]) -> Header:
    if record.get("format") != FORMAT:
        raise RecordError(f"not a {FORMAT} file")
    version = record.get("format_version")
    if type(version) is not int or version not in KINDS_OF_VERSION:
        raise RecordError(
            f"format version {version!r}; this program reads versions 1 to {FORMAT_VERSION}"
        )
    _fields(
        record,
        "analyzer",
        "embedding_profile",
        "exported_at",
        "format",
        "format_version",
        "memories",
        "source_backend",
    )
    profile = record["embedding_profile"]
    if profile is not None and not isinstance(profile, dict):
        raise RecordError("embedding_profile must be an object or null")
    return Header(
        version,
        _str(record, "exported_at"),
        _str(record, "source_backend"),
        _str(record, "analyzer"),
        profile,
        _int(record, "memories"),
    )


def parse_source(record: dict[str, Any]) -> Source:
    """A source whose record hash is recomputed from its content (codec's rule)."""
    _fields(
        record,
        "content_base64",
        "content_hash",
        "created_at_ms",
        "kind",
        "media_type",
        "metadata",
        "source_id",
        "uri",
    )
    try:
        content = base64.b64decode(_str(record, "content_base64"), validate=True)
    except binascii.Error:
        raise RecordError("content_base64 is not base64") from None
    metadata = record["metadata"]
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise RecordError("metadata must be an object of strings")
    row = SourceRow(
        source_id=_id(record, "source_id"),
        kind=_str(record, "kind"),
        uri=_str(record, "uri"),
        media_type=_str(record, "media_type"),
        content=content,
        metadata=canonical_json(metadata).decode("utf-8"),
        content_hash=_hash(record, "content_hash"),
        created_at_ms=_int(record, "created_at_ms"),
    )
    return _verified(codec.source_from_row, row, f"source {row.source_id}")


def parse_memory(record: dict[str, Any]) -> tuple[str, int]:
    _fields(record, "artifact_id", "head")
    return _id(record, "artifact_id"), _int(record, "head", 1)


def parse_version(record: dict[str, Any]) -> EntryVersion:
    """An entry version whose entry_content_hash is recomputed from its canonical content."""
    _fields(
        record,
        "content",
        "created_in_revision",
        "entry_content_hash",
        "entry_id",
        "entry_version_id",
        "memory_artifact_id",
        "previous_version_id",
        "version",
    )
    content = record["content"]
    # v1 content (no description) or v2 (description and tags): EntryContent.to_json.
    if not isinstance(content, dict) or set(content) not in (_CONTENT_V1_KEYS, _CONTENT_V2_KEYS):
        raise RecordError(
            "content must be an object of artifact_refs, kind, source_refs, text "
            "(and description, tags)"
        )
    description, tags = _description_and_tags(content)
    previous = record["previous_version_id"]
    row = EntryVersionRow(
        memory_artifact_id=_id(record, "memory_artifact_id"),
        entry_id=_id(record, "entry_id"),
        entry_version_id=_id(record, "entry_version_id"),
        version=_int(record, "version", 1),
        previous_version_id=None if previous is None else _id(record, "previous_version_id"),
        kind=_str(content, "kind"),
        text=_str(content, "text"),
        source_refs=_refs_json(content, "source_refs"),
        artifact_refs=_refs_json(content, "artifact_refs"),
        entry_content_hash=_hash(record, "entry_content_hash"),
        created_in_revision=_int(record, "created_in_revision", 1),
        description=description,
        tags=tags,
    )
    return _verified(codec.version_from_row, row, f"entry version {row.entry_version_id}")


_CONTENT_V1_KEYS = {"artifact_refs", "kind", "source_refs", "text"}
_CONTENT_V2_KEYS = _CONTENT_V1_KEYS | {"description", "tags"}


def _description_and_tags(content: dict[str, Any]) -> tuple[str | None, str | None]:
    """(description, tags as stored) of a version's content: (None, None) for v1 content."""
    if "description" not in content:
        return None, None
    tags = content["tags"]
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise RecordError("content.tags must be an array of strings")
    return _str(content, "description"), codec.tags_json(tags)


def _refs_json(content: dict[str, Any], name: str) -> str:
    refs = content[name]
    if not isinstance(refs, list) or not all(isinstance(r, dict) for r in refs):
        raise RecordError(f"content.{name} must be an array of objects")
    return canonical_json(refs).decode("utf-8")


def parse_revision(record: dict[str, Any]) -> RevisionRecord:
    _fields(
        record, "artifact_id", "changes", "committed_at_ms", "content_hash", "lineage", "revision"
    )
    changes = record["changes"]
    lineage = record["lineage"]
    if not isinstance(changes, list) or not isinstance(lineage, dict):
        raise RecordError("changes must be an array and lineage an object")
    parsed = RevisionRecord(
        artifact_id=_id(record, "artifact_id"),
        revision=_int(record, "revision", 1),
        changes=tuple(_change(c) for c in changes),
        content_hash=_hash(record, "content_hash"),
        lineage=_lineage(lineage),
        committed_at_ms=_int(record, "committed_at_ms"),
    )
    if canonical_json(parsed.to_json()) != canonical_json(record):
        raise RecordError("revision record does not have the canonical shape")
    return parsed


_CHANGE_KEYS = {"entry_id", "from_entry_version_id", "op", "reason", "to_entry_version_id"}


def _change(data: Any) -> MemoryChange:
    # merged_into_entry_id: only on a Merge's DEACTIVATE changes (absent otherwise).
    if not isinstance(data, dict) or set(data) - {"merged_into_entry_id"} != _CHANGE_KEYS:
        raise RecordError(
            "a change must be an object of entry_id, from/to_entry_version_id, op, reason "
            "(and merged_into_entry_id)"
        )
    try:
        op = ChangeOp(data["op"])
    except ValueError:
        raise RecordError(f"unknown change op {data['op']!r}") from None
    reason = data["reason"]
    if reason is not None and not isinstance(reason, str):
        raise RecordError("a change's reason must be a string or null")
    ids = {
        k: None if data[k] is None else _id(data, k)
        for k in ("from_entry_version_id", "to_entry_version_id")
    }
    merged_into = _id(data, "merged_into_entry_id") if "merged_into_entry_id" in data else None
    return MemoryChange(
        op,
        _id(data, "entry_id"),
        ids["from_entry_version_id"],
        ids["to_entry_version_id"],
        reason,
        merged_into,
    )


def _lineage(data: dict[str, Any]) -> Lineage:
    try:
        lineage = Lineage(
            _str(data, "operation"),
            tuple(
                SourceRef(_id(s, "source_id"), _hash(s, "content_hash")) for s in data["sources"]
            ),
            tuple(
                ArtifactRef(_id(a, "artifact_id"), _int(a, "revision", 1))
                for a in data["artifacts"]
            ),
        )
    except (KeyError, TypeError, AttributeError):
        raise RecordError("lineage must hold operation, sources and artifacts") from None
    if canonical_json(lineage.to_json()) != canonical_json(data):
        raise RecordError("lineage does not have the canonical shape")
    return lineage


def _verified(check: Callable[[R], T], row: R, what: str) -> T:
    """Run a codec check (recomputes the hash from canonical bytes) as a record error."""
    try:
        return check(row)
    except MemoryServiceError as error:
        detail = error.message.split(": ", 1)[-1]
        raise RecordError(f"{what}: {detail}") from None
