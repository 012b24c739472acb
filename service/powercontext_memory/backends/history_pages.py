"""History pages shared by the Changes streams of this process that are on them.

Revisions never change once committed, so a page of a memory's history read for one stream
serves every other stream replaying the same revisions at the same time: many replays of one
memory read each page from the database once (one stream reads it while the others wait for
that read), and the readers stay free for other calls. A page is kept only while a stream
holds it, so memory stays bounded by the streams (one page each) and a replay that starts
after the others are done reads and verifies afresh. Pages start at multiples of the page
size, so streams share them whatever revision they began at (one that begins mid-page reads
its first page from there, unless another stream has the whole page). Each revision is
decoded and verified against its stored hash the first time any stream takes it, one at a
time, so the event loop never runs a page's worth of hashing and parsing in one step; one that
fails its hash is never kept, so every stream that reaches it fails it.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Awaitable, Callable

from ..api import RevisionChanges
from .port import ChangesRow
from .read_session import revision_changes

ReadRows = Callable[[int, int], Awaitable[list[ChangesRow]]]
PageKey = tuple[str, int]  # (artifact id, first revision of the page)

# Page reads in progress at once, whatever the number of streams and memories: the database's
# other readers stay free for unary calls.
DEFAULT_READS = 2


class HistoryPage:
    """Revisions first..last of one memory, each decoded on first use."""

    __slots__ = ("first", "last", "_rows", "_decoded", "__weakref__")

    def __init__(self, first: int, rows: list[ChangesRow]) -> None:
        self.first = first
        self.last = first + len(rows) - 1
        self._rows: list[ChangesRow | None] = list(rows)
        self._decoded: list[RevisionChanges | None] = [None] * len(rows)

    def item(self, revision: int) -> RevisionChanges:
        """The revision, verified (DataLossError when its changes fail their hash)."""
        index = revision - self.first
        decoded = self._decoded[index]
        if decoded is None:
            row = self._rows[index]
            assert row is not None  # a row is dropped only once decoded
            decoded = self._decoded[index] = revision_changes(row)
            self._rows[index] = None  # the decoded form is what the other streams need
        return decoded


class _Read:
    """A page read in progress, and the streams waiting for it."""

    __slots__ = ("last", "task", "page", "waiters")

    def __init__(self, last: int) -> None:
        self.last = last
        self.task: asyncio.Task[None] | None = None
        # Held here, not as the task's result: the futures of an await outlive it by a step
        # of the event loop, and a page must be gone once no stream holds it.
        self.page: HistoryPage | None = None
        self.waiters = 0


class HistoryPages:
    """The pages streams hold now, and the page reads in progress."""

    def __init__(self, reads: int = DEFAULT_READS) -> None:
        self._pages: weakref.WeakValueDictionary[PageKey, HistoryPage] = (
            weakref.WeakValueDictionary()
        )
        self._reading: dict[PageKey, _Read] = {}
        self._reads = asyncio.Semaphore(reads)

    def __len__(self) -> int:
        return len(self._pages)

    async def page(
        self, artifact_id: str, start: int, first: int, last: int, read: ReadRows
    ) -> HistoryPage:
        """A page of `artifact_id` holding first..last: the one from `start` (where the page
        holding `first` begins) or from `first` that another stream holds or is reading, or
        else one read now with `read(first, last)`, so that a stream beginning mid-page reads
        none of the revisions before its own (a few near the head stay a short read)."""
        keys = [(artifact_id, start), (artifact_id, first)] if start < first else []
        keys = keys or [(artifact_id, first)]
        for key in keys:
            page = self._pages.get(key)
            if page is not None and page.last >= last:
                return page
        for key in keys:
            reading = self._reading.get(key)
            if reading is not None and reading.last >= last:
                return await self._wait(key, reading)
        key = (artifact_id, first)
        reading = self._reading[key] = _Read(last)
        reading.task = asyncio.ensure_future(self._read(key, reading, read))
        reading.task.add_done_callback(lambda _: self._settle(key, reading))
        return await self._wait(key, reading)

    async def _wait(self, key: PageKey, reading: _Read) -> HistoryPage:
        assert reading.task is not None
        reading.waiters += 1
        try:
            # Shielded: a stream that goes away while it waits does not end the read the
            # others wait for.
            await asyncio.shield(reading.task)
            page = reading.page
        finally:
            reading.waiters -= 1
            self._settle(key, reading)
        assert page is not None  # the read succeeded, or the await raised
        return page

    async def _read(self, key: PageKey, reading: _Read, read: ReadRows) -> None:
        async with self._reads:
            rows = await read(key[1], reading.last)
        page = reading.page = HistoryPage(key[1], rows)
        held = self._pages.get(key)
        if held is None or held.last < page.last:  # a longer read of the same page may win
            self._pages[key] = page

    def _settle(self, key: PageKey, reading: _Read) -> None:
        """Forget a finished read once no stream waits for it any more."""
        task = reading.task
        if task is None or not task.done() or reading.waiters:
            return
        if self._reading.get(key) is reading:
            del self._reading[key]
        reading.page = None
        if not task.cancelled():
            task.exception()  # read here too, so a failure no stream waited for is not logged
