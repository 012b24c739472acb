"""The two ways the client's calls travel: grpc.aio (AsyncClient) and blocking grpc (Client).

All of the client's logic — deadlines, retries, update(), follow() — is written once, as
coroutines in core.py that await only this transport. AioTransport really awaits. SyncTransport
has the same coroutine signatures but blocks inside them and never suspends, so Client runs
those coroutines to completion with one `send(None)`: no event loop, no thread hop, the speed
of the blocking stub. A third transport, testing.FakeTransport, answers from a function of
the test's own instead of a channel.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Coroutine
from typing import Any, Final, Protocol, TypeVar

from grpc_health.v1 import health_pb2_grpc

from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc

from .channel import aio_channel, sync_channel
from .config import ClientConfig

T = TypeVar("T")

# What an announcing stream yields first, once its call is on a connection to a server.
OPENED: Final = object()


class Transport(Protocol):
    """Calls never wait for a connection (no wait_for_ready): one that reaches no server fails
    at once with grpc's cause, and core.py decides whether to send it again."""

    stub: Any  # the generated MemoryServiceStub on this transport's channel
    health: Any  # grpc.health.v1 HealthStub

    async def unary(
        self, method: Any, request: Any, *, timeout: float | None, metadata: Any
    ) -> Any: ...

    def stream(
        self,
        method: Any,
        request: Any,
        *,
        timeout: float | None,
        metadata: Any,
        announce: bool = False,
    ) -> AsyncIterator[Any]:
        """The call's messages; with `announce`, OPENED first, as soon as the call is known to
        be on a connection (AsyncClient: when its request is sent; Client: with its first
        message, blocking grpc has no earlier sign)."""
        ...

    async def sleep(self, seconds: float) -> None: ...

    async def close(self) -> None: ...


class _Stubs:
    def __init__(self, channel: Any) -> None:
        self.channel = channel
        self.stub = pb_grpc.MemoryServiceStub(channel)
        self.health = health_pb2_grpc.HealthStub(channel)


class AioTransport(_Stubs):
    def __init__(self, config: ClientConfig) -> None:
        super().__init__(aio_channel(config))

    async def unary(
        self, method: Any, request: Any, *, timeout: float | None, metadata: Any
    ) -> Any:
        return await method(request, timeout=timeout, metadata=metadata, wait_for_ready=False)

    async def stream(
        self,
        method: Any,
        request: Any,
        *,
        timeout: float | None,
        metadata: Any,
        announce: bool = False,
    ) -> AsyncIterator[Any]:
        call = method(request, timeout=timeout, metadata=metadata, wait_for_ready=False)
        try:
            if announce:
                await call.wait_for_connection()
                yield OPENED
            async for message in call:
                yield message
        finally:
            call.cancel()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    async def close(self) -> None:
        await self.channel.close()


class SyncTransport(_Stubs):
    def __init__(self, config: ClientConfig) -> None:
        super().__init__(sync_channel(config))

    async def unary(
        self, method: Any, request: Any, *, timeout: float | None, metadata: Any
    ) -> Any:
        return method(request, timeout=timeout, metadata=metadata, wait_for_ready=False)

    async def stream(
        self,
        method: Any,
        request: Any,
        *,
        timeout: float | None,
        metadata: Any,
        announce: bool = False,
    ) -> AsyncIterator[Any]:
        call = method(request, timeout=timeout, metadata=metadata, wait_for_ready=False)
        try:
            for message in call:
                if announce:
                    announce = False
                    yield OPENED
                yield message
        finally:
            call.cancel()

    async def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    async def close(self) -> None:
        self.channel.close()


def run_blocking(coroutine: Coroutine[Any, Any, T]) -> T:
    """The result of a coroutine that only awaits SyncTransport (so it never suspends)."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()
    raise RuntimeError(
        "the blocking Client awaited something other than its transport "
        "(e.g. an async function given to update()): use AsyncClient for that"
    )
