"""Serve an async (grpc.aio) servicer through grpc_testing, which drives blocking servicers.

grpc_testing runs each call's implementation in its own thread and expects a value (unary) or
an iterator (streaming) back, with a blocking ServicerContext. `BlockingServicer` gives it
exactly that: each servicer method runs as a coroutine on a `LoopThread` (where the service
lives), with an `AioContext` that offers the grpc.aio context API on top of grpc_testing's.

One gap is bridged, not hidden: grpc_testing's `ServicerContext.abort(code, details)` takes no
trailing metadata and ends the call with EMPTY trailers (grpc_testing/_server/_rpc.py
`Rpc._abort`), which would drop the `grpc-status-details-bin` trailer that carries the error
details. So `AioContext.abort` ends the call the other way grpc_testing supports, and the way a
real server sends them: trailing metadata, code and details set on the context, then the
method stops (AbortError, as grpc.aio raises) and the call completes with that status.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import queue
import threading
from collections.abc import Callable, Collection, Coroutine, Iterator
from typing import Any, TypeVar

import grpc

T = TypeVar("T")
CALL_TIMEOUT = 30.0


class LoopThread:
    """An event loop running in a daemon thread; `run` executes a coroutine there."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(CALL_TIMEOUT)

    def call(self, function: Callable[[], T]) -> T:
        """Run a plain function on the loop's thread (for loop-bound objects)."""

        async def call() -> T:
            return function()

        return self.run(call())

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.loop.close()


class AioContext:
    """The part of grpc.aio.ServicerContext the servicer uses, over grpc_testing's context."""

    def __init__(
        self, context: grpc.ServicerContext, sink: Callable[[Any], None] | None = None
    ) -> None:
        self._context = context
        self._sink = sink

    async def write(self, message: Any) -> None:
        assert self._sink is not None, "write() outside a streaming method"
        self._sink(message)

    async def abort(
        self, code: grpc.StatusCode, details: str = "", trailing_metadata: Any = ()
    ) -> None:
        if trailing_metadata:
            self._context.set_trailing_metadata(tuple(trailing_metadata))
        self._context.set_code(code)
        self._context.set_details(details)
        raise grpc.aio.AbortError("aborted through the grpc_testing adapter")

    def set_trailing_metadata(self, metadata: Any) -> None:
        self._context.set_trailing_metadata(tuple(metadata))

    def invocation_metadata(self) -> Any:
        return self._context.invocation_metadata()

    async def send_initial_metadata(self, metadata: Any) -> None:
        self._context.send_initial_metadata(tuple(metadata))

    def set_code(self, code: grpc.StatusCode) -> None:
        self._context.set_code(code)

    def set_details(self, details: str) -> None:
        self._context.set_details(details)


class BlockingServicer:
    """grpc_testing looks methods up by name; each one found here runs the async original.

    A streaming method is an async generator, or a coroutine that sends with `context.write`
    (grpc.aio's writer API): name those in `writers`.
    """

    def __init__(self, servicer: object, loop: LoopThread, writers: Collection[str] = ()) -> None:
        self._servicer = servicer
        self._loop = loop
        self._writers = set(writers)

    def __getattr__(self, name: str) -> Callable[[Any, grpc.ServicerContext], Any]:
        method = getattr(self._servicer, name)
        if inspect.isasyncgenfunction(method):
            return self._streaming(method)
        if name in self._writers:
            return self._writing(method)
        return self._unary(method)

    def _writing(
        self, method: Callable[..., Any]
    ) -> Callable[[Any, grpc.ServicerContext], Iterator[Any]]:
        def streaming(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
            sent: queue.Queue[Any] = queue.Queue()
            done = object()
            call = asyncio.run_coroutine_threadsafe(
                method(request, AioContext(context, sent.put)), self._loop.loop
            )
            call.add_done_callback(lambda _: sent.put(done))
            try:
                while (message := sent.get(timeout=CALL_TIMEOUT)) is not done:
                    yield message
                with contextlib.suppress(grpc.aio.AbortError):
                    call.result()
            finally:
                call.cancel()  # the client went away first: stop the method

        return streaming

    def _unary(self, method: Callable[..., Any]) -> Callable[[Any, grpc.ServicerContext], Any]:
        def unary(request: Any, context: grpc.ServicerContext) -> Any:
            try:
                return self._loop.run(method(request, AioContext(context)))
            except grpc.aio.AbortError:
                return None  # the status is on the context; grpc sends no message either

        return unary

    def _streaming(
        self, method: Callable[..., Any]
    ) -> Callable[[Any, grpc.ServicerContext], Iterator[Any]]:
        def streaming(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
            responses = method(request, AioContext(context))
            try:
                while True:
                    yield self._loop.run(responses.__anext__())
            except (StopAsyncIteration, grpc.aio.AbortError):
                return
            finally:
                self._loop.run(responses.aclose())

        return streaming
