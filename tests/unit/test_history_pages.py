"""HistoryPages: streams on the same page share one read and one decode of each revision; a
page lives only while a stream holds it; failures are never kept."""

from __future__ import annotations

import asyncio
import gc

import pytest

from powercontext_memory.backends.history_pages import HistoryPage, HistoryPages
from powercontext_memory.backends.port import ChangesRow
from powercontext_memory.domain.canonical import sha256_hex
from powercontext_memory.domain.errors import DataLossError

MEMORY = "mem_1"


def _row(revision: int, *, tampered: bool = False) -> ChangesRow:
    """A revision that changed nothing; `tampered`: its changes no longer match their hash."""
    changes_hash = sha256_hex(b"[]")
    changes = "[ ]" if tampered else "[]"
    return ChangesRow(MEMORY, revision, f"hash{revision}", 1000 + revision, changes, changes_hash)


class Reads:
    """A stand-in for the database: counts reads, and holds each until `release` is set."""

    def __init__(self, *, fail: Exception | None = None) -> None:
        self.calls: list[tuple[int, int]] = []
        self.in_progress = 0
        self.most_at_once = 0
        self.release = asyncio.Event()
        self.fail = fail

    async def __call__(self, first: int, last: int) -> list[ChangesRow]:
        self.calls.append((first, last))
        self.in_progress += 1
        self.most_at_once = max(self.most_at_once, self.in_progress)
        try:
            await self.release.wait()
        finally:
            self.in_progress -= 1
        if self.fail is not None:
            raise self.fail
        return [_row(r) for r in range(first, last + 1)]


async def test_streams_asking_for_the_same_page_share_one_read() -> None:
    pages = HistoryPages()
    reads = Reads()
    waiting = [asyncio.create_task(pages.page(MEMORY, 1, 1, 4, reads)) for _ in range(10)]
    await asyncio.sleep(0)
    reads.release.set()
    got = await asyncio.gather(*waiting)
    assert reads.calls == [(1, 4)]
    assert all(page is got[0] for page in got)
    # A later stream while the page is held takes it as it is, for any part of it.
    assert await pages.page(MEMORY, 1, 1, 3, reads) is got[0]
    assert reads.calls == [(1, 4)]


async def test_a_page_is_gone_once_no_stream_holds_it() -> None:
    pages = HistoryPages()
    reads = Reads()
    reads.release.set()
    page = await pages.page(MEMORY, 1, 1, 4, reads)
    assert len(pages) == 1
    del page
    gc.collect()
    assert len(pages) == 0
    await pages.page(MEMORY, 1, 1, 4, reads)  # read afresh, and verified afresh
    assert reads.calls == [(1, 4), (1, 4)]


async def test_a_stream_that_goes_away_does_not_end_the_read_of_the_others() -> None:
    pages = HistoryPages()
    reads = Reads()
    leaving = asyncio.create_task(pages.page(MEMORY, 1, 1, 4, reads))
    staying = asyncio.create_task(pages.page(MEMORY, 1, 1, 4, reads))
    await asyncio.sleep(0)
    leaving.cancel()
    await asyncio.sleep(0)
    reads.release.set()
    page = await staying
    assert (page.first, page.last) == (1, 4)
    assert leaving.cancelled()
    assert reads.calls == [(1, 4)]


async def test_a_failed_read_reaches_every_waiting_stream_and_is_not_kept() -> None:
    pages = HistoryPages()
    reads = Reads(fail=DataLossError("artifact_revisions[mem_1@3]: missing"))
    waiting = [asyncio.create_task(pages.page(MEMORY, 1, 1, 4, reads)) for _ in range(3)]
    await asyncio.sleep(0)
    reads.release.set()
    results = await asyncio.gather(*waiting, return_exceptions=True)
    assert all(isinstance(r, DataLossError) for r in results)
    reads.fail = None
    page = await pages.page(MEMORY, 1, 1, 4, reads)  # the next stream reads again
    assert page.last == 4
    assert reads.calls == [(1, 4), (1, 4)]


async def test_a_stream_needing_more_of_a_page_than_is_held_reads_it_again() -> None:
    """The page at the head grows as revisions commit."""
    pages = HistoryPages()
    reads = Reads()
    reads.release.set()
    short = await pages.page(MEMORY, 1, 1, 2, reads)
    longer = await pages.page(MEMORY, 1, 1, 4, reads)
    assert (short.last, longer.last) == (2, 4)
    assert await pages.page(MEMORY, 1, 1, 3, reads) is longer
    assert reads.calls == [(1, 2), (1, 4)]


async def test_a_stream_beginning_mid_page_takes_the_whole_page_another_has() -> None:
    pages = HistoryPages()
    reads = Reads()
    whole = asyncio.create_task(pages.page(MEMORY, 1, 1, 4, reads))
    mid = asyncio.create_task(pages.page(MEMORY, 1, 3, 4, reads))  # joins the read of 1..4
    await asyncio.sleep(0)
    reads.release.set()
    page = await whole
    assert await mid is page
    assert await pages.page(MEMORY, 1, 2, 4, reads) is page  # held: taken as it is
    assert reads.calls == [(1, 4)]


async def test_alone_a_stream_beginning_mid_page_reads_from_its_own_revision() -> None:
    pages = HistoryPages()
    reads = Reads()
    reads.release.set()
    page = await pages.page(MEMORY, 1, 3, 4, reads)
    assert (page.first, page.last, page.item(3).ref.revision) == (3, 4, 3)
    assert await pages.page(MEMORY, 1, 3, 4, reads) is page  # a stream at the same revision
    assert reads.calls == [(3, 4)]


async def test_page_reads_in_progress_are_bounded() -> None:
    pages = HistoryPages(reads=2)
    reads = Reads()
    waiting = [
        asyncio.create_task(pages.page(f"mem_{i}", 1, 1, 4, reads)) for i in range(5)
    ]  # five memories: nothing to share
    for _ in range(5):
        await asyncio.sleep(0)
    assert reads.in_progress == 2
    reads.release.set()
    await asyncio.gather(*waiting)
    assert reads.most_at_once == 2
    assert len(reads.calls) == 5


def test_each_revision_is_decoded_once_and_a_tampered_one_fails_every_time() -> None:
    page = HistoryPage(1, [_row(1), _row(2, tampered=True)])
    first = page.item(1)
    assert first.ref.revision == 1
    assert first.changes == ()
    assert page.item(1) is first  # decoded once, shared by every stream
    for _ in range(2):
        with pytest.raises(DataLossError) as lost:
            page.item(2)
        assert lost.value.metadata == {"row": f"artifact_revisions[{MEMORY}@2]"}
