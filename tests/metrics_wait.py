"""Wait until metrics read what a test expects, instead of reading them once.

A server counts a call as the call ends there, which can be just after its client already has
the status (an abort or a refusal sends it first), and it bumps a request's counter and its
histogram one after the other; so one read right after a call may not show it yet.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TypeVar

T = TypeVar("T")

# Generous for a loaded machine: a count normally shows within milliseconds of the call.
SETTLE_TIMEOUT = 20.0
POLL_INTERVAL = 0.02


async def settled(
    read: Callable[[], Awaitable[T]],
    values: Callable[[T], Mapping[str, float | None]],
    expected: Mapping[str, float | None],
    *,
    timeout: float = SETTLE_TIMEOUT,
) -> T:
    """The first reading whose `values` are exactly `expected`. When none is within `timeout`
    seconds, an AssertionError shows the values of the last reading."""
    deadline = time.monotonic() + timeout
    while True:
        reading = await read()
        seen = dict(values(reading))
        if seen == dict(expected):
            return reading
        if time.monotonic() >= deadline:
            raise AssertionError(
                f"metrics did not reach {dict(expected)} within {timeout:g} s; last read {seen}"
            )
        await asyncio.sleep(POLL_INTERVAL)
