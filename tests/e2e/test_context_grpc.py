"""PrepareContext over a real gRPC channel: the raw RPC (block, entries, sections, heads,
server-timing, typed errors), the Python client (both faces) and `powercontext context`."""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_client import AsyncClient, Client, FailedPrecondition, InvalidArgument, NotFound
from powercontext_memory.domain import context_block as cb
from powercontext_memory.transport.server import RunningServer

from ..serving import CLIENT_COMMAND, server_env

RULE = "改文档时不用跑完整 make test，优先跑 make docs-test。"


async def _memory(stub: pb_grpc.MemoryServiceStub) -> types.ArtifactRef:
    response = await stub.Remember(
        pb.RememberRequest(
            entries=[
                types.EntryInput(kind="constraint", text=RULE),
                types.EntryInput(kind="preference", text="Use uv, not pip."),
                types.EntryInput(kind="fact", text="The docs are built by make docs."),
                types.EntryInput(kind="working_note", text="Turn 3: fixed the docs link."),
            ]
        )
    )
    return response.memory


def _details(error: grpc.aio.AioRpcError) -> tuple[str, list[str]]:
    """(ErrorInfo reason, BadRequest fields)."""
    reason, fields = "", []
    for key, value in error.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            for detail in status_pb2.Status.FromString(value).details:
                info, bad = error_details_pb2.ErrorInfo(), error_details_pb2.BadRequest()
                if detail.Unpack(info):
                    reason = info.reason
                elif detail.Unpack(bad):
                    fields = [v.field for v in bad.field_violations]
    return reason, fields


async def test_prepare_context_rpc(stub: pb_grpc.MemoryServiceStub) -> None:
    memory = await _memory(stub)
    call = stub.PrepareContext(
        pb.PrepareContextRequest(
            memories=[types.ArtifactRef(artifact_id=memory.artifact_id)], query="docs"
        )
    )
    response = await call
    assert list(response.memories) == [memory]
    sections = [(e.kind, e.section) for e in response.entries]
    assert sections == [
        ("constraint", types.CONTEXT_SECTION_RULES),
        ("preference", types.CONTEXT_SECTION_RULES),
        *[(e.kind, e.section) for e in response.entries[2:]],
    ]
    assert ("fact", types.CONTEXT_SECTION_RELEVANT) in sections
    assert sections[-1][0] == "working_note"
    assert response.block.startswith(cb.OPEN_TAG + "\n") and response.block.endswith(
        cb.CLOSE_TAG + "\n"
    )
    assert len(response.block.encode()) <= cb.DEFAULT_BUDGET_BYTES and RULE in response.block
    assert response.omitted_entries == 0
    timing = dict(await call.trailing_metadata())
    assert timing["server-timing"].startswith("context;dur=")

    expanded = await stub.Expand(pb.ExpandRequest(citations=[e.citation for e in response.entries]))
    assert [x.version.text for x in expanded.entries] == [e.text for e in response.entries]


@pytest.mark.parametrize(
    ("request_fields", "code", "reason", "field"),
    [
        (
            {"budget_bytes": 100},
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_ARGUMENT",
            "budget_bytes",
        ),
        ({"query": "q" * 1001}, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ARGUMENT", "query"),
        ({"stale": True}, grpc.StatusCode.FAILED_PRECONDITION, "MEMORY_NOT_AT_HEAD", None),
        ({"missing": True}, grpc.StatusCode.NOT_FOUND, "MEMORY_NOT_FOUND", None),
        ({"none": True}, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ARGUMENT", "memories"),
    ],
)
async def test_prepare_context_errors(
    stub: pb_grpc.MemoryServiceStub,
    request_fields: dict[str, object],
    code: grpc.StatusCode,
    reason: str,
    field: str | None,
) -> None:
    memory = await _memory(stub)
    later = await stub.Remember(
        pb.RememberRequest(memory=memory, entries=[types.EntryInput(kind="fact", text="more")])
    )
    request = pb.PrepareContextRequest(memories=[later.memory])
    if "budget_bytes" in request_fields:
        request.budget_bytes = int(request_fields["budget_bytes"])  # type: ignore[call-overload]
    if "query" in request_fields:
        request.query = str(request_fields["query"])
    if "stale" in request_fields:
        request.memories[0].CopyFrom(memory)
    if "missing" in request_fields:
        request.memories[0].artifact_id = "mem_art_" + "0" * 32
    if "none" in request_fields:
        del request.memories[:]
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await stub.PrepareContext(request)
    assert error.value.code() == code
    got_reason, fields = _details(error.value)
    assert got_reason == reason
    if field is not None:
        assert fields == [field]


@pytest.fixture
async def client(server: RunningServer) -> AsyncIterator[AsyncClient]:
    async with AsyncClient(f"127.0.0.1:{server.port}") as c:
        yield c


async def test_python_client_both_faces(client: AsyncClient, server: RunningServer) -> None:
    memory = await _memory(client.stub)
    response = await client.prepare_context([memory.artifact_id], query="docs", budget_bytes=600)
    assert response.block and len(response.block.encode()) <= 600
    assert response.omitted_entries >= 1  # 600 bytes hold only some of the four lines
    with pytest.raises(InvalidArgument) as bad:
        await client.prepare_context([memory.artifact_id], budget_bytes=70000)
    assert bad.value.field_violations[0][0] == "budget_bytes"
    with pytest.raises(NotFound):
        await client.prepare_context(["mem_art_" + "1" * 32])

    def blocking() -> None:  # the server runs on this test's loop: the sync face in a thread
        with Client(f"127.0.0.1:{server.port}") as sync:
            same = sync.prepare_context([memory], query="docs", budget_bytes=600)
            assert same.block == response.block  # same input, same bytes
            head = sync.head(memory.artifact_id)
            sync.remember(head, [types.EntryInput(kind="fact", text="newer")])
            with pytest.raises(FailedPrecondition):
                sync.prepare_context([head])

    await asyncio.to_thread(blocking)


async def test_cli_prints_the_block(
    client: AsyncClient, server: RunningServer, tmp_path: Path
) -> None:
    memory = await _memory(client.stub)
    env = server_env({"POWERCONTEXT_ENDPOINT": f"127.0.0.1:{server.port}"})

    async def run(*args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
        done = await asyncio.to_thread(
            subprocess.run,
            [CLIENT_COMMAND, *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
        assert done.returncode == code, done.stderr
        return done

    expected = await client.prepare_context([memory.artifact_id], query="docs")
    shown = await run("context", memory.artifact_id, "--query", "docs")
    assert shown.stdout == expected.block
    listed = await run("-o", "json", "context", memory.artifact_id, "--budget", "700")
    as_json = json.loads(listed.stdout)
    assert len(as_json["block"].encode()) <= 700
    assert as_json["entries"][0]["section"] == "CONTEXT_SECTION_RULES"
    refused = await run("context", memory.artifact_id, "--budget", "10", code=2)
    assert "budget_bytes" in refused.stderr and "Traceback" not in refused.stderr
