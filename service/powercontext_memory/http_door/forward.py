"""The door's side of each call: a real gRPC call over the server's private Unix socket.

The request crosses as binary protobuf, with the caller's `authorization`, the request id and
the W3C trace headers as metadata, and the Connect timeout as the gRPC deadline; the server's
interceptors (request id, tokens and scopes, limits, metrics, access log, tracing) and its one
error table then do for an HTTP caller exactly what they do for a gRPC one.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable
from typing import Any

import grpc
from aiohttp import web
from grpc_health.v1 import health_pb2

from ..domain.errors import InvalidArgumentError
from ..transport.errors import STATUS_DETAILS_KEY
from ..transport.request_id import REQUEST_ID_KEY
from .connect_errors import ConnectError, ConnectFailure, from_domain, from_rpc_error
from .routes import Procedure

# Forwarded as they are: the credential, and the caller's trace for --otel.
FORWARDED_HEADERS = ("authorization", "traceparent", "tracestate")
TIMEOUT_HEADER = "Connect-Timeout-Ms"
_TIMEOUT = re.compile(r"[0-9]{1,10}")
HEALTH_CHECK = "/grpc.health.v1.Health/Check"
HEALTH_SECONDS = 5.0
Metadata = tuple[tuple[str, str], ...]


class Upstream:
    """The grpc.aio channel to the private socket, and a callable per procedure."""

    def __init__(self, target: str, max_message_bytes: int) -> None:
        self.channel = grpc.aio.insecure_channel(
            target,
            options=[
                ("grpc.max_send_message_length", max_message_bytes),
                ("grpc.max_receive_message_length", max_message_bytes),
            ],
        )
        self._unary: dict[str, grpc.aio.UnaryUnaryMultiCallable] = {}
        self._streams: dict[str, grpc.aio.UnaryStreamMultiCallable] = {}

    async def unary(
        self, procedure: Procedure, payload: bytes, metadata: Metadata, timeout: float | None
    ) -> tuple[bytes, Metadata, Metadata]:
        """(response bytes, initial metadata, trailing metadata); ConnectFailure if it failed."""
        method = self._unary.get(procedure.path)
        if method is None:  # bytes both ways: no serializer
            method = self._unary[procedure.path] = self.channel.unary_unary(procedure.path)
        call = method(payload, metadata=metadata, timeout=timeout)
        try:
            response = await call
            return (
                response,
                text_pairs(await call.initial_metadata()),
                text_pairs(await call.trailing_metadata()),
            )
        except grpc.aio.AioRpcError as error:
            raise ConnectFailure(failure(error)) from None
        finally:
            call.cancel()  # no-op once done; ends the call when the HTTP caller went away

    def stream(
        self, procedure: Procedure, payload: bytes, metadata: Metadata, timeout: float | None
    ) -> grpc.aio.UnaryStreamCall:
        method = self._streams.get(procedure.path)
        if method is None:
            method = self._streams[procedure.path] = self.channel.unary_stream(procedure.path)
        return method(payload, metadata=metadata, timeout=timeout)

    async def serving(self) -> str:
        """The server's overall health status name (SERVING, NOT_SERVING, ...)."""
        check = self.channel.unary_unary(
            HEALTH_CHECK,
            request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
            response_deserializer=health_pb2.HealthCheckResponse.FromString,
        )
        try:
            response = await check(health_pb2.HealthCheckRequest(), timeout=HEALTH_SECONDS)
        except grpc.aio.AioRpcError:
            return "NOT_SERVING"
        return str(health_pb2.HealthCheckResponse.ServingStatus.Name(response.status))

    async def close(self) -> None:
        await self.channel.close()


def failure(error: grpc.aio.AioRpcError) -> ConnectError:
    return from_rpc_error(error.code(), error.details(), error.trailing_metadata())


def call_metadata(request: web.Request, request_id: str) -> Metadata:
    pairs = [(REQUEST_ID_KEY, request_id)]
    for name in FORWARDED_HEADERS:
        pairs += [(name, value) for value in request.headers.getall(name, ())]
    return tuple(pairs)


def timeout_seconds(request: web.Request) -> float | None:
    """The Connect-Timeout-Ms header as a gRPC deadline (None: no deadline)."""
    text = request.headers.get(TIMEOUT_HEADER)
    if text is None:
        return None
    if not _TIMEOUT.fullmatch(text.strip()):
        raise ConnectFailure(
            from_domain(
                InvalidArgumentError(
                    TIMEOUT_HEADER, "must be a whole number of milliseconds, at most 10 digits"
                )
            )
        )
    return int(text) / 1000


def response_headers(initial: Metadata, trailing: Metadata) -> dict[str, str]:
    """A unary answer's metadata as Connect sends it: leading as headers, trailing as
    `trailer-` headers (the request id goes out as `x-request-id`, set elsewhere)."""
    headers: dict[str, str] = {}
    for prefix, pairs in (("", initial), ("trailer-", trailing)):
        for key, value in pairs:
            if _forwardable(key):
                headers[prefix + key] = value
    return headers


def trailing_document(trailing: Metadata) -> dict[str, list[str]]:
    """A stream's trailing metadata as the EndStreamResponse's `metadata`."""
    found: dict[str, list[str]] = {}
    for key, value in trailing:
        if _forwardable(key):
            found.setdefault(key, []).append(value)
    return found


def _forwardable(key: str) -> bool:
    return not key.startswith("grpc-") and key not in (REQUEST_ID_KEY, STATUS_DETAILS_KEY)


def text_pairs(metadata: Iterable[tuple[str, Any]] | None) -> Metadata:
    """Metadata as (key, text) pairs: binary (`-bin`) values as unpadded base64, as Connect
    writes them."""
    found = []
    for key, value in metadata or ():
        if isinstance(value, bytes):
            value = base64.b64encode(value).decode("ascii").rstrip("=")
        found.append((key, str(value)))
    return tuple(found)
