"""A transport for testing code that uses the client: no server, no socket, no real pauses.

    from powercontext_client import Client, FakeTransport, rpc_error

    def handler(call):  # every call the client sends, as a server would receive it
        if call.method == "GetCapabilities":
            return pb.GetCapabilitiesResponse()
        raise rpc_error(grpc.StatusCode.UNAVAILABLE, "down", reason="DATABASE_UNAVAILABLE")

    client = Client(transport=FakeTransport(handler))  # or AsyncClient(transport=...)

Like httpx.MockTransport, it puts a function of yours where the network was. The client above
it is the real one (core.py), so your answers go through its whole policy: deadlines, retries
(with their request ids), update() re-reading and re-applying after a conflict, follow()
resuming a broken stream, the token metadata, and the error families of errors.py.

A handler (or a mapping of method name to handler; a method missing from it is UNIMPLEMENTED,
as on a server without it) gets a FakeCall and answers:

* a unary call with its response message;
* a stream (Changes) with an iterable of messages, or an async iterable (AsyncClient only); a
  generator that raises rpc_error() part-way ends the stream with that error;
* any call by raising rpc_error() (what a server answers) or connect_error() (what grpc raises
  when no server was reached).

Any other exception comes out of the client call unchanged and is never retried: a broken
handler is a bug in the test, not a server error (raising the client's own PowerContextError
is a TypeError, as it would skip the policy). An async handler is awaited; with the
blocking Client it must not suspend. Requests and responses are copied through their wire
form, so neither side sees the other's later changes.

Backoff pauses return at once (recorded in `sleeps`), but deadlines, the connect window and
follow()'s `reconnect_for` run on the real clock: a handler that fails a call forever with
connect_error() keeps it retrying for the connect window (ClientConfig(connect_timeout=0)
fails at once), and a follow() whose stream always fails retries for `reconnect_for` seconds.
A stream counts as open (follow()'s "resumed") once its handler has returned, as AsyncClient
sees a real stream open before its first message.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

import grpc
import grpc.aio
from google.protobuf.any_pb2 import Any as AnyPb
from google.protobuf.descriptor import ServiceDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from google.rpc import error_details_pb2, status_pb2
from grpc_health.v1 import health_pb2

from powercontext.memory.v1 import memory_service_pb2 as pb

from .errors import ERROR_DOMAIN, STATUS_DETAILS_KEY, PowerContextError
from .transport import OPENED


@dataclass(frozen=True, slots=True)
class FakeCall:
    """One call the client sent, as a server would have received it."""

    service: str  # "powercontext.memory.v1.MemoryService", or "grpc.health.v1.Health"
    method: str  # "GetMemory", "Remember", "Changes", ... ("Check" for health())
    request: Message  # the request message (a copy)
    timeout: float | None  # seconds left of the call's deadline; None: no deadline
    metadata: tuple[tuple[str, str], ...]  # e.g. (("authorization", "Bearer ..."),)

    @property
    def path(self) -> str:
        return f"/{self.service}/{self.method}"


Handler: TypeAlias = Callable[[FakeCall], Any]


@dataclass(frozen=True, slots=True)
class FakeMethod:
    """What the fake stub has in place of a callable: which method the client is calling."""

    service: str
    name: str
    response_type: type[Message]
    streaming: bool


class FakeStub:
    """A service's methods by name, like the generated stub's attributes (not callable)."""

    def __init__(self, service: ServiceDescriptor) -> None:
        for method in service.methods:
            fake = FakeMethod(
                service.full_name,
                method.name,
                GetMessageClass(method.output_type),
                method.server_streaming,
            )
            setattr(self, method.name, fake)
        self._service = service.full_name

    def __getattr__(self, name: str) -> FakeMethod:
        # Declared so that type checkers see the methods set above; runs only for other names.
        raise AttributeError(f"{self.__dict__.get('_service')} has no method {name!r}")


def rpc_error(
    code: grpc.StatusCode,
    message: str = "",
    *,
    reason: str = "",
    metadata: Mapping[str, str] | None = None,
    details: Iterable[Message] = (),
) -> grpc.RpcError:
    """The error a server answers with `code` and `message`. With a `reason` or `metadata`, a
    google.rpc.Status rides in the grpc-status-details-bin trailer as the server sends it: an
    ErrorInfo (domain powercontext.memory) first, then `details` (e.g. a BadRequest); with
    none of the three there is no trailer, as from a server that gives only a status."""
    packed: list[AnyPb] = []
    if reason or metadata:
        info = error_details_pb2.ErrorInfo(
            reason=reason, domain=ERROR_DOMAIN, metadata=dict(metadata or {})
        )
        packed.append(_packed(info))
    packed += [_packed(detail) for detail in details]
    trailing = grpc.aio.Metadata()
    if packed:
        status = status_pb2.Status(code=code.value[0], message=message, details=packed)
        trailing.add(STATUS_DETAILS_KEY, status.SerializeToString())
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), trailing, details=message)


def connect_error(cause: str = "Connection refused") -> grpc.RpcError:
    """What grpc raises for a call it could not put on any connection, in its own words: no
    server saw it, so the client sends any call again for the connect window, then raises
    Unavailable naming its endpoint and the cause ("cannot reach HOST:PORT: connection
    refused")."""
    return rpc_error(
        grpc.StatusCode.UNAVAILABLE,
        f"failed to connect to all addresses; last error: UNAVAILABLE: "
        f"ipv4:127.0.0.1:50051: {cause}",
    )


def _packed(message: Message) -> AnyPb:
    packed = AnyPb()
    packed.Pack(message)
    return packed


def _copy(message: Message) -> Message:
    """The message as the other end decodes it (wire form), sharing nothing with this one."""
    return type(message).FromString(message.SerializeToString())


class FakeTransport:
    """A transport whose calls `handler` answers (see the module's documentation); pass it to
    Client or AsyncClient as `transport=`. `calls` and `sleeps` record what the client did."""

    def __init__(self, handler: Handler | Mapping[str, Handler]) -> None:
        self.stub = FakeStub(pb.DESCRIPTOR.services_by_name["MemoryService"])
        self.health = FakeStub(health_pb2.DESCRIPTOR.services_by_name["Health"])
        self.calls: list[FakeCall] = []  # every call sent, in order, failed ones included
        self.sleeps: list[float] = []  # every backoff pause the client took, in seconds
        self.closed = False
        self._handler = handler

    def requests(self, method: str) -> list[Any]:
        """The requests of every call to `method` (e.g. "Remember"), in order."""
        return [call.request for call in self.calls if call.method == method]

    async def unary(
        self, method: Any, request: Any, *, timeout: float | None, metadata: Any
    ) -> Any:
        call = self._receive(method, request, timeout, metadata, streaming=False)
        answer = await self._answer(call)
        return _copy(_checked(call, method, answer))

    async def stream(
        self,
        method: Any,
        request: Any,
        *,
        timeout: float | None,
        metadata: Any,
        announce: bool = False,
    ) -> AsyncIterator[Any]:
        call = self._receive(method, request, timeout, metadata, streaming=True)
        messages = await self._answer(call)
        if isinstance(messages, Message) or not isinstance(messages, Iterable | AsyncIterable):
            raise TypeError(
                f"the handler answered the stream {call.path} with {type(messages).__name__}: "
                f"return an iterable of {method.response_type.__name__}"
            )
        try:
            if announce:
                yield OPENED
            if isinstance(messages, AsyncIterable):
                async for message in messages:
                    yield _copy(_checked(call, method, message))
            else:
                for message in messages:
                    yield _copy(_checked(call, method, message))
        except PowerContextError as error:
            raise _misraised(call, error) from error
        finally:
            await _closed(messages)  # as the real transports cancel a call they leave

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)

    async def close(self) -> None:
        self.closed = True

    def _receive(
        self, method: Any, request: Any, timeout: float | None, metadata: Any, *, streaming: bool
    ) -> FakeCall:
        if self.closed:
            raise RuntimeError("the client was closed: its FakeTransport takes no more calls")
        if not isinstance(method, FakeMethod):
            raise TypeError(f"{method!r} is not a method of a FakeTransport's stub")
        if method.streaming != streaming:
            kind = "a stream" if method.streaming else "a unary method"
            raise TypeError(f"/{method.service}/{method.name} is {kind}")
        call = FakeCall(method.service, method.name, _copy(request), timeout, tuple(metadata))
        self.calls.append(call)
        return call

    async def _answer(self, call: FakeCall) -> Any:
        handler = self._handler_of(call)
        try:
            answer = handler(call)
            return await answer if inspect.isawaitable(answer) else answer
        except PowerContextError as error:
            raise _misraised(call, error) from error

    def _handler_of(self, call: FakeCall) -> Handler:
        if not isinstance(self._handler, Mapping):
            return self._handler
        handler = self._handler.get(call.method)
        if handler is None:
            raise rpc_error(
                grpc.StatusCode.UNIMPLEMENTED,
                f"{call.path} has no handler in this FakeTransport "
                f"(it answers {', '.join(sorted(self._handler)) or 'nothing'})",
            )
        return handler


def _checked(call: FakeCall, method: FakeMethod, answer: Any) -> Message:
    expected = method.response_type
    if not isinstance(answer, Message) or answer.DESCRIPTOR is not expected.DESCRIPTOR:
        raise TypeError(
            f"the handler answered {call.path} with {type(answer).__name__}: return a "
            f"{expected.__name__} or raise rpc_error(...)"
        )
    return answer


def _misraised(call: FakeCall, error: PowerContextError) -> TypeError:
    # The client's own exception would skip its policy, which reads only what grpc raises.
    return TypeError(
        f"the handler of {call.path} raised {type(error).__name__}: raise rpc_error(...) "
        "instead, the error a server answers"
    )


async def _closed(messages: Iterable[Any] | AsyncIterable[Any]) -> None:
    aclose = getattr(messages, "aclose", None)
    if aclose is not None:
        await aclose()
        return
    close = getattr(messages, "close", None)
    if close is not None:
        close()
