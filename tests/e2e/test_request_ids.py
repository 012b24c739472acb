"""Request ids over a real channel: echoed (unary: trailers, streams: headers) and on every
log line of the call, access lines included (this module's server has them on)."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_memory.logs import log_handler
from powercontext_memory.transport.server import SERVICE_NAME, RunningServer

from .conftest import running_server

Stub = pb_grpc.MemoryServiceStub
KEY = "x-request-id"


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[RunningServer]:
    """The e2e server (conftest), with access lines on."""
    async with running_server(tmp_path / "memory.sqlite3", access_log=True) as running:
        yield running


def echoed(metadata: Any) -> str:
    values = [value for key, value in metadata or () if key == KEY]
    assert len(values) == 1, metadata
    return str(values[0])


async def test_given_id_is_echoed_on_unary_stream_and_error(stub: Stub) -> None:
    call = stub.GetCapabilities(pb.GetCapabilitiesRequest(), metadata=((KEY, "client-1"),))
    await call
    assert echoed(await call.trailing_metadata()) == "client-1"

    created = await stub.Remember(
        pb.RememberRequest(entries=[types.EntryInput(kind="fact", text="x")])
    )
    stream = stub.Changes(
        pb.ChangesRequest(memory=created.memory, since_revision=0),
        metadata=((KEY, "client-2:stream"),),
    )
    assert len([m async for m in stream]) == 1
    assert echoed(await stream.initial_metadata()) == "client-2:stream"

    failing = stub.GetMemory(
        pb.GetMemoryRequest(memory=types.ArtifactRef(artifact_id="mem_art_none", revision=0)),
        metadata=((KEY, "client-3"),),
    )
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await failing
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    assert echoed(caught.value.trailing_metadata()) == "client-3"


async def test_generated_ids_are_present_and_unique(stub: Stub) -> None:
    ids = []
    for _ in range(5):
        call = stub.GetCapabilities(pb.GetCapabilitiesRequest())
        await call
        ids.append(echoed(await call.trailing_metadata()))
    assert len(set(ids)) == 5
    assert all(len(i) == 32 and int(i, 16) >= 0 for i in ids)


@pytest.mark.parametrize("given", ["has space", "x" * 129, ""])
async def test_unusable_ids_are_replaced(stub: Stub, given: str) -> None:
    call = stub.GetCapabilities(pb.GetCapabilitiesRequest(), metadata=((KEY, given),))
    await call
    replacement = echoed(await call.trailing_metadata())
    assert replacement != given and len(replacement) == 32


async def test_the_longest_usable_id_is_kept(stub: Stub) -> None:
    given = "A-z0~!" + "9" * 122
    call = stub.GetCapabilities(pb.GetCapabilitiesRequest(), metadata=((KEY, given),))
    await call
    assert echoed(await call.trailing_metadata()) == given


@pytest.fixture
def json_log() -> Iterator[io.StringIO]:
    """Everything logged in this process meanwhile, as JSON lines (INFO and up)."""
    stream = io.StringIO()
    handler = log_handler("json", stream)
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        yield stream
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def lines(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


async def test_every_log_line_of_a_request_carries_its_id(
    stub: Stub,
    server: RunningServer,
    json_log: io.StringIO,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def broken(source_id: str) -> None:
        raise RuntimeError("the store fell over")

    monkeypatch.setattr(server.memory_service, "get_source", broken)
    method = f"/{SERVICE_NAME}/GetSource"
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.GetSource(
            pb.GetSourceRequest(source_id="src_payload_marker"), metadata=((KEY, "trace-me"),)
        )
    assert caught.value.code() == grpc.StatusCode.INTERNAL

    # The access line is written when the call ends on the server, which may be just after
    # the client has its answer: wait for it (bounded), then check both lines.
    for _ in range(200):
        logged = [line for line in lines(json_log) if line.get("request_id") == "trace-me"]
        if len(logged) >= 2:
            break
        await asyncio.sleep(0.01)
    # The service's own error line (with its traceback), then the access line.
    error, access = logged
    assert error["level"] == "ERROR"
    assert error["logger"] == "powercontext_memory.transport.errors"
    assert error["method"] == method
    assert "RuntimeError: the store fell over" in error["exception"]
    assert access["logger"] == "powercontext_memory.access"
    assert access["level"] == "INFO"
    assert access["method"] == method
    assert access["code"] == "INTERNAL"
    assert access["duration_ms"] > 0
    assert access["message"].startswith(f"{method} INTERNAL ")
    assert set(access) == {
        "time", "level", "logger", "message", "request_id", "method", "code", "duration_ms"
    }  # fmt: skip
    assert "src_payload_marker" not in json_log.getvalue()  # never the request payload


async def test_one_access_line_per_call_without_payloads(stub: Stub, json_log: io.StringIO) -> None:
    created = await stub.Remember(
        pb.RememberRequest(entries=[types.EntryInput(kind="fact", text="payload text 7f3a")]),
        metadata=((KEY, "write-1"),),
    )
    await stub.GetMemory(pb.GetMemoryRequest(memory=created.memory), metadata=((KEY, "read-1"),))
    access = [line for line in lines(json_log) if line["logger"] == "powercontext_memory.access"]
    assert [(a["request_id"], a["method"].rsplit("/", 1)[1], a["code"]) for a in access] == [
        ("write-1", "Remember", "OK"),
        ("read-1", "GetMemory", "OK"),
    ]
    assert "payload text 7f3a" not in json_log.getvalue()
    assert created.memory.artifact_id not in json_log.getvalue()
    assert all("request_id" in line for line in lines(json_log))  # nothing untagged
