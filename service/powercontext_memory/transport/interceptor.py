"""Every RPC, observed: request id, access log line, request metrics and an optional span.

One grpc.aio server interceptor wraps every method handler of the server (MemoryService,
health, reflection). Per call it:

* takes the request id from `x-request-id` (or makes one), sends it back — in the trailing
  metadata of a unary call (errors included), in the initial metadata of a stream — and tags
  every log line of the call with it;
* times the call from the moment the server looks up its handler, through reading and
  decoding the request, to the last response, and, when access logging is on, logs one line
  at INFO (method, code, duration, request id; never the payload);
* counts it by service, method and final status code, with a latency histogram;
* starts a tracing span around it when a tracer is given.

It also answers what would otherwise fail before reaching a servicer, so those calls are
counted and logged too: an unknown method (UNIMPLEMENTED) and a request that does not decode
(INVALID_ARGUMENT, reason MALFORMED_REQUEST, through the one error table; the bare server
would send UNKNOWN). Streaming responses are driven here with `context.write`, so a stream
that ends early (the client went away) is closed, timed and counted at once, in its own task.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import aclosing
from typing import Any, Protocol

import grpc

from ..domain.errors import InvalidArgumentError
from ..logs import request_scope
from .errors import translate_errors
from .request_id import REQUEST_ID_KEY, request_id_from

access_logger = logging.getLogger("powercontext_memory.access")

UNKNOWN_METHOD = "unknown"  # the label of calls to methods this server does not have
MALFORMED_REQUEST = "MALFORMED_REQUEST"

Metadata = Sequence[tuple[str, Any]]
Behavior = Callable[[Any, grpc.aio.ServicerContext], Any]


class RequestMetrics(Protocol):
    def observe_request(self, service: str, method: str, code: str, seconds: float) -> None:
        """One finished call: its status code name and its duration."""


class RpcSpan(Protocol):
    def end(self, code: grpc.StatusCode) -> None: ...


class CallTracer(Protocol):
    def start(self, method: str, request_id: str, metadata: Metadata) -> RpcSpan:
        """Start a server span for `method`, current until `end` (same task)."""
        ...

    def close(self) -> None:
        """Flush what was recorded; called once when the server stops."""


class CallActivity(Protocol):
    """Told when each call begins and ends (transport/idle.py: how long the server is idle)."""

    def begin(self) -> None: ...

    def end(self) -> None: ...


class ObservingInterceptor(grpc.aio.ServerInterceptor):
    def __init__(
        self,
        metrics: RequestMetrics | None = None,
        tracer: CallTracer | None = None,
        *,
        access_log: bool = False,
        activity: CallActivity | None = None,
    ) -> None:
        self.metrics = metrics
        self.tracer = tracer
        # Off by default: a line per call costs event-loop time on every call
        # (docs/observability.md, Cost).
        self.access_log = access_log
        self.activity = activity

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        started = time.perf_counter()
        metadata = handler_call_details.invocation_metadata or ()
        call = _Call(
            self, handler_call_details.method, request_id_from(metadata), metadata, started
        )
        handler = await continuation(handler_call_details)
        if handler is None:
            return call.unimplemented_handler()
        return call.wrap(handler)


def _labels(method: str) -> tuple[str, str]:
    """("powercontext.memory.v1.MemoryService", "Remember") from the method's path."""
    service, _, name = method.lstrip("/").partition("/")
    return service, name


class _Undecodable:
    """What the request deserializer returns instead of raising (see `_tolerant`)."""

    def __init__(self, message_type: str) -> None:
        self.message_type = message_type


def _tolerant(deserializer: Callable[[bytes], Any] | None) -> Callable[[bytes], Any] | None:
    """A deserializer that hands undecodable bytes on as _Undecodable: the server would fail
    the call before any handler runs; this way the wrapped handler answers it."""
    if deserializer is None:
        return None
    owner = getattr(deserializer, "__self__", None)  # SomeRequest.FromString
    descriptor = getattr(owner, "DESCRIPTOR", None)
    message_type = getattr(descriptor, "full_name", "request")

    def deserialize(raw: bytes) -> Any:
        try:
            return deserializer(raw)
        except Exception:
            return _Undecodable(message_type)

    return deserialize


def _is_async(behavior: Behavior) -> bool:
    return inspect.iscoroutinefunction(behavior) or inspect.isasyncgenfunction(behavior)


class _Call:
    """One RPC as the interceptor sees it."""

    __slots__ = ("interceptor", "method", "request_id", "metadata", "started")

    def __init__(
        self,
        interceptor: ObservingInterceptor,
        method: str,
        request_id: str,
        metadata: Metadata,
        started: float,
    ) -> None:
        self.interceptor = interceptor
        self.method = method
        self.request_id = request_id
        self.metadata = metadata
        self.started = started

    # -- handlers -------------------------------------------------------------------------------

    def wrap(self, handler: grpc.RpcMethodHandler) -> grpc.RpcMethodHandler:
        if handler.request_streaming:
            behavior = handler.stream_stream or handler.stream_unary
            deserializer = handler.request_deserializer  # streamed messages reach the servicer
        else:
            behavior = handler.unary_stream or handler.unary_unary
            deserializer = _tolerant(handler.request_deserializer)
        if not _is_async(behavior):
            return handler  # a sync handler runs in a thread pool; none is registered here
        if handler.response_streaming:
            factory = (
                grpc.stream_stream_rpc_method_handler
                if handler.request_streaming
                else grpc.unary_stream_rpc_method_handler
            )
            wrapped = self._streaming(behavior)
        else:
            factory = (
                grpc.stream_unary_rpc_method_handler
                if handler.request_streaming
                else grpc.unary_unary_rpc_method_handler
            )
            wrapped = self._unary(behavior)
        return factory(
            wrapped,
            request_deserializer=deserializer,
            response_serializer=handler.response_serializer,
        )

    def _unary(self, behavior: Behavior) -> Behavior:
        async def unary(request: Any, context: grpc.aio.ServicerContext) -> Any:
            with self._observed(context):
                await _refuse_undecodable(request, context)
                response = await behavior(request, context)
                # With the status, in the same batch: initial metadata of its own would cost
                # every unary call a HEADERS frame more (docs/observability.md, Cost). (Errors
                # carry it too: see errors.py.)
                trailing = context.trailing_metadata() or ()
                context.set_trailing_metadata((*trailing, (REQUEST_ID_KEY, self.request_id)))
                return response

        return unary

    def _streaming(self, behavior: Behavior) -> Behavior:
        # A coroutine (reader/writer API) rather than a generator: grpc leaves a generator
        # suspended when a write fails, to be finalized whenever, elsewhere; here the
        # servicer's generator is closed as soon as the stream ends, however it ends.
        async def streaming(request: Any, context: grpc.aio.ServicerContext) -> None:
            with self._observed(context):
                # Once per stream, before any message: a follower knows its id at once.
                await context.send_initial_metadata(((REQUEST_ID_KEY, self.request_id),))
                await _refuse_undecodable(request, context)
                if inspect.iscoroutinefunction(behavior):
                    await behavior(request, context)
                    return
                async with aclosing(behavior(request, context)) as responses:
                    async for response in responses:
                        await context.write(response)

        return streaming

    def unimplemented_handler(self) -> grpc.RpcMethodHandler:
        # stream-stream fits any call shape and reads nothing.
        async def unimplemented(requests: AsyncIterator[bytes], context: Any) -> None:
            with self._observed(context, known=False):
                await context.abort(
                    grpc.StatusCode.UNIMPLEMENTED,
                    "Method not found!",
                    trailing_metadata=((REQUEST_ID_KEY, self.request_id),),
                )

        return grpc.stream_stream_rpc_method_handler(unimplemented)

    # -- the observation ------------------------------------------------------------------------

    def _observed(self, context: grpc.aio.ServicerContext, *, known: bool = True) -> _Observation:
        return _Observation(self, context, known)

    def _finish(self, code: grpc.StatusCode, known: bool) -> None:
        seconds = time.perf_counter() - self.started
        if self.interceptor.access_log:
            milliseconds = seconds * 1000
            access_logger.info(
                "%s %s %.2f ms",
                self.method,
                code.name,
                milliseconds,
                extra={"code": code.name, "duration_ms": round(milliseconds, 3)},
            )
        metrics = self.interceptor.metrics
        if metrics is not None:
            service, method = _labels(self.method) if known else (UNKNOWN_METHOD, UNKNOWN_METHOD)
            metrics.observe_request(service, method, code.name, seconds)


class _Observation:
    """One call's request scope (log records name it), optional span, and on exit its status
    code counted and logged. A class rather than a generator-based context manager: it runs
    around every call, and nothing in it awaits."""

    __slots__ = ("call", "context", "known", "scope", "span")

    def __init__(self, call: _Call, context: grpc.aio.ServicerContext, known: bool) -> None:
        self.call = call
        self.context = context
        self.known = known
        self.scope = request_scope(call.request_id, call.method)
        self.span: RpcSpan | None = None

    def __enter__(self) -> None:
        self.scope.__enter__()
        activity = self.call.interceptor.activity
        if activity is not None:
            activity.begin()
        tracer = self.call.interceptor.tracer
        if tracer is not None and self.known:  # unknown methods: client-made names, unbounded
            try:
                self.span = tracer.start(self.call.method, self.call.request_id, self.call.metadata)
            except BaseException:
                if activity is not None:
                    activity.end()
                self.scope.__exit__(None, None, None)
                raise

    def __exit__(self, exc_type: type[BaseException] | None, exc: object, tb: object) -> None:
        try:
            if exc_type is None:
                code = self.context.code() or grpc.StatusCode.OK  # a handler may set_code
            elif issubclass(exc_type, asyncio.CancelledError):
                code = grpc.StatusCode.CANCELLED
            else:
                # An abort (AbortError) carries its code; grpc sends UNKNOWN for the rest.
                code = self.context.code() or grpc.StatusCode.UNKNOWN
            if self.span is not None:
                self.span.end(code)
            self.call._finish(code, self.known)
        finally:
            activity = self.call.interceptor.activity
            if activity is not None:
                activity.end()
            self.scope.__exit__(None, None, None)


async def _refuse_undecodable(request: Any, context: grpc.aio.ServicerContext) -> None:
    if not isinstance(request, _Undecodable):
        return
    async with translate_errors(context):
        raise InvalidArgumentError(
            "request",
            f"is not a valid {request.message_type} message",
            reason=MALFORMED_REQUEST,
        )
