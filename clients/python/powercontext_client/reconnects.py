"""follow()'s connection across its streams: when a broken stream is reopened, when follow()
gives up, and what it tells `on_reconnect`.

A follow that has never reached a server fails like any other call once the connect window is
over (an Unavailable naming the endpoint and the cause). Once it has, a broken stream is
reopened — with jittered backoff, for up to `reconnect_for` seconds without a message — and
`on_reconnect` hears once that it is reconnecting, then once that it has resumed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

import grpc

from .config import ClientConfig
from .errors import PowerContextError, connect_failure, from_rpc_error, retryable, unreachable
from .retry import Backoff


@dataclass(frozen=True, slots=True)
class FollowEvent:
    """What follow() tells `on_reconnect`: its stream broke and is being reopened
    ("reconnecting", with the failure), or it is open again ("resumed"). Either way the
    stream goes on after revision `since`, the last one delivered."""

    state: Literal["reconnecting", "resumed"]
    since: int
    endpoint: str
    error: PowerContextError | None = None


OnReconnect = Callable[[FollowEvent], None]


class Reconnects:
    def __init__(
        self,
        config: ClientConfig,
        reconnect_for: float | None,
        backoff: Backoff,
        on_reconnect: OnReconnect | None,
    ) -> None:
        self._endpoint = config.endpoint
        self._connect_timeout = config.connect_timeout
        self._reconnect_for = reconnect_for
        self._backoff = backoff
        self._on_reconnect = on_reconnect
        self._delays: Iterator[float] = backoff.delays()
        self._reached = False  # a server has seen one of the streams
        self._broken: PowerContextError | None = None  # why the stream is down, while it is
        self._window_end: float | None = None
        self._failing_since: float | None = None

    def opened(self, since: int) -> None:
        """The stream is on a connection to a server."""
        self._reached = True
        if self._broken is not None:
            self._broken = None
            self._tell(FollowEvent("resumed", since, self._endpoint))

    def received(self) -> None:
        """A message arrived: the next failure starts a fresh backoff and clock."""
        self._failing_since = None
        self._delays = self._backoff.delays()

    def pause(self, rpc_error: grpc.RpcError, since: int) -> float:
        """Seconds to wait before reopening the stream; raises the failure instead when
        follow() gives up."""
        now = time.monotonic()
        delay = next(self._delays)
        cause = connect_failure(rpc_error)
        error = from_rpc_error(rpc_error) if cause is None else unreachable(self._endpoint, cause)
        if not retryable(error):
            raise error from rpc_error
        if cause is not None and not self._reached:
            if self._window_end is None:
                self._window_end = now + self._connect_timeout
            if now >= self._window_end:
                raise error from rpc_error
            return min(delay, self._window_end - now)
        self._reached = True
        if self._failing_since is None:
            self._failing_since = now
        if self._reconnect_for is not None and now - self._failing_since > self._reconnect_for:
            raise error from rpc_error
        if self._broken is None:
            self._broken = error
            self._tell(FollowEvent("reconnecting", since, self._endpoint, error))
        return delay

    def _tell(self, event: FollowEvent) -> None:
        if self._on_reconnect is not None:
            self._on_reconnect(event)
