"""A Source's content_hash, computed the way the server does (SHA-256 of its canonical record).

The record is the RFC 8785 canonical JSON of {content_sha256, kind, media_type, metadata, uri}
after a fixed prefix; its values are all strings, so the canonical form is short to write here
and the client needs none of the server's code.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable

from powercontext.memory.v1 import types_pb2 as types

SOURCE_CONTENT_PREFIX = b"powercontext:source-content:v1\x00"


def _string(value: str) -> str:
    # With ensure_ascii off, json escapes exactly what RFC 8785 escapes, the same way.
    return json.dumps(value, ensure_ascii=False)


def _object(items: Iterable[tuple[str, str]]) -> str:
    # RFC 8785 orders members by the UTF-16 code units of their names.
    ordered = sorted(items, key=lambda item: item[0].encode("utf-16-be"))
    return "{" + ",".join(f"{_string(name)}:{value}" for name, value in ordered) + "}"


def source_content_hash(source: types.Source) -> str:
    """The content_hash the server derives from `source`'s kind, uri, media type, metadata and
    content (its whole content: a chunk hashes to something else)."""
    metadata = _object((key, _string(value)) for key, value in source.metadata.items())
    record = _object(
        [
            ("content_sha256", _string(hashlib.sha256(source.content).hexdigest())),
            ("kind", _string(source.kind)),
            ("media_type", _string(source.media_type)),
            ("metadata", metadata),
            ("uri", _string(source.uri)),
        ]
    )
    return hashlib.sha256(SOURCE_CONTENT_PREFIX + record.encode("utf-8")).hexdigest()
