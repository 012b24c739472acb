"""Tokens inside a real server (in process, real gRPC): the call runs as its token's caller,
refusals are counted like any call, and a revoked token ends the follow streams it opened."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_memory.security.caller import Caller, current_caller
from powercontext_memory.security.tokens import AccessToken, Scope, issue
from powercontext_memory.transport.server import SERVICE_NAME, RunningServer

from ..metrics_wait import settled
from .conftest import running_server
from .scrape import Scrape, scrape


class Tokens:
    def __init__(self, running: RunningServer) -> None:
        self.backend = running.memory_service.backend

    async def make(self, name: str, scope: Scope) -> tuple[AccessToken, tuple[tuple[str, str]]]:
        record, token = issue(name, scope, [], now_ms=time.time_ns() // 1_000_000)
        await self.backend.add_access_token(record)
        return record, (("authorization", f"Bearer {token}"),)


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[RunningServer]:
    # No token cache: a revocation is seen at the next check, not 5 s later.
    async with running_server(
        tmp_path / "memory.sqlite3", auth=True, token_cache_seconds=0, metrics_listen="127.0.0.1:0"
    ) as running:
        yield running


@pytest.fixture
async def stub(server: RunningServer) -> AsyncIterator[pb_grpc.MemoryServiceStub]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        yield pb_grpc.MemoryServiceStub(channel)


async def test_each_call_runs_as_its_tokens_caller(
    server: RunningServer, stub: pb_grpc.MemoryServiceStub
) -> None:
    tokens = Tokens(server)
    first, first_auth = await tokens.make("ci bot", Scope.READ)
    second, second_auth = await tokens.make("dashboard", Scope.READ)
    seen: list[Caller] = []
    service = server.memory_service
    original = service.capabilities

    def capabilities() -> Any:
        seen.append(current_caller())
        return original()

    service.capabilities = capabilities  # type: ignore[method-assign]
    await stub.GetCapabilities(pb.GetCapabilitiesRequest(), metadata=first_auth, timeout=10)
    await stub.GetCapabilities(pb.GetCapabilitiesRequest(), metadata=second_auth, timeout=10)
    assert seen == [Caller(first.token_id, "ci bot"), Caller(second.token_id, "dashboard")]


async def test_refusals_are_counted_by_code(
    server: RunningServer, stub: pb_grpc.MemoryServiceStub
) -> None:
    _, read = await Tokens(server).make("reader", Scope.READ)
    request = pb.RememberRequest(entries=[types.EntryInput(kind="fact", text="t")])
    for metadata, code in [((), "UNAUTHENTICATED"), (read, "PERMISSION_DENIED")]:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub.Remember(request, metadata=metadata, timeout=10)
        assert refused.value.code().name == code
    assert server.metrics_endpoint is not None
    port = server.metrics_endpoint.port

    def refusals(scraped: Scrape) -> dict[str, float]:
        return {
            code: scraped.value(
                "powercontext_requests_total", service=SERVICE_NAME, method="Remember", code=code
            )
            for code in ("UNAUTHENTICATED", "PERMISSION_DENIED", "OK")
        }

    # A refusal is counted as the call ends on the server, maybe after its client has it.
    expected = {"UNAUTHENTICATED": 1, "PERMISSION_DENIED": 1, "OK": 0}
    await settled(lambda: scrape(port), refusals, expected)


async def test_a_revoked_token_ends_its_follow_stream_at_the_next_message(
    server: RunningServer, stub: pb_grpc.MemoryServiceStub
) -> None:
    tokens = Tokens(server)
    _, admin = await tokens.make("admin", Scope.ADMIN)
    follower, read = await tokens.make("follower", Scope.READ)
    entry = [types.EntryInput(kind="fact", text="first")]
    created = await stub.Remember(pb.RememberRequest(entries=entry), metadata=admin, timeout=10)
    stream = stub.Changes(
        pb.ChangesRequest(memory=created.memory, follow=True), metadata=read, timeout=30
    )
    first = await stream.read()
    assert first.revision.memory_ref.revision == 1
    assert await tokens.backend.revoke_access_token(follower.token_id, time.time_ns() // 10**6)
    entry = [types.EntryInput(kind="fact", text="second")]
    await stub.Remember(
        pb.RememberRequest(memory=created.memory, entries=entry), metadata=admin, timeout=10
    )
    with pytest.raises(grpc.aio.AioRpcError) as ended:
        while True:
            message = await stream.read()
            assert message is grpc.aio.EOF or message.WhichOneof("event") == "progress"
            if message is grpc.aio.EOF:
                break
    assert ended.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert "revoked" in (ended.value.details() or "")
