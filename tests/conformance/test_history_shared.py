"""Replays of one memory at the same time share its history pages: each page is read from the
database once, and every stream still gets every revision, in order, exactly once; a replay
that starts after the others are done reads afresh."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

from powercontext_memory.api import RevisionChanges
from powercontext_memory.domain.errors import DataLossError
from powercontext_memory.domain.models import ArtifactRef
from powercontext_memory.memory import MemoryService
from powercontext_memory.observing.port import ServiceObserver

from .conftest import Harness
from .helpers import add, ref

STREAMS = 20


class Pages(ServiceObserver):
    def __init__(self) -> None:
        self.pages: list[int] = []

    def history_page(self, revisions: int) -> None:
        self.pages.append(revisions)


async def _grow(service: MemoryService, revisions: int) -> ArtifactRef:
    memory = ref(await service.remember(None, [], [], [add("entry 1")]))
    for i in range(2, revisions + 1):
        memory = ref(await service.remember(memory, [], [], [add(f"entry {i}")]))
    return memory


async def _replays(service: MemoryService, head: ArtifactRef, sinces: list[int]) -> list[object]:
    """Streams opened first, then read together (each a list of its revisions, or its error)."""
    feeds = [(await service.changes(head, since))[1] for since in sinces]
    return await asyncio.gather(*(_read(head, feed) for feed in feeds), return_exceptions=True)


async def _read(head: ArtifactRef, items: AsyncGenerator[RevisionChanges, None]) -> list[int]:
    revisions = []
    async for item in items:
        revisions.append(item.ref.revision)
        assert item.ref.artifact_id == head.artifact_id
        await asyncio.sleep(0)  # streams take turns, as their writes make them
    return revisions


async def test_replays_at_the_same_time_read_each_page_once(service: MemoryService) -> None:
    head = await _grow(service, 10)
    service.backend.history_page = 4
    pages = Pages()
    service.observe(pages)
    assert await _replays(service, head, [0] * STREAMS) == [list(range(1, 11))] * STREAMS
    assert pages.pages == [4, 4, 2]
    # Streams beginning mid-page share the whole page another stream reads (pages start at
    # multiples of 4), read afresh: the earlier replays are done.
    pages.pages.clear()
    sinces = [0, 1, 2, 3]
    assert await _replays(service, head, sinces) == [list(range(s + 1, 11)) for s in sinces]
    assert pages.pages == [4, 4, 2]
    assert len(service.backend.history_pages) == 0  # nothing held once every stream is done
    # Alone, a stream beginning mid-page reads none of the revisions before its own.
    pages.pages.clear()
    assert await _replays(service, head, [2]) == [list(range(3, 11))]
    assert pages.pages == [2, 4, 2]


async def test_a_tampered_revision_fails_every_stream_that_reaches_it(harness: Harness) -> None:
    service = harness.service
    assert service is not None
    head = await _grow(service, 6)
    harness.tamper.execute(
        "UPDATE artifact_revisions SET changes = replace(changes, '\"add\"', '\"forget\"') "
        "WHERE revision = 5"
    )
    outcomes = await _replays(service, head, [0] * STREAMS)
    where = f"artifact_revisions[{head.artifact_id}@5]"
    for outcome in outcomes:
        assert isinstance(outcome, DataLossError)
        assert outcome.metadata == {"row": where}
