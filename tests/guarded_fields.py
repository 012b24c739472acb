"""Every string, bytes and map field of every MemoryService request: guarded by the secret
guard, or exempt with the reason why a secret in it can never be stored.

tests/conformance/test_guarded_fields.py walks the request descriptors (`request_fields`) and
fails when a field is in neither table, so a new field cannot be forgotten; it then sends a
real secret through each GUARDED field over gRPC (expecting the refusal named here) and through
each EXEMPT field (expecting no trace of it in any table). Paths are proto field names joined
by dots, through repeated and nested messages; a map is `NAME.key` and `NAME.value`.
"""

from __future__ import annotations

from collections.abc import Iterator

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from powercontext.memory.v1 import memory_service_pb2 as pb

SERVICE = pb.DESCRIPTOR.services_by_name["MemoryService"]

# RPC -> request field path -> the `field` a refusal names (ErrorInfo metadata, BadRequest).
# A repeated field is tried at index 0; a map value under the key "note".
GUARDED: dict[str, dict[str, str]] = {
    "PutSource": {
        "kind": "kind",
        "uri": "uri",
        "media_type": "media_type",
        "content": "content",
        "metadata.key": "metadata",  # the key alone: a refusal must not echo a secret key
        "metadata.value": "metadata['note']",
    },
    "Remember": {
        "entries.kind": "entries[0].kind",
        "entries.text": "entries[0].text",
        "entries.reason": "entries[0].reason",
        "entries.description": "entries[0].description",
        "entries.tags": "entries[0].tags[0]",
        "request_id": "request_id",  # kept with the write's outcome for a day
    },
    "Forget": {"reason": "reason", "request_id": "request_id"},
    "Reactivate": {"reason": "reason", "request_id": "request_id"},
    "Organize": {"request_id": "request_id"},
    # The result's fields are flat in the request; the service checks them as `result`.
    "Merge": {
        "kind": "result.kind",
        "text": "result.text",
        "description": "result.description",
        "tags": "result.tags[0]",
        "reason": "reason",
    },
    "Restore": {"reason": "reason"},
    "UndoMerge": {"reason": "reason"},
    "SetMemoryLabel": {"label": "label"},
}

ID = "an id that must name an existing object (ids are made by the server): else refused"
HASH = "a content hash: 64 lowercase hex characters, equal to the stored source's"
PAGE = "a signed page token the server made: anything else is refused"
PREVIEW = "a signed preview token the server made: anything else is refused"
READ = "read only: the request is answered, nothing of it is stored"

# RPC -> request field path -> why no guard is needed.
EXEMPT: dict[str, dict[str, str]] = {
    "PutSource": {"memory_id": ID},
    "GetSource": {"source_id": READ},
    "Remember": {
        "memory.artifact_id": ID,
        "sources.source_id": ID,
        "sources.content_hash": HASH,
        "artifacts.artifact_id": ID,
        "entries.entry.entry_id": ID,
        "entries.entry.entry_version_id": ID,
        "entries.sources.source_id": ID,
        "entries.sources.content_hash": HASH,
        "entries.artifacts.artifact_id": ID,
        "extractors": "names of the server's own extractors: any other name is refused",
    },
    "Forget": {
        "memory.artifact_id": ID,
        "entries.entry_id": ID,
        "entries.entry_version_id": ID,
    },
    "Reactivate": {
        "memory.artifact_id": ID,
        "entries.entry_id": ID,
        "entries.entry_version_id": ID,
    },
    "Organize": {"memory.artifact_id": ID},
    "GetMemory": {"memory.artifact_id": READ},
    "Changes": {"memory.artifact_id": READ, "since_ref.artifact_id": READ},
    "Search": {"query": READ, "memories.artifact_id": READ, "kinds": READ, "tags": READ},
    "Expand": {
        "citations.memory_ref.artifact_id": READ,
        "citations.entry_id": READ,
        "citations.entry_version_id": READ,
    },
    "GetCapabilities": {},
    "PrepareContext": {"memories.artifact_id": READ, "query": READ},
    "GetRecallManifest": {
        "memory.artifact_id": READ,
        "page_token": PAGE,
        "kinds": READ,
        "tags": READ,
    },
    "ListEntries": {"memory.artifact_id": READ, "page_token": PAGE, "kinds": READ, "tags": READ},
    "Merge": {
        "memory.artifact_id": ID,
        "inputs.entry_id": ID,
        "inputs.entry_version_id": ID,
        "sources.source_id": ID,
        "sources.content_hash": HASH,
        "artifacts.artifact_id": ID,
    },
    "Restore": {
        "memory.artifact_id": ID,
        "entry_id": ID,
        "entry_version_id": ID,
        "preview_token": PREVIEW,
    },
    "UndoMerge": {"memory.artifact_id": ID, "entry_id": ID, "preview_token": PREVIEW},
    "PreviewRestore": {"memory.artifact_id": READ, "entry_id": READ, "entry_version_id": READ},
    "ListMemories": {"page_token": PAGE},
    "SetMemoryLabel": {"memory_id": ID},
}

# Exempt fields that DO keep a secret as sent (found by the exempt-field check): RPC -> path ->
# where it lands. Each stays a strict expected failure there until the guard covers it.
STORED_UNGUARDED: dict[str, dict[str, str]] = {}

_TEXT_TYPES = (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES)
MAP_KEY = "note"  # the key a map value is sent under


def request_fields(
    descriptor: Descriptor, prefix: str = "", within: tuple[str, ...] = ()
) -> Iterator[str]:
    """The path of every string or bytes field under `descriptor`, nested messages and map
    entries (`key`, `value`) included (`within`: the message types on the way here)."""
    within = (*within, descriptor.full_name)
    for field in descriptor.fields:
        path = prefix + field.name
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            if field.message_type.full_name in within:  # a cycle: its paths never end
                raise AssertionError(f"{path}: a recursive message needs a rule here")
            yield from request_fields(field.message_type, path + ".", within)
        elif field.type in _TEXT_TYPES:
            yield path


def every_request_field() -> dict[str, list[str]]:
    """RPC -> its request's field paths, for every RPC of the service."""
    return {m.name: list(request_fields(m.input_type)) for m in SERVICE.methods}


def with_value(request: Message, path: str, value: str) -> Message:
    """A copy of `request` with `value` at `path` (bytes fields get it UTF-8 encoded): in the
    first item of a repeated message (one is added when there is none), as the only item of a
    repeated string, as a new key of a map (with the value "x") or as the value of MAP_KEY."""
    copy = type(request)()
    copy.CopyFrom(request)
    _place(copy, path.split("."), value)
    return copy


def _place(message: Message, parts: list[str], value: str) -> None:
    field = message.DESCRIPTOR.fields_by_name[parts[0]]
    target = getattr(message, field.name)
    if field.type == FieldDescriptor.TYPE_MESSAGE and field.message_type.GetOptions().map_entry:
        if parts[1:] == ["key"]:
            target[value] = "x"
        else:
            target[MAP_KEY] = value
    elif field.type == FieldDescriptor.TYPE_MESSAGE:
        if field.is_repeated:
            target = target[0] if len(target) else target.add()
        _place(target, parts[1:], value)
    else:
        scalar = value.encode() if field.type == FieldDescriptor.TYPE_BYTES else value
        if field.is_repeated:
            target[:] = [scalar]
        else:
            setattr(message, field.name, scalar)
