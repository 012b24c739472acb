"""OpenTelemetry tracing of every RPC (the optional `otel` extra; import only when asked for).

A server span per call, named like `powercontext.memory.v1.MemoryService/Remember`, child of
the caller's trace when the request carries one (W3C traceparent by default; see
OTEL_PROPAGATORS), with the rpc.* attributes, the request id, and the final status code; ERROR
status for the codes that mean the server failed, as the RPC semantic conventions say.

This is a CallTracer for the observing interceptor rather than the interceptor of
opentelemetry-instrumentation-grpc: with grpcio 1.85 that one reports a cancelled stream as
OK, records every deliberate abort as an exception event (twice), and has no place for the
request id.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from importlib.metadata import entry_points
from typing import Any

import grpc
from opentelemetry import context, propagate, trace
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter
from opentelemetry.trace import SpanKind, Status, StatusCode

logger = logging.getLogger(__name__)

REQUEST_ID_ATTRIBUTE = "powercontext.request_id"
DEFAULT_SERVICE_NAME = "powercontext-memory"
EXPORTER_GROUP = "opentelemetry_traces_exporter"
# OTLP over HTTP (the extra's exporter): the SDK's "otlp" means the gRPC exporter package.
DEFAULT_EXPORTER = "otlp_proto_http"
# The server's failures; other codes are the caller's (semantic conventions for gRPC servers).
SERVER_ERRORS = frozenset(
    {
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.UNIMPLEMENTED,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DATA_LOSS,
    }
)


class _Span:
    def __init__(self, span: trace.Span, token: object) -> None:
        self._span = span
        self._token = token

    def end(self, code: grpc.StatusCode) -> None:
        self._span.set_attribute("rpc.grpc.status_code", code.value[0])
        if code in SERVER_ERRORS:
            self._span.set_status(Status(StatusCode.ERROR, code.name))
        context.detach(self._token)  # type: ignore[arg-type]
        self._span.end()


class OtelTracer:
    """A CallTracer over an OpenTelemetry TracerProvider (which it shuts down on close)."""

    def __init__(self, provider: TracerProvider) -> None:
        self._provider = provider
        self._tracer = provider.get_tracer("powercontext_memory")

    def start(self, method: str, request_id: str, metadata: Sequence[tuple[str, Any]]) -> _Span:
        service, _, name = method.lstrip("/").partition("/")
        parent = propagate.extract({k: v for k, v in metadata if isinstance(v, str)})
        span = self._tracer.start_span(
            f"{service}/{name}",
            context=parent,
            kind=SpanKind.SERVER,
            attributes={
                "rpc.system": "grpc",
                "rpc.service": service,
                "rpc.method": name,
                REQUEST_ID_ATTRIBUTE: request_id,
            },
        )
        return _Span(span, context.attach(trace.set_span_in_context(span, parent)))

    def close(self) -> None:
        self._provider.shutdown()


def tracer_provider_from_env() -> TracerProvider:
    """A provider configured by the standard OTEL_* variables: OTEL_TRACES_EXPORTER (default
    otlp_proto_http, which the extra installs; console and none also work; otlp needs the
    gRPC exporter package), OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES,
    OTEL_TRACES_SAMPLER, OTEL_EXPORTER_OTLP_*, OTEL_BSP_*; OTEL_SDK_DISABLED turns it off."""
    resource = Resource.create()
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME: DEFAULT_SERVICE_NAME}))
    names = _exporter_names()
    exporters = [_exporter(name) for name in names]  # all found, or fail here
    logger.info(
        "tracing %s with OpenTelemetry (exporters: %s)",
        resource.attributes[SERVICE_NAME],
        ", ".join(names) or "none",
    )
    provider = TracerProvider(resource=resource)
    for exporter in exporters:
        provider.add_span_processor(BatchSpanProcessor(exporter))
    return provider


def _exporter_names() -> list[str]:
    names = os.environ.get("OTEL_TRACES_EXPORTER", DEFAULT_EXPORTER)
    return [n.strip() for n in names.split(",") if n.strip() and n.strip() != "none"]


def _exporter(name: str) -> SpanExporter:
    found = entry_points(group=EXPORTER_GROUP, name=name)
    if not found:
        hint = " (pip install opentelemetry-exporter-otlp)" if name == "otlp" else ""
        raise RuntimeError(
            f"OTEL_TRACES_EXPORTER={name}: no such span exporter is installed{hint}; "
            "console and none need nothing more"
        )
    exporter_class = next(iter(found)).load()
    exporter: SpanExporter = exporter_class()
    return exporter
