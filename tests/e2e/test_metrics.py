"""Prometheus metrics: real calls over a real channel to a real server, then real HTTP scrapes."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from pathlib import Path

import grpc
import pytest
import sqlean

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_client.errors import error_info
from powercontext_memory.app import open_service
from powercontext_memory.embedding.minilm import MiniLMEmbedder
from powercontext_memory.transport.server import SERVICE_NAME, RunningServer, start_server

from ..conformance.flaky_model import FlakyModel
from ..doc_blocks import reserved_port
from ..metrics_wait import settled
from .scrape import Scrape, scrape

Stub = pb_grpc.MemoryServiceStub
REQUESTS = "powercontext_requests_total"
DURATION_COUNT = "powercontext_request_duration_seconds_count"


async def start_observed(location: Path, **options: object) -> RunningServer:
    service = await open_service(location, progress_interval=0.2, **options)  # type: ignore[arg-type]
    return await start_server(service, "127.0.0.1:0", metrics_listen="127.0.0.1:0")


@pytest.fixture
async def observed(tmp_path: Path) -> AsyncIterator[RunningServer]:
    running = await start_observed(tmp_path / "memory.sqlite3")
    try:
        yield running
    finally:
        await running.stop(grace=1.0)


@pytest.fixture
async def stub(observed: RunningServer) -> AsyncIterator[Stub]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{observed.port}") as channel:
        yield Stub(channel)


def metrics_port(server: RunningServer) -> int:
    assert server.metrics_endpoint is not None
    return server.metrics_endpoint.port


def entry(text: str) -> types.EntryInput:
    return types.EntryInput(kind="fact", text=text)


async def remember(stub: Stub, memory: types.ArtifactRef | None, text: str) -> pb.RememberResponse:
    return await stub.Remember(pb.RememberRequest(memory=memory, entries=[entry(text)]))


def remember_count(scraped: Scrape, code: str) -> float:
    return scraped.value(REQUESTS, service=SERVICE_NAME, method="Remember", code=code)


async def counted(
    server: RunningServer,
    values: Callable[[Scrape], Mapping[str, float]],
    expected: Mapping[str, float],
) -> Scrape:
    """The first scrape of `server` whose `values` are `expected` (metrics_wait.py: why)."""
    port = metrics_port(server)
    return await settled(lambda: scrape(port), values, expected)


async def test_requests_commits_and_cas_conflicts_are_counted(
    observed: RunningServer, stub: Stub
) -> None:
    first = await remember(stub, None, "uses tabs")
    second = await remember(stub, first.memory, "prefers pytest")
    await remember(stub, second.memory, "deploys on fridays")
    with pytest.raises(grpc.aio.AioRpcError) as stale:
        await remember(stub, first.memory, "written on an old head")
    assert stale.value.code() == grpc.StatusCode.ABORTED

    def values(s: Scrape) -> dict[str, float]:
        return {
            "OK": remember_count(s, "OK"),
            "ABORTED": remember_count(s, "ABORTED"),
            "remember conflicts": s.value("powercontext_cas_conflicts_total", operation="remember"),
            "conflicts": s.value("powercontext_cas_conflicts_total"),
            "remember commits": s.value("powercontext_commits_total", operation="remember"),
            "commits": s.value("powercontext_commits_total"),
            # The histogram saw every call, whatever its outcome.
            "durations": s.value(DURATION_COUNT, service=SERVICE_NAME, method="Remember"),
            "durations <= +Inf": s.value(
                "powercontext_request_duration_seconds_bucket",
                service=SERVICE_NAME,
                method="Remember",
                le="+Inf",
            ),
        }

    expected = {"OK": 3, "ABORTED": 1, "remember conflicts": 1, "conflicts": 1}
    expected |= {"remember commits": 3, "commits": 3, "durations": 4, "durations <= +Inf": 4}
    await counted(observed, values, expected)


async def test_other_write_operations_are_labelled(observed: RunningServer, stub: Stub) -> None:
    created = await remember(stub, None, "the build uses make")
    target = types.EntryRef(
        entry_id=created.results[0].entry_id,
        entry_version_id=created.results[0].entry_version_id,
    )
    forgot = await stub.Forget(pb.ForgetRequest(memory=created.memory, entries=[target]))
    await stub.Reactivate(pb.ReactivateRequest(memory=forgot.memory, entries=[target]))
    with pytest.raises(grpc.aio.AioRpcError):
        await stub.Forget(pb.ForgetRequest(memory=created.memory, entries=[target]))

    def values(s: Scrape) -> dict[str, float]:
        commits = {
            f"{op} commits": s.value("powercontext_commits_total", operation=op)
            for op in ("remember", "forget", "reactivate", "organize")
        }
        return {
            **commits,
            "forget conflicts": s.value("powercontext_cas_conflicts_total", operation="forget"),
            "conflicts": s.value("powercontext_cas_conflicts_total"),
        }

    expected = {"remember commits": 1, "forget commits": 1, "reactivate commits": 1}
    expected |= {"organize commits": 0, "forget conflicts": 1, "conflicts": 1}
    await counted(observed, values, expected)


async def test_follow_streams_gauge(observed: RunningServer, stub: Stub) -> None:
    port = metrics_port(observed)
    created = await remember(stub, None, "watched")
    assert (await scrape(port)).value("powercontext_follow_streams_open") == 0

    call = stub.Changes(pb.ChangesRequest(memory=created.memory, follow=True))
    first = await asyncio.wait_for(call.read(), 10)
    assert first.revision.memory_ref == created.memory  # the feed is running now
    assert (await scrape(port)).value("powercontext_follow_streams_open") == 1

    history = stub.Changes(pb.ChangesRequest(memory=created.memory, since_revision=0))
    assert len([m async for m in history]) == 1  # not a follow stream: not in the gauge
    assert (await scrape(port)).value("powercontext_follow_streams_open") == 1

    call.cancel()

    def values(s: Scrape) -> dict[str, float]:
        return {
            "open": s.value("powercontext_follow_streams_open"),
            "CANCELLED": s.value(REQUESTS, method="Changes", code="CANCELLED"),
            "OK": s.value(REQUESTS, method="Changes", code="OK"),
        }

    await counted(observed, values, {"open": 0, "CANCELLED": 1, "OK": 1})


async def test_calls_failing_before_the_servicer_are_counted(observed: RunningServer) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{observed.port}") as channel:
        # Raw bytes that are not a RememberRequest (field 1, wire type 7: invalid).
        remember_raw = channel.unary_unary(f"/{SERVICE_NAME}/Remember")
        with pytest.raises(grpc.aio.AioRpcError) as malformed:
            await remember_raw(b"\x0f\xff\xff")
        assert malformed.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        reason, metadata = error_info(malformed.value)
        assert (reason, metadata) == ("MALFORMED_REQUEST", {"field": "request"})
        assert malformed.value.details() == (
            "request: is not a valid powercontext.memory.v1.RememberRequest message"
        )
        assert "x-request-id" in [k for k, _ in malformed.value.trailing_metadata()]

        nope = channel.unary_unary(f"/{SERVICE_NAME}/NoSuchMethod")
        with pytest.raises(grpc.aio.AioRpcError) as unknown:
            await nope(b"")
        assert unknown.value.code() == grpc.StatusCode.UNIMPLEMENTED
        elsewhere = channel.unary_stream("/no.such.Service/Anything")
        with pytest.raises(grpc.aio.AioRpcError) as unknown_service:
            async for _ in elsewhere(b""):
                pass
        assert unknown_service.value.code() == grpc.StatusCode.UNIMPLEMENTED

    def values(s: Scrape) -> dict[str, float]:
        return {
            "Remember INVALID_ARGUMENT": s.value(
                REQUESTS, method="Remember", code="INVALID_ARGUMENT"
            ),
            "unknown UNIMPLEMENTED": s.value(
                REQUESTS, service="unknown", method="unknown", code="UNIMPLEMENTED"
            ),
            "UNIMPLEMENTED": s.value(REQUESTS, code="UNIMPLEMENTED"),
        }

    expected = {"Remember INVALID_ARGUMENT": 1, "unknown UNIMPLEMENTED": 2, "UNIMPLEMENTED": 2}
    scraped = await counted(observed, values, expected)
    assert "NoSuchMethod" not in scraped.text  # client-made names never become labels
    assert "no.such.Service" not in scraped.text


async def test_database_errors_are_counted(
    observed: RunningServer, stub: Stub, tmp_path: Path
) -> None:
    # Break the real database under the running server: its next read of sources fails in
    # the SQLite driver itself.
    db = sqlean.connect(str(tmp_path / "memory.sqlite3"), isolation_level=None)
    try:
        db.execute("DROP TABLE sources")
    finally:
        db.close()
    with pytest.raises(grpc.aio.AioRpcError) as failed:
        await stub.GetSource(pb.GetSourceRequest(source_id="src_anything"))
    assert failed.value.code() == grpc.StatusCode.INTERNAL

    def values(s: Scrape) -> dict[str, float]:
        return {
            "GetSource INTERNAL": s.value(REQUESTS, method="GetSource", code="INTERNAL"),
            "sqlite OperationalError": s.value(
                "powercontext_database_errors_total", backend="sqlite", error="OperationalError"
            ),
            "database errors": s.value("powercontext_database_errors_total"),
        }

    expected = {"GetSource INTERNAL": 1, "sqlite OperationalError": 1, "database errors": 1}
    await counted(observed, values, expected)


@pytest.fixture(scope="module")
def minilm() -> Iterator[MiniLMEmbedder]:
    model = asyncio.run(MiniLMEmbedder.open())
    yield model
    asyncio.run(model.close())


async def test_embedding_latency_is_observed(tmp_path: Path, minilm: MiniLMEmbedder) -> None:
    model = FlakyModel(minilm)
    running = await start_observed(tmp_path / "memory.sqlite3", embedding=model)
    seconds = "powercontext_embedding_duration_seconds_count"
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = Stub(channel)
            created = await remember(stub, None, "integration tests need PostgreSQL on 5433")
            await stub.Search(pb.SearchRequest(query="database port", memories=[created.memory]))
            model.down = True
            await remember(stub, created.memory, "written while the model is down")

        def values(s: Scrape) -> dict[str, float]:
            return {
                f"{purpose} {outcome}": s.value(seconds, purpose=purpose, outcome=outcome)
                for purpose, outcome in (("commit", "ok"), ("query", "ok"), ("commit", "error"))
            }

        expected = {"commit ok": 1, "query ok": 1, "commit error": 1}
        scraped = await counted(running, values, expected)
        assert scraped.value("powercontext_embedding_duration_seconds_sum", outcome="ok") > 0
    finally:
        await running.stop(grace=1.0)


async def test_labels_never_carry_ids_or_user_text(observed: RunningServer, stub: Stub) -> None:
    created = await remember(stub, None, "a secret-ish note about zanzibar")
    await stub.GetMemory(pb.GetMemoryRequest(memory=created.memory))
    with pytest.raises(grpc.aio.AioRpcError):
        await stub.GetMemory(
            pb.GetMemoryRequest(memory=types.ArtifactRef(artifact_id="mem_art_zzz", revision=0))
        )
    scraped = await counted(
        observed,
        lambda s: {
            code: s.value(REQUESTS, method="GetMemory", code=code) for code in ("OK", "NOT_FOUND")
        },
        {"OK": 1, "NOT_FOUND": 1},
    )
    assert created.memory.artifact_id not in scraped.text
    assert "mem_art_zzz" not in scraped.text
    assert "zanzibar" not in scraped.text
    assert all(
        line.startswith(("powercontext_", "process_", "python_", "#"))
        for line in scraped.text.splitlines()
        if line
    )


async def test_each_server_has_its_own_registry(tmp_path: Path) -> None:
    one = await start_observed(tmp_path / "one.sqlite3")
    two = await start_observed(tmp_path / "two.sqlite3")
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{one.port}") as channel:
            await remember(Stub(channel), None, "only on server one")
        first = await counted(
            one, lambda s: {"commits": s.value("powercontext_commits_total")}, {"commits": 1}
        )
        second = await scrape(metrics_port(two))
        assert second.value("powercontext_commits_total") == 0
        assert first.value("process_resident_memory_bytes") > 0  # the process collectors too
    finally:
        await one.stop(grace=1.0)
        await two.stop(grace=1.0)


async def test_metrics_port_is_released_when_the_server_stops(tmp_path: Path) -> None:
    running = await start_observed(tmp_path / "memory.sqlite3")
    port = metrics_port(running)
    assert (await scrape(port)).value("powercontext_follow_streams_open") == 0
    await running.stop(grace=1.0)
    with socket.socket() as probe, pytest.raises(ConnectionRefusedError):
        probe.connect(("127.0.0.1", port))


async def test_metrics_port_is_released_when_grpc_cannot_listen(tmp_path: Path) -> None:
    service = await open_service(tmp_path / "memory.sqlite3")
    with reserved_port() as port:  # held by the test: only the metrics endpoint can listen there
        try:
            with socket.socket() as taken:
                taken.bind(("127.0.0.1", 0))
                taken.listen()
                busy = f"127.0.0.1:{taken.getsockname()[1]}"
                with pytest.raises(OSError, match=f"cannot listen on {busy}"):
                    await start_server(service, busy, metrics_listen=f"127.0.0.1:{port}")
        finally:
            await service.close()
        with socket.socket() as again:  # refused while anything still listens on the port
            again.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            again.bind(("127.0.0.1", port))  # the endpoint let go of it


async def test_a_count_that_never_comes_fails_with_the_last_values_read(
    observed: RunningServer, stub: Stub
) -> None:
    await remember(stub, None, "counted once")
    with pytest.raises(AssertionError) as never:
        await settled(
            lambda: scrape(metrics_port(observed)),
            lambda s: {"commits": s.value("powercontext_commits_total")},
            {"commits": 2},
            timeout=0.2,
        )
    assert str(never.value) == (
        "metrics did not reach {'commits': 2} within 0.2 s; last read {'commits': 1.0}"
    )
