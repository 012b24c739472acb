"""Token records looked up by id, each kept for a few seconds.

Every authenticated call needs its token's record, and reading it from the database each time
would put a read transaction on a connection thread in front of every call
(docs/network-and-auth.md). Kept for `ttl` seconds, a
record is read at most once per `ttl` per server, and so a revocation (or a new token) made
with `powercontext-memory tokens` reaches every server within `ttl` seconds
(DEFAULT_TTL_SECONDS: 5). Unknown ids are kept as
"unknown" too, so a flood of made-up tokens cannot turn into a flood of database reads; the
cache is bounded, least recently used first out.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from .tokens import AccessToken

DEFAULT_TTL_SECONDS = 5.0
MAX_ENTRIES = 10_000

Fetch = Callable[[str], Awaitable[AccessToken | None]]


class TokenCache:
    def __init__(
        self,
        fetch: Fetch,
        *,
        ttl: float = DEFAULT_TTL_SECONDS,
        max_entries: int = MAX_ENTRIES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._fetch = fetch
        self._ttl = ttl
        self._max_entries = max_entries
        self._clock = clock
        self._entries: OrderedDict[str, tuple[float, AccessToken | None]] = OrderedDict()

    async def get(self, token_id: str) -> AccessToken | None:
        """The stored record (None: no such token), at most `ttl` seconds old."""
        now = self._clock()
        entry = self._entries.get(token_id)
        if entry is not None and now - entry[0] < self._ttl:
            self._entries.move_to_end(token_id)
            return entry[1]
        record = await self._fetch(token_id)
        if self._ttl > 0:
            self._entries[token_id] = (now, record)
            self._entries.move_to_end(token_id)
            while len(self._entries) > self._max_entries:
                self._entries.popitem(last=False)
        return record
