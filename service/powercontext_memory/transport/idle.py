"""How long the server has been idle: no call in flight, and none begun or ended since.

`serve --idle-exit SECONDS` (the zero-config local server a client starts for its user) stops
after that long idle. A follow stream is a call in flight for as long as it is open, so a
server with a follower never goes idle.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

# How often an idle server looks at the clock again (at most; sooner when the end is near).
CHECK_SECONDS = 5.0


class IdleWatch:
    """Counts calls in flight (the observing interceptor calls `begin` and `end`)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.in_flight = 0
        self.last_activity = clock()

    def begin(self) -> None:
        self.in_flight += 1
        self.last_activity = self._clock()

    def end(self) -> None:
        self.in_flight -= 1
        self.last_activity = self._clock()

    def idle_seconds(self) -> float:
        return 0.0 if self.in_flight else self._clock() - self.last_activity

    async def wait_idle(self, seconds: float) -> None:
        """Return once the server has been idle for `seconds` (counted from this call at the
        earliest: the time spent starting up is not idle time)."""
        self.last_activity = max(self.last_activity, self._clock())
        while True:
            left = seconds - self.idle_seconds()
            if left <= 0:
                return
            await asyncio.sleep(min(left, CHECK_SECONDS))
