"""Changes streams over real gRPC: flow control, the caps on open streams, and deadlines.

History is read in pages as the client consumes it (a client that never reads makes the server
read a page or two, not the history); open streams are capped for the server and per token;
a client's deadline ends the server's work for the call.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import grpc
import pytest

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_client.errors import error_info
from powercontext_memory.api import EntryInput
from powercontext_memory.domain.lifecycle import EntryRef
from powercontext_memory.memory import MemoryService
from powercontext_memory.observing.port import ServiceObserver
from powercontext_memory.security.tokens import Scope, issue
from powercontext_memory.streams import StreamLimits
from powercontext_memory.transport.server import RunningServer

from .conftest import running_server

Stub = pb_grpc.MemoryServiceStub
WAIT = 10.0  # seconds: only a bound on waiting for something that must happen


class Pages(ServiceObserver):
    def __init__(self) -> None:
        self.pages = 0
        self.revisions = 0

    def history_page(self, revisions: int) -> None:
        self.pages += 1
        self.revisions += revisions


def _entry(text: str) -> EntryInput:
    return EntryInput(None, "fact", text)


async def _long_history(service: MemoryService, revisions: int) -> types.ArtifactRef:
    """`revisions` revisions whose messages are ~700 bytes each (a long forget reason)."""
    entries = [_entry(f"entry {i}") for i in range(revisions - 1)]
    created = await service.remember(None, [], [], entries)
    memory = created.memory
    assert memory is not None
    for result in created.results:
        target = EntryRef(result.entry_id, result.entry_version_id)
        written = await service.forget(memory, [target], "r" * 500)
        assert written.memory is not None
        memory = written.memory
    return types.ArtifactRef(artifact_id=memory.artifact_id, revision=memory.revision)


async def _until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting: {what}"
        await asyncio.sleep(0.01)


async def test_a_client_that_never_reads_holds_a_page_not_the_history(
    server: RunningServer,
) -> None:
    service = server.memory_service
    service.backend.history_page = 16
    pages = Pages()
    service.observe(pages)
    memory = await _long_history(service, 300)  # 19 pages of ~11 KB
    # Without BDP probing the client's HTTP/2 window stays at its initial 64 KB.
    options = [("grpc.http2.bdp_probe", 0)]
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}", options=options) as ch:
        call = pb_grpc.MemoryServiceStub(ch).Changes(
            pb.ChangesRequest(memory=memory, since_revision=0)
        )
        await call.initial_metadata()  # the stream is open; nothing is read
        await _until(lambda: pages.pages >= 1, "the first page")
        # Its blocked write holds no turn: another client replays the history meanwhile.
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as other:
            replay = pb_grpc.MemoryServiceStub(other).Changes(
                pb.ChangesRequest(memory=memory, since_revision=0), timeout=WAIT
            )
            assert len([m async for m in replay]) == 300
        # The replay read its 19 pages while the first stream could have read ahead: an eager
        # server would have read about 19 for each by now, a held one only a few.
        assert pages.pages <= 19 + 6, pages.pages
        received = [m.revision.memory_ref.revision async for m in call]
    assert received == list(range(1, 301))
    # Each stream read every page once at most; at least the held page was shared, and more
    # when the two streams happened to ask for the same page at once (history_pages.py).
    assert 19 <= pages.pages <= 19 * 2 - 1, pages.pages
    assert 300 <= pages.revisions <= 300 * 2 - 16, pages.revisions


async def test_a_deadline_ends_the_servers_work_on_the_stream(server: RunningServer) -> None:
    service = server.memory_service
    service.progress_interval = 3600.0  # only the deadline can end the feed
    ended = asyncio.Event()
    original = service.follow_changes

    async def tracked(*args: object) -> AsyncIterator[object]:
        try:
            async for item in original(*args):  # type: ignore[arg-type]
                yield item
        finally:
            ended.set()

    service.follow_changes = tracked  # type: ignore[assignment,method-assign]
    created = await service.remember(None, [], [], [_entry("watched")])
    assert created.memory is not None
    memory = types.ArtifactRef(artifact_id=created.memory.artifact_id, revision=1)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as ch:
        call = pb_grpc.MemoryServiceStub(ch).Changes(
            pb.ChangesRequest(memory=memory, follow=True), timeout=1.0
        )
        assert (await call.read()).revision.memory_ref == memory
        assert service.streams.total == 1
        with pytest.raises(grpc.aio.AioRpcError) as expired:
            await call.read()
        assert expired.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    await asyncio.wait_for(ended.wait(), WAIT)  # the server's feed ended with the call...
    await _until(lambda: service.streams.total == 0, "the stream's slot")  # ...and its slot


# -- the caps -----------------------------------------------------------------------------------


@pytest.fixture
async def authed(tmp_path: Path) -> AsyncIterator[RunningServer]:
    async with running_server(tmp_path / "memory.sqlite3", auth=True) as running:
        running.memory_service.streams = StreamLimits(max_streams=3, max_per_caller=2)
        yield running


async def _token(running: RunningServer, name: str) -> tuple[tuple[str, str]]:
    record, token = issue(name, Scope.READ, [], now_ms=time.time_ns() // 1_000_000)
    await running.memory_service.backend.add_access_token(record)
    return (("authorization", f"Bearer {token}"),)


async def test_open_streams_are_capped_per_token_and_for_the_server(
    authed: RunningServer,
) -> None:
    created = await authed.memory_service.remember(None, [], [], [_entry("followed")])
    assert created.memory is not None
    memory = types.ArtifactRef(artifact_id=created.memory.artifact_id, revision=1)
    first, second = await _token(authed, "first"), await _token(authed, "second")
    request = pb.ChangesRequest(memory=memory, follow=True)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{authed.port}") as ch:
        stub = pb_grpc.MemoryServiceStub(ch)

        async def follow(metadata: tuple[tuple[str, str]]) -> grpc.aio.UnaryStreamCall:
            call = stub.Changes(request, metadata=metadata, timeout=WAIT * 3)
            await asyncio.wait_for(call.read(), WAIT)  # open: its first message arrived
            return call

        async def refused(metadata: tuple[tuple[str, str]]) -> dict[str, str]:
            call = stub.Changes(request, metadata=metadata, timeout=WAIT)
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await call.read()
            assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            reason, metadata_ = error_info(caught.value)
            assert reason == "TOO_MANY_STREAMS"
            return metadata_

        held = [await follow(first), await follow(first)]
        assert await refused(first) == {"scope": "caller", "limit": "2"}
        held.append(await follow(second))  # another token still gets one
        assert await refused(second) == {"scope": "server", "limit": "3"}
        held.pop(0).cancel()  # a closed stream gives its slot back
        await _until(lambda: authed.memory_service.streams.total == 2, "the freed slot")
        held.append(await follow(second))
        for call in held:
            call.cancel()
