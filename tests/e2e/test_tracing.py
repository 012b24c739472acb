"""OpenTelemetry: a server span per real call, into the SDK's in-memory exporter."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_memory.transport.server import SERVICE_NAME, RunningServer
from powercontext_memory.transport.tracing import (
    REQUEST_ID_ATTRIBUTE,
    OtelTracer,
    tracer_provider_from_env,
)

from .conftest import running_server

Stub = pb_grpc.MemoryServiceStub
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_SPAN_ID = "00f067aa0ba902b7"


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


@pytest.fixture
async def traced(tmp_path: Path, exporter: InMemorySpanExporter) -> AsyncIterator[RunningServer]:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = OtelTracer(provider)
    async with running_server(tmp_path / "memory.sqlite3", tracer=tracer) as running:
        yield running


@pytest.fixture
async def stub(traced: RunningServer) -> AsyncIterator[Stub]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{traced.port}") as channel:
        yield Stub(channel)


def request_id_of(metadata: object) -> str:
    return next(str(v) for k, v in metadata or () if k == "x-request-id")  # type: ignore[attr-defined]


async def spans_named(exporter: InMemorySpanExporter, name: str, count: int) -> list[ReadableSpan]:
    """The finished spans called `name`, once `count` of them have ended (a span ends as its
    call ends on the server, possibly just after the client has the status)."""
    for _ in range(500):
        spans = [s for s in exporter.get_finished_spans() if s.name == name]
        if len(spans) >= count:
            return spans
        await asyncio.sleep(0.02)
    return spans


async def test_a_server_span_per_call_with_request_id_and_status(
    stub: Stub, exporter: InMemorySpanExporter
) -> None:
    ok = stub.Remember(
        pb.RememberRequest(entries=[types.EntryInput(kind="fact", text="one")]),
        metadata=(("x-request-id", "span-ok"),),
    )
    created = await ok
    await stub.Remember(
        pb.RememberRequest(memory=created.memory, entries=[types.EntryInput(kind="fact", text="2")])
    )
    stale = stub.Remember(
        pb.RememberRequest(memory=created.memory, entries=[types.EntryInput(kind="fact", text="3")])
    )
    with pytest.raises(grpc.aio.AioRpcError):
        await stale

    first, second, aborted = await spans_named(exporter, f"{SERVICE_NAME}/Remember", 3)
    assert first.kind == SpanKind.SERVER
    assert first.attributes is not None
    assert first.attributes["rpc.system"] == "grpc"
    assert first.attributes["rpc.service"] == SERVICE_NAME
    assert first.attributes["rpc.method"] == "Remember"
    assert first.attributes["rpc.grpc.status_code"] == 0
    assert first.attributes[REQUEST_ID_ATTRIBUTE] == "span-ok"
    assert first.status.status_code == StatusCode.UNSET
    assert second.attributes is not None
    assert second.attributes[REQUEST_ID_ATTRIBUTE] != "span-ok"
    # ABORTED is the caller's to handle: recorded, not an error of the server.
    assert aborted.attributes is not None
    assert aborted.attributes["rpc.grpc.status_code"] == grpc.StatusCode.ABORTED.value[0]
    assert aborted.attributes[REQUEST_ID_ATTRIBUTE] == request_id_of(
        await stale.trailing_metadata()
    )
    assert aborted.status.status_code == StatusCode.UNSET
    assert not aborted.events  # a deliberate abort is no exception


async def test_server_failures_are_error_spans(
    stub: Stub,
    traced: RunningServer,
    exporter: InMemorySpanExporter,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def broken(source_id: str) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(traced.memory_service, "get_source", broken)
    with pytest.raises(grpc.aio.AioRpcError):
        await stub.GetSource(pb.GetSourceRequest(source_id="src_x"))
    (span,) = await spans_named(exporter, f"{SERVICE_NAME}/GetSource", 1)
    assert span.attributes is not None
    assert span.attributes["rpc.grpc.status_code"] == grpc.StatusCode.INTERNAL.value[0]
    assert span.status.status_code == StatusCode.ERROR


async def test_cancelled_follow_stream_span(stub: Stub, exporter: InMemorySpanExporter) -> None:
    created = await stub.Remember(
        pb.RememberRequest(entries=[types.EntryInput(kind="fact", text="watched")])
    )
    call = stub.Changes(pb.ChangesRequest(memory=created.memory, follow=True))
    await asyncio.wait_for(call.read(), 10)
    call.cancel()
    (span,) = await spans_named(exporter, f"{SERVICE_NAME}/Changes", 1)
    assert span.attributes is not None
    assert span.attributes["rpc.grpc.status_code"] == grpc.StatusCode.CANCELLED.value[0]


async def test_span_joins_the_callers_trace(stub: Stub, exporter: InMemorySpanExporter) -> None:
    traceparent = f"00-{TRACE_ID}-{PARENT_SPAN_ID}-01"
    await stub.GetCapabilities(
        pb.GetCapabilitiesRequest(), metadata=(("traceparent", traceparent),)
    )
    (span,) = await spans_named(exporter, f"{SERVICE_NAME}/GetCapabilities", 1)
    assert format(span.context.trace_id, "032x") == TRACE_ID
    assert span.parent is not None and format(span.parent.span_id, "016x") == PARENT_SPAN_ID


async def test_health_and_reflection_are_traced_too(
    traced: RunningServer, exporter: InMemorySpanExporter
) -> None:
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    async with grpc.aio.insecure_channel(f"127.0.0.1:{traced.port}") as channel:
        await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
    (span,) = await spans_named(exporter, "grpc.health.v1.Health/Check", 1)
    assert span.attributes is not None and span.attributes["rpc.method"] == "Check"


def test_exporters_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "console")
    monkeypatch.setenv("OTEL_SERVICE_NAME", "memory-under-test")
    provider = tracer_provider_from_env()
    assert provider.resource.attributes["service.name"] == "memory-under-test"
    provider.shutdown()

    monkeypatch.delenv("OTEL_SERVICE_NAME")
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "none")
    provider = tracer_provider_from_env()
    assert provider.resource.attributes["service.name"] == "powercontext-memory"
    provider.shutdown()

    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "console,no-such-exporter")
    with pytest.raises(RuntimeError, match="OTEL_TRACES_EXPORTER=no-such-exporter: no such"):
        tracer_provider_from_env()


def test_the_default_exporter_is_the_extras_otlp_over_http(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    monkeypatch.delenv("OTEL_TRACES_EXPORTER", raising=False)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://127.0.0.1:9/v1/traces")
    provider = tracer_provider_from_env()
    try:
        processors = provider._active_span_processor._span_processors  # no public accessor
        exporters = [p.span_exporter for p in processors]  # type: ignore[attr-defined]
        assert [type(e) for e in exporters] == [OTLPSpanExporter]
    finally:
        provider.shutdown()
