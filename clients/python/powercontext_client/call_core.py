"""How every call of the client is sent: its deadline, its attempts (attempts.py) and the
transport (transport.py); core.py and curation_calls.py build the calls on it."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import grpc

from .attempts import Attempts, never
from .config import ClientConfig
from .errors import PowerContextError, retryable
from .retry import Backoff
from .transport import Transport

T = TypeVar("T")

READ_ATTEMPTS = 4
_UNSET: Any = object()  # a call's `timeout` not given: the config's applies


def remaining(deadline: float | None) -> float | None:
    return None if deadline is None else max(0.0, deadline - time.monotonic())


class CallCore:
    """The call machinery every call goes through: deadlines, attempts, the transport."""

    def __init__(self, config: ClientConfig, transport: Transport, backoff: Backoff | None) -> None:
        self.config = config
        self.stub = transport.stub  # the raw generated stub, for anything not wrapped here
        self._transport = transport
        self._metadata = config.call_metadata()
        self._backoff = backoff or Backoff()

    async def close(self) -> None:
        await self._transport.close()

    # -- the call machinery ---------------------------------------------------------------------

    def _deadline(self, timeout: float | None) -> float | None:
        seconds = self.config.timeout if timeout is _UNSET else timeout
        return None if seconds is None else time.monotonic() + seconds

    def _attempts(
        self,
        *,
        attempts: int,
        again: Callable[[PowerContextError], bool],
        deadline: float | None,
        connect: bool = True,
    ) -> Attempts:
        window = self.config.connect_timeout if connect else 0.0
        return Attempts(
            self.config.endpoint,
            window,
            self._backoff.delays(),
            attempts=attempts,
            again=again,
            deadline=deadline,
        )

    async def _send(
        self,
        send: Callable[[float | None], Awaitable[T]],
        attempts: Attempts,
        deadline: float | None,
    ) -> T:
        """`send(seconds)` until it succeeds or `attempts` raises; each send gets what is left
        of the call's deadline."""
        while True:
            try:
                return await send(remaining(deadline))
            except grpc.RpcError as rpc_error:
                pause = attempts.pause(rpc_error)
            await self._transport.sleep(pause)

    async def _call(self, method: Any, request: Any, *, timeout: float | None, read: bool) -> Any:
        """One unary call. A read is sent again after a retryable failure (errors.retryable)
        while its deadline allows; any call is sent again while it reaches no server, for the
        connect window (attempts.py)."""

        async def send(seconds: float | None) -> Any:
            return await self._transport.unary(
                method, request, timeout=seconds, metadata=self._metadata
            )

        deadline = self._deadline(timeout)
        attempts = self._attempts(
            attempts=READ_ATTEMPTS if read else 1,
            again=retryable if read else never,
            deadline=deadline,
        )
        return await self._send(send, attempts, deadline)
