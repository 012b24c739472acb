"""Source content windows: one answer (GetSource, PutSource's echo) carries at most a chunk.

PutSource accepts up to validation.MAX_SOURCE_BYTES, more than a default gRPC client receives in
one message, so a larger source is read in chunks (content_offset, content_limit). The window is
cut from content the backend has already verified against content_hash, and every other field
describes the whole source.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .domain.errors import InvalidArgumentError
from .domain.models import Source
from .listing import GET_MEMORY_MAX_BYTES

# GetMemory's bound: a default client receives 4 MiB, and the rest of a Source (uri, metadata)
# stays well under the remaining MiB.
MAX_CONTENT_CHUNK_BYTES = GET_MEMORY_MAX_BYTES


@dataclass(frozen=True, slots=True)
class SourceChunk:
    """`source.content` holds the window; every other field of `source` is the whole source's."""

    source: Source
    content_size: int
    content_truncated: bool


def checked_limit(content_offset: int, content_limit: int) -> int:
    """The number of bytes to answer at most (0 asks for the largest chunk), after the checks
    that need no stored source."""
    if content_offset < 0:
        raise InvalidArgumentError("content_offset", "must be >= 0 (0: from the start)")
    if content_limit < 0:
        raise InvalidArgumentError(
            "content_limit", f"must be 0..{MAX_CONTENT_CHUNK_BYTES} (0: the largest chunk)"
        )
    if content_limit > MAX_CONTENT_CHUNK_BYTES:
        raise InvalidArgumentError(
            "content_limit",
            f"is {content_limit} bytes; the largest chunk is {MAX_CONTENT_CHUNK_BYTES} (ask for "
            "the rest from content_offset + the bytes received)",
        )
    return content_limit or MAX_CONTENT_CHUNK_BYTES


def content_window(source: Source, content_offset: int, limit: int) -> SourceChunk:
    """At most `limit` bytes of the verified `source`'s content from `content_offset` on.

    An offset at or past the end is refused, except 0 for an empty source: every answer but
    that one carries at least one byte, so a reader asking from offset + received always ends.
    """
    size = len(source.content)
    if content_offset > size or (content_offset == size and size > 0):
        raise InvalidArgumentError(
            "content_offset", f"is {content_offset}, past the end of the content ({size} bytes)"
        )
    end = min(size, content_offset + limit)
    if content_offset == 0 and end == size:
        return SourceChunk(source, size, False)
    window = dataclasses.replace(source, content=source.content[content_offset:end])
    return SourceChunk(window, size, end < size)


def first_chunk(source: Source) -> SourceChunk:
    """What PutSource echoes: the content's first chunk, so its answer reaches a default client."""
    return content_window(source, 0, MAX_CONTENT_CHUNK_BYTES)
