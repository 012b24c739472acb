"""Warming the version cache: a searched memory's active versions, read once in the background.

A search answers only verified versions (search/verify.py). The first time this process answers
an entry, it reads the row, parses it and checks its hash on the event loop: at 10,000 entries
that was a sixth of a cold search's server time under load, until every entry had been a hit.
So when a memory is first searched and all its active versions fit in the version cache, they
are read and verified in the background, a chunk per short read transaction, and later searches
take them from memory. A memory too large for the cache is not warmed: its hits spread over
more versions than would stay. Warming only saves reads; a failure is logged, and the versions
are read when a search needs them, as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING

from ..domain.models import ArtifactRef, EntryState
from .version_cache import VersionCache

if TYPE_CHECKING:
    from .read_session import ReadSession

# Versions per read transaction: small enough that parsing and hashing a chunk holds the event
# loop no longer than one search does (search latency: `make bench`, bench/__main__.py).
WARM_CHUNK = 64

logger = logging.getLogger(__name__)


class VersionWarmer:
    """Warms each memory at most once per process, on its first search."""

    def __init__(
        self, read: Callable[[], AbstractAsyncContextManager[ReadSession]], cache: VersionCache
    ) -> None:
        self._read = read
        self._cache = cache
        self._seen: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    def warm(self, heads: Sequence[ArtifactRef]) -> None:
        """Start warming the memories of `heads` not warmed (or being warmed) yet."""
        for head in heads:
            if head.artifact_id in self._seen:
                continue
            self._seen.add(head.artifact_id)
            task = asyncio.create_task(self._warm(head), name=f"warm-versions {head.artifact_id}")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _warm(self, head: ArtifactRef) -> None:
        try:
            async with self._read() as session:
                manifest = (await session.revision(head)).content.manifest
            if not self._cache.fits(manifest.active_count):
                return
            ids = [e.entry_version_id for e in manifest if e.state is EntryState.ACTIVE]
            for start in range(0, len(ids), WARM_CHUNK):
                chunk = [v for v in ids[start : start + WARM_CHUNK] if v not in self._cache]
                if not chunk:
                    continue
                if not self._cache.fits(len(chunk)):
                    return  # texts were longer than their overhead: stop before evicting
                async with self._read() as session:
                    versions = await session.versions(chunk)  # read and verified
                for version in versions.values():
                    self._cache.put(version)
                await asyncio.sleep(0)  # searches go first
        except Exception:  # warming only saves reads: searches read what they need
            logger.warning(
                "warming the versions of memory %s stopped", head.artifact_id, exc_info=True
            )

    async def settled(self) -> None:
        """Until the warming started so far has ended (tests, and a caller that must know)."""
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def close(self) -> None:
        """Cancel warming still under way (the server is stopping)."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
