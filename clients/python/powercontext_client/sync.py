"""Client: the blocking twin of AsyncClient, for scripts and code without an event loop.

Every method is AsyncClient's own, run on a private event loop in a daemon thread, so the two
clients cannot drift apart: same signatures, same errors, same retries, update() and follow().
The hop to that thread costs tens of microseconds per call (see `make bench`).
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterator
from typing import Any, Concatenate, ParamSpec, TypeVar

from powercontext.memory.v1 import memory_service_pb2 as pb

from .aio import FOLLOW_RECONNECT_SECONDS, AsyncClient
from .config import ClientConfig
from .retry import Backoff

P = ParamSpec("P")
R = TypeVar("R")


class _LoopThread:
    """An event loop running forever in a daemon thread; coroutines are submitted to it."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self.loop.run_forever, name="powercontext-client", daemon=True
        )
        self._thread.start()

    def run(self, coroutine: Coroutine[Any, Any, R]) -> R:
        if threading.current_thread() is self._thread:
            coroutine.close()
            # e.g. an update() change function calling the same Client: it would wait forever
            raise RuntimeError("a blocking Client cannot be called from its own callbacks")
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.loop.close()


def _blocking(
    method: Callable[Concatenate[AsyncClient, P], Awaitable[R]],
) -> Callable[Concatenate[Client, P], R]:
    name = method.__name__

    @functools.wraps(method)
    def call(self: Client, *args: P.args, **kwargs: P.kwargs) -> R:
        async def run() -> R:
            return await getattr(self.aio, name)(*args, **kwargs)

        return self._loop.run(run())

    return call


class Client:
    """`with Client("127.0.0.1:50051") as client: client.remember(None, [new_entry(...)])`"""

    def __init__(
        self,
        endpoint: str | None = None,
        *,
        config: ClientConfig | None = None,
        backoff: Backoff | None = None,
    ) -> None:
        self._loop = _LoopThread()

        async def connect() -> AsyncClient:  # the channel belongs to the loop's thread
            return AsyncClient(endpoint, config=config, backoff=backoff)

        try:
            self.aio = self._loop.run(connect())
        except BaseException:
            self._loop.stop()
            raise
        self.config = self.aio.config
        self.stub = self.aio.stub

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self._loop.run(self.aio.close())
        self._loop.stop()

    put_source = _blocking(AsyncClient.put_source)
    get_source = _blocking(AsyncClient.get_source)
    remember = _blocking(AsyncClient.remember)
    forget = _blocking(AsyncClient.forget)
    reactivate = _blocking(AsyncClient.reactivate)
    organize = _blocking(AsyncClient.organize)
    write = _blocking(AsyncClient.write)
    update = _blocking(AsyncClient.update)
    get_memory = _blocking(AsyncClient.get_memory)
    head = _blocking(AsyncClient.head)
    changes = _blocking(AsyncClient.changes)
    search = _blocking(AsyncClient.search)
    expand = _blocking(AsyncClient.expand)
    capabilities = _blocking(AsyncClient.capabilities)
    health = _blocking(AsyncClient.health)

    def follow(
        self,
        memory_id: str,
        since: int = 0,
        *,
        on_progress: Callable[[pb.ChangesProgress], None] | None = None,
        reconnect_for: float | None = FOLLOW_RECONNECT_SECONDS,
    ) -> Iterator[pb.RevisionChanges]:
        """AsyncClient.follow as a blocking iterator (close it, or break, to end the stream)."""
        stream: AsyncIterator[pb.RevisionChanges] = self.aio.follow(
            memory_id, since, on_progress=on_progress, reconnect_for=reconnect_for
        )

        async def step() -> pb.RevisionChanges:
            return await anext(stream)

        async def close() -> None:
            await stream.aclose()  # type: ignore[attr-defined]

        try:
            while True:
                try:
                    yield self._loop.run(step())
                except StopAsyncIteration:
                    return
        finally:
            self._loop.run(close())
