"""GetSource's content window on every backend: a source larger than one answer is read in
chunks that reassemble exactly; the window's bounds, its refusals (naming the field), the
access rules and the hash check hold whatever window is asked for."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable

import pytest

from powercontext_memory.domain.errors import (
    DataLossError,
    InvalidArgumentError,
    MemoryServiceError,
    NotFoundError,
)
from powercontext_memory.domain.models import Source
from powercontext_memory.memory import MemoryService
from powercontext_memory.security.caller import acting_as
from powercontext_memory.source_chunks import SourceChunk

from .conftest import Harness
from .test_source_access import MISSING, World, limited

MiB = 1024 * 1024


def patterned(size: int) -> bytes:
    """Bytes whose every position differs from its neighbours', so a misplaced chunk shows."""
    return (bytes(range(251)) * (size // 251 + 1))[:size]


async def _put(service: MemoryService, content: bytes) -> Source:
    source, _ = await service.put_source("file", "repo://blob", "", content, {"n": "1"}, None)
    return source


async def _reassembled(service: MemoryService, source_id: str, limit: int = 0) -> bytes:
    """The content read as a client does: from offset + received until not truncated."""
    parts: list[bytes] = []
    offset = 0
    while True:
        chunk = await service.get_source_chunk(source_id, offset, limit)
        parts.append(chunk.source.content)
        offset += len(chunk.source.content)
        if not chunk.content_truncated:
            return b"".join(parts)


async def _refused(call: Awaitable[object]) -> MemoryServiceError:
    with pytest.raises(MemoryServiceError) as refused:
        await call
    return refused.value


async def test_a_7_mib_source_reassembles_exactly_from_its_chunks(service: MemoryService) -> None:
    content = patterned(7 * MiB)
    stored = await _put(service, content)
    first = await service.get_source_chunk(stored.source_id)
    assert (first.content_size, first.content_truncated) == (len(content), True)
    assert first.source.content == content[: 3 * MiB]
    # Every other field describes the whole source.
    whole = await service.get_source(stored.source_id)
    assert first.source == dataclasses.replace(whole, content=content[: 3 * MiB])
    assert await _reassembled(service, stored.source_id) == content
    assert await _reassembled(service, stored.source_id, MiB + 1) == content
    assert whole.content == content


async def test_a_small_source_at_offset_0_answers_as_before(service: MemoryService) -> None:
    stored = await _put(service, b"a note")
    assert await service.get_source_chunk(stored.source_id) == SourceChunk(stored, 6, False)


async def test_the_window_at_its_boundaries(service: MemoryService) -> None:
    exact = await _put(service, patterned(3 * MiB))
    assert await service.get_source_chunk(exact.source_id) == SourceChunk(exact, 3 * MiB, False)

    over = await _put(service, patterned(3 * MiB + 1))
    first = await service.get_source_chunk(over.source_id)
    assert (len(first.source.content), first.content_size, first.content_truncated) == (
        3 * MiB,
        3 * MiB + 1,
        True,
    )
    rest = await service.get_source_chunk(over.source_id, 3 * MiB)
    assert (rest.source.content, rest.content_truncated) == (over.content[-1:], False)
    last = await service.get_source_chunk(over.source_id, 3 * MiB + 1 - 1, 1)
    assert (last.source.content, last.content_truncated) == (over.content[-1:], False)
    window = await service.get_source_chunk(over.source_id, 10, 5)
    assert (window.source.content, window.content_truncated) == (over.content[10:15], True)

    past = await _refused(service.get_source_chunk(over.source_id, 3 * MiB + 1))
    assert isinstance(past, InvalidArgumentError) and past.field == "content_offset"
    assert past.reason == "INVALID_ARGUMENT"

    empty = await _put(service, b"")
    assert await service.get_source_chunk(empty.source_id) == SourceChunk(empty, 0, False)
    beyond = await _refused(service.get_source_chunk(empty.source_id, 1))
    assert isinstance(beyond, InvalidArgumentError) and beyond.field == "content_offset"


async def test_a_bad_window_is_refused_naming_the_field(service: MemoryService) -> None:
    stored = await _put(service, b"a note")
    for offset, limit, field in [
        (-1, 0, "content_offset"),
        (0, -1, "content_limit"),
        (0, 3 * MiB + 1, "content_limit"),
        (2**63 - 1, 0, "content_offset"),
    ]:
        error = await _refused(service.get_source_chunk(stored.source_id, offset, limit))
        assert isinstance(error, InvalidArgumentError), (offset, limit)
        assert (error.field, error.reason, error.metadata) == (
            field,
            "INVALID_ARGUMENT",
            {"field": field},
        )
        assert str(error).startswith(f"{field}: ")


async def test_the_largest_limit_is_accepted(service: MemoryService) -> None:
    stored = await _put(service, b"a note")
    chunk = await service.get_source_chunk(stored.source_id, 2, 3 * MiB)
    assert (chunk.source.content, chunk.content_size, chunk.content_truncated) == (
        b"note",
        6,
        False,
    )


async def test_a_window_tells_a_limited_caller_nothing_of_another_memorys_source(
    service: MemoryService,
) -> None:
    w = await World(service).build()
    with acting_as(limited(w.a)):
        mine = await service.get_source_chunk(w.a_entry.source_id, 2, 3)
        assert mine.source.content_hash == w.a_entry.content_hash
        for offset in (0, 10**9):  # an offset past its end would tell that it exists
            missing = await _refused(service.get_source_chunk(MISSING, offset))
            other = await _refused(service.get_source_chunk(w.b_entry.source_id, offset))
            assert isinstance(other, NotFoundError) and other.reason == "SOURCE_NOT_FOUND"
            neutral = str(other).replace(w.b_entry.source_id, MISSING)
            assert (type(other), neutral) == (type(missing), str(missing))


async def test_every_window_of_a_tampered_source_is_data_loss(
    harness: Harness, service: MemoryService
) -> None:
    content = patterned(3 * MiB + 10)
    stored = await _put(service, content)
    tampered = content[:-1] + bytes([content[-1] ^ 1])  # only the last byte, outside chunk one
    harness.tamper.execute(
        "UPDATE sources SET content = ? WHERE source_id = ?", (tampered, stored.source_id)
    )
    for offset, limit in ((0, 0), (0, 1), (3 * MiB, 0)):
        error = await _refused(service.get_source_chunk(stored.source_id, offset, limit))
        assert isinstance(error, DataLossError), (offset, limit, error)
