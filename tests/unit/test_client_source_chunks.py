"""The Python client's get_source over chunked GetSource answers (a FakeTransport that cuts
them with the server's own window code), its hash check against the server's hash function,
and the bound that makes every answer fit what a default client receives."""

from __future__ import annotations

import hashlib
from typing import Any

import grpc
import pytest

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext_client import AsyncClient, Backoff, Client, FakeCall, FakeTransport, rpc_error
from powercontext_client.errors import DataLoss
from powercontext_client.source_hash import source_content_hash
from powercontext_memory.backends.codec import source_record_hash
from powercontext_memory.domain.models import Source
from powercontext_memory.source_chunks import (
    MAX_CONTENT_CHUNK_BYTES,
    checked_limit,
    content_window,
)
from powercontext_memory.transport import convert

MiB = 1024 * 1024
# What a gRPC client receives by default (grpc's and grpcurl's max receive message size).
DEFAULT_CLIENT_RECEIVE_BYTES = 4 * MiB
NO_PAUSE = Backoff(initial=0.0, maximum=0.0)


def patterned(size: int) -> bytes:
    """Bytes whose every position differs from its neighbours', so a misplaced chunk shows."""
    return (bytes(range(251)) * (size // 251 + 1))[:size]


def stored(
    content: bytes,
    *,
    kind: str = "file",
    uri: str = "repo://blob",
    media_type: str = "",
    metadata: dict[str, str] | None = None,
) -> Source:
    """A Source as the server stores it, hashed by the server's own function."""
    meta = tuple(sorted((metadata or {}).items()))
    content_hash = source_record_hash(kind, uri, media_type, content, meta)
    return Source("src_" + content_hash[:32], kind, uri, media_type, content, meta, content_hash, 1)


def answer(source: Source, request: pb.GetSourceRequest) -> pb.GetSourceResponse:
    """GetSource as the servicer answers it, with the server's window code."""
    limit = checked_limit(request.content_offset, request.content_limit)
    chunk = content_window(source, request.content_offset, limit)
    return pb.GetSourceResponse(
        source=convert.source_pb(chunk.source),
        content_size=chunk.content_size,
        content_truncated=chunk.content_truncated,
    )


def serving(source: Source) -> Any:
    return {"GetSource": lambda call: answer(source, call.request)}


def offsets(fake: FakeTransport) -> list[tuple[int, int]]:
    return [(r.content_offset, r.content_limit) for r in fake.requests("GetSource")]


@pytest.mark.parametrize(
    "record",
    [
        {},
        {"metadata": {"9": "nine", "10": "ten", "a.b-c_d": ""}},
        {"uri": 'repo://"quoted"\\path', "media_type": "text/markdown; charset=utf-8"},
        {"kind": "user_note", "metadata": {"note": "é\u0301 中文 😀 \u2028 \x7f \x00\x01\x1f\t\n"}},
        # Outside what PutSource accepts, but the canonical order must still agree: UTF-16.
        {"metadata": {"\U0001f600": "a", "\uff61": "b", "z": "c"}},
    ],
)
def test_the_client_computes_the_servers_content_hash(record: dict[str, Any]) -> None:
    for content in (b"", b"\x00\xff binary", "文字".encode()):
        source = stored(content, **record)
        assert source_content_hash(convert.source_pb(source)) == source.content_hash
    other = convert.source_pb(stored(b"x", **record))
    other.content = b"y"
    assert source_content_hash(other) != other.content_hash


def test_the_largest_answer_fits_what_a_default_client_receives() -> None:
    # The largest record PutSource accepts besides its content: uri, media type, metadata.
    metadata = {f"k{i:02d}" + "x" * 61: "v" * 4096 for i in range(64)}
    source = stored(b"\xff" * (8 * MiB), uri="u" * 4096, media_type="m" * 255, metadata=metadata)
    first = answer(source, pb.GetSourceRequest(source_id=source.source_id))
    assert len(first.source.content) == MAX_CONTENT_CHUNK_BYTES
    assert first.ByteSize() < DEFAULT_CLIENT_RECEIVE_BYTES


@pytest.mark.parametrize("face", [Client, AsyncClient])
async def test_get_source_reassembles_a_large_source_from_its_chunks(face: Any) -> None:
    source = stored(patterned(7 * MiB), metadata={"commit": "abc"})
    fake = FakeTransport(serving(source))
    client = face(transport=fake)
    read = client.get_source(source.source_id)
    whole = (await read) if face is AsyncClient else read
    assert whole == convert.source_pb(source)
    assert offsets(fake) == [(0, 0), (3 * MiB, 0), (6 * MiB, 0)]


def test_a_source_of_one_answer_is_read_once_and_returned_as_it_came() -> None:
    source = stored(b"a note")
    fake = FakeTransport(serving(source))
    assert Client(transport=fake).get_source(source.source_id) == convert.source_pb(source)
    assert offsets(fake) == [(0, 0)]


def test_each_chunk_is_a_read_retried_on_its_own() -> None:
    source = stored(bytes(range(256)) * (16 * 1024))  # 4 MiB: two chunks
    failed: list[int] = []

    def flaky(call: FakeCall) -> pb.GetSourceResponse:
        if call.request.content_offset and not failed:
            failed.append(call.request.content_offset)
            raise rpc_error(grpc.StatusCode.UNAVAILABLE, "restarting", reason="SHUTTING_DOWN")
        return answer(source, call.request)

    fake = FakeTransport({"GetSource": flaky})
    whole = Client(transport=fake, backoff=NO_PAUSE).get_source(source.source_id)
    assert whole.content == source.content
    assert offsets(fake) == [(0, 0), (3 * MiB, 0), (3 * MiB, 0)]
    assert len(fake.sleeps) == 1


def test_get_source_chunk_passes_the_window_through() -> None:
    source = stored(b"0123456789")
    fake = FakeTransport(serving(source))
    chunk = Client(transport=fake).get_source_chunk(
        source.source_id, content_offset=2, content_limit=3
    )
    assert (chunk.source.content, chunk.content_size, chunk.content_truncated) == (
        b"234",
        10,
        True,
    )
    assert chunk.source.content_hash == source.content_hash
    assert offsets(fake) == [(2, 3)]


def _tampered(source: Source, change: Any) -> Any:
    """A handler whose answers after the first pass through `change(response)`."""

    def get_source(call: FakeCall) -> pb.GetSourceResponse:
        response = answer(source, call.request)
        if call.request.content_offset:
            change(response)
        return response

    return {"GetSource": get_source}


def _flip_first_byte(response: pb.GetSourceResponse) -> None:
    response.source.content = (
        bytes([response.source.content[0] ^ 1]) + (response.source.content[1:])
    )


def _other_hash(response: pb.GetSourceResponse) -> None:
    response.source.content_hash = hashlib.sha256(b"another").hexdigest()


def _other_size(response: pb.GetSourceResponse) -> None:
    response.content_size += 1


def _empty_but_truncated(response: pb.GetSourceResponse) -> None:
    response.source.content = b""
    response.content_truncated = True


def _past_the_end(response: pb.GetSourceResponse) -> None:
    response.source.content += b"extra"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_flip_first_byte, "the reassembled record does not match content_hash"),
        (_other_hash, "names another content_hash"),
        (_other_size, "names another content_size"),
        (_empty_but_truncated, "is empty but not the last"),
        (_past_the_end, "runs past content_size"),
    ],
)
def test_chunks_that_do_not_make_the_source_are_data_loss(change: Any, message: str) -> None:
    source = stored(patterned(3 * MiB + 100))
    fake = FakeTransport(_tampered(source, change))
    with pytest.raises(DataLoss, match=message) as caught:
        Client(transport=fake).get_source(source.source_id)
    assert caught.value.code == grpc.StatusCode.DATA_LOSS
    assert source.source_id in caught.value.message
    assert len(fake.requests("GetSource")) == 2  # never retried: a retry reads the same
