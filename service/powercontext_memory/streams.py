"""Caps on open Changes streams, for the whole server and per caller.

A stream costs little once history is paged and follow streams share one watcher, but each
still holds an HTTP/2 stream, a task and its buffers: without a cap one caller could open
them until the process runs out of memory. The caller is `current_caller().key` (the
token's id; "" for everyone when auth is off, so the per-caller cap then applies to all).
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterator

from .domain.errors import ResourceExhaustedError

DEFAULT_MAX_STREAMS = 4096
DEFAULT_MAX_STREAMS_PER_CALLER = 1024


class StreamLimits:
    def __init__(
        self,
        max_streams: int = DEFAULT_MAX_STREAMS,
        max_per_caller: int = DEFAULT_MAX_STREAMS_PER_CALLER,
    ) -> None:
        if max_streams < 1 or max_per_caller < 1:
            raise ValueError("stream limits must be at least 1")
        self.max_streams = max_streams
        self.max_per_caller = max_per_caller
        self._open: Counter[str] = Counter()
        self.total = 0

    @contextlib.contextmanager
    def stream(self, caller_key: str) -> Iterator[None]:
        """Hold one stream slot for `caller_key` for the block, or refuse at once."""
        if self._open[caller_key] >= self.max_per_caller:
            raise _exhausted("this caller has", "caller", self.max_per_caller)
        if self.total >= self.max_streams:
            raise _exhausted("the server has", "server", self.max_streams)
        self._open[caller_key] += 1
        self.total += 1
        try:
            yield
        finally:
            self.total -= 1
            self._open[caller_key] -= 1
            if not self._open[caller_key]:
                del self._open[caller_key]


def _exhausted(who: str, scope: str, limit: int) -> ResourceExhaustedError:
    return ResourceExhaustedError(
        f"{who} reached its limit of {limit} open Changes streams; close one (or wait) and retry",
        reason="TOO_MANY_STREAMS",
        metadata={"scope": scope, "limit": str(limit)},
    )
