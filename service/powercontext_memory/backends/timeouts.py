"""The server-side bound on database work: a stuck database answers UNAVAILABLE, not a hang.

Without it a frozen OceanBase (process stopped) held every call until the client's own deadline,
and a SQLite file locked by another process failed after a fixed 10 s with an unmapped driver
error. The server bounds each database call (and each wait for a connection or for the writer)
by `--database-timeout` (default 10 s); an adapter discards the connection a timed-out call
was using. Offline commands run unbounded (None).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from ..domain.errors import UnavailableError

DEFAULT_DATABASE_TIMEOUT = 10.0  # seconds


def timed_out(location: str, seconds: float, what: str) -> UnavailableError:
    return UnavailableError(
        f"the database at {location} {what} within {seconds:g} s; retry later",
        reason="DATABASE_TIMEOUT",
        metadata={"timeoutSeconds": f"{seconds:g}"},
    )


@asynccontextmanager
async def bounded(
    seconds: float | None,
    location: str,
    *,
    what: str = "did not answer",
    on_timeout: Callable[[], None] | None = None,
) -> AsyncIterator[None]:
    """Run the block within `seconds` (None: unbounded). On expiry the block is cancelled,
    `on_timeout` runs (discard the connection), and UnavailableError DATABASE_TIMEOUT raised."""
    if seconds is None:
        yield
        return
    try:
        async with asyncio.timeout(seconds):
            yield
    except TimeoutError as error:
        if on_timeout is not None:
            on_timeout()
        raise timed_out(location, seconds, what) from error
