"""When a failed call is sent again, for every call of core.py but follow().

Two kinds of failure, two budgets:

* the call reached no server (errors.connect_failure: refused, not resolved, handshake
  refused): nothing was sent, so any call may be sent again, until the connect window
  (ClientConfig.connect_timeout) counted from the first such failure is over; then it fails
  with an Unavailable naming the endpoint and the cause (errors.unreachable). A server that
  is restarting is found again inside the window; one that is stopped is reported at once
  after it, instead of at the call's deadline.
* a server answered: the call is sent again only when `again(error)` says so (a retryable
  read, a write whose answer was lost), at most `attempts` answered sends in all.

Neither goes past the call's deadline, when it has one.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import grpc

from .errors import PowerContextError, connect_failure, from_rpc_error, unreachable


def never(error: PowerContextError) -> bool:
    """For calls that must not be sent twice once a server may have seen them."""
    return False


class Attempts:
    def __init__(
        self,
        endpoint: str,
        connect_timeout: float,
        delays: Iterator[float],
        *,
        attempts: int,
        again: Callable[[PowerContextError], bool],
        deadline: float | None,
    ) -> None:
        self._endpoint = endpoint
        self._connect_timeout = connect_timeout
        self._delays = delays
        self._attempts = attempts
        self._again = again
        self._deadline = deadline
        self._answered = 0
        self._window_end: float | None = None

    def pause(self, rpc_error: grpc.RpcError) -> float:
        """Seconds to wait before sending the call again; raises the call's error instead
        when it is not to be sent again."""
        now = time.monotonic()
        delay = next(self._delays)
        cause = connect_failure(rpc_error)
        if cause is not None:
            if self._window_end is None:
                self._window_end = now + self._connect_timeout
            wait = min(delay, self._window_end - now)  # the last try lands at the window's end
            if now >= self._window_end or self._late(now + wait):
                raise unreachable(self._endpoint, cause) from rpc_error
            return wait
        error = from_rpc_error(rpc_error)
        self._answered += 1
        if self._late(now + delay) or self._answered >= self._attempts or not self._again(error):
            raise error from rpc_error
        return delay

    def _late(self, moment: float) -> bool:
        """Whether a send at `moment` would have no time left before the deadline."""
        return self._deadline is not None and moment >= self._deadline
