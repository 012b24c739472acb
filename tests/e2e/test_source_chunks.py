"""The largest source PutSource accepts is read back by clients with gRPC's defaults: a channel
without options and grpcurl (4 MiB received per message) read it in GetSource chunks; the
Python client and `powercontext sources get` hand back the whole content."""

from __future__ import annotations

import asyncio
import base64
import json

import grpc
import pytest

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext_client import AsyncClient
from powercontext_client.errors import error_info
from powercontext_memory.domain.validation import MAX_SOURCE_BYTES
from powercontext_memory.transport.server import SERVICE_NAME, RunningServer

from ..serving import CLIENT_COMMAND, server_env
from .test_transport import GRPCURL

MiB = 1024 * 1024
CHUNK = 3 * MiB
CONTENT = (bytes(range(251)) * (MAX_SOURCE_BYTES // 251 + 1))[:MAX_SOURCE_BYTES]
# grpcurl 1.8.6 is built with grpc-go 1.44, whose receive-window tuning can race the opening of
# a call and reset it (FLOW_CONTROL_ERROR on the client's side) on an answer over 64 KiB when
# the machine is busy; grpcurl then says this. Such a run is tried again, a few times at most.
RACED_WINDOW = "Message: unexpected EOF"
GRPCURL_TRIES = 3


@pytest.fixture
async def source_id(server: RunningServer) -> str:
    async with AsyncClient(f"127.0.0.1:{server.port}") as client:
        stored = await client.put_source(CONTENT, kind="file", uri="repo://big.bin")
    return stored.source.source_id


async def _run(*command: str, env: dict[str, str] | None = None) -> tuple[int, bytes, str]:
    # Async subprocess: the server runs on this event loop, so blocking would deadlock.
    proc = await asyncio.create_subprocess_exec(
        *command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env
    )
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode is not None
    return proc.returncode, out, err.decode()


async def test_a_default_channel_reads_the_largest_source_in_chunks(
    server: RunningServer, source_id: str
) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:  # no options
        stub = pb_grpc.MemoryServiceStub(channel)
        first = await stub.GetSource(pb.GetSourceRequest(source_id=source_id))
        assert (first.content_size, first.content_truncated) == (len(CONTENT), True)
        assert first.source.content == CONTENT[:CHUNK]
        parts, offset, answers = [first.source.content], CHUNK, 1
        while True:
            chunk = await stub.GetSource(
                pb.GetSourceRequest(source_id=source_id, content_offset=offset)
            )
            assert chunk.source.content_hash == first.source.content_hash
            parts.append(chunk.source.content)
            offset += len(chunk.source.content)
            answers += 1
            if not chunk.content_truncated:
                break
        assert b"".join(parts) == CONTENT and answers == 3

        with pytest.raises(grpc.aio.AioRpcError) as past:
            await stub.GetSource(
                pb.GetSourceRequest(source_id=source_id, content_offset=len(CONTENT))
            )
        assert past.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert error_info(past.value) == ("INVALID_ARGUMENT", {"field": "content_offset"})


async def test_a_default_channel_receives_the_answer_to_the_largest_put(
    server: RunningServer,
) -> None:
    """PutSource echoes the first chunk, so storing the largest source never fails on the way
    back (before, the whole echo was over a default client's 4 MiB receive limit)."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:  # no options
        stub = pb_grpc.MemoryServiceStub(channel)
        request = pb.PutSourceRequest(kind="file", uri="repo://put-big.bin", content=CONTENT)
        stored = await stub.PutSource(request)
        assert (stored.created, stored.content_size, stored.content_truncated) == (
            True,
            len(CONTENT),
            True,
        )
        assert stored.source.content == CONTENT[:CHUNK]
        rest = await stub.GetSource(
            pb.GetSourceRequest(source_id=stored.source.source_id, content_offset=CHUNK)
        )
        assert rest.source.content_hash == stored.source.content_hash
        again = await stub.PutSource(request)
        assert (again.created, again.source.source_id) == (False, stored.source.source_id)

        small = await stub.PutSource(pb.PutSourceRequest(kind="file", content=b"tiny"))
        assert (small.source.content, small.content_size, small.content_truncated) == (
            b"tiny",
            4,
            False,
        )


async def test_grpcurl_reads_the_first_chunk_and_the_rest(
    server: RunningServer, source_id: str
) -> None:
    address = f"127.0.0.1:{server.port}"
    method = f"{SERVICE_NAME}/GetSource"

    async def get_source(request: dict[str, object]) -> tuple[int, bytes, str]:
        command = (str(GRPCURL), "-plaintext", "-d", json.dumps(request), address, method)
        for _ in range(GRPCURL_TRIES):
            code, out, err = await _run(*command)
            if RACED_WINDOW not in err:
                break
        return code, out, err

    code, out, err = await get_source({"source_id": source_id})
    assert code == 0, err
    first = json.loads(out)
    assert first["content_size"] == str(len(CONTENT)) and first["content_truncated"] is True
    assert base64.b64decode(first["source"]["content"]) == CONTENT[:CHUNK]

    code, out, err = await get_source({"source_id": source_id, "content_offset": 2 * CHUNK})
    assert code == 0, err
    last = json.loads(out)
    assert "content_truncated" not in last  # false: proto3 JSON leaves it out
    assert base64.b64decode(last["source"]["content"]) == CONTENT[2 * CHUNK :]

    code, _, err = await get_source({"source_id": source_id, "content_limit": CHUNK + 1})
    assert code != 0
    assert "Code: InvalidArgument" in err and '"field":"content_limit"' in err


async def test_the_cli_prints_the_whole_content(server: RunningServer, source_id: str) -> None:
    env = server_env({"POWERCONTEXT_ENDPOINT": f"127.0.0.1:{server.port}"})
    code, out, err = await _run(CLIENT_COMMAND, "sources", "get", source_id, "--content", env=env)
    assert code == 0, err
    assert out == CONTENT
    code, out, err = await _run(CLIENT_COMMAND, "sources", "get", source_id, env=env)
    assert code == 0, err
    assert f"kind file, {len(CONTENT)} bytes" in out.decode()


async def test_the_python_client_returns_the_whole_source(
    server: RunningServer, source_id: str
) -> None:
    async with AsyncClient(f"127.0.0.1:{server.port}") as client:
        whole = await client.get_source(source_id)
        first = await client.get_source_chunk(source_id)
    assert whole.content == CONTENT
    assert whole.content_hash == first.source.content_hash
    assert len(first.source.content) == CHUNK and first.content_truncated
