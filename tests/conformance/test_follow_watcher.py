"""Follow streams share one head watcher per process, on every backend.

Idle followers cost one head query per poll for the whole process (not one per stream), a
commit is read from the database once for all followers, commits by another process sharing
the database are seen, and a follower that fell behind what the watcher keeps reads the rest
from the database: never a skipped, repeated or reordered revision.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Callable, Sequence
from contextlib import aclosing

import pytest

from powercontext_memory import notifier
from powercontext_memory.api import RevisionChanges
from powercontext_memory.domain.errors import DataLossError
from powercontext_memory.follow import Progress
from powercontext_memory.memory import MemoryService

from .conftest import Harness
from .helpers import add, ref

WAIT = 10.0  # seconds: only a bound on waiting for what must happen
Feed = AsyncGenerator[RevisionChanges | Progress, None]


async def _until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting: {what}"
        await asyncio.sleep(0.01)


async def _revisions(feed: Feed, count: int) -> list[int]:
    out: list[int] = []
    while len(out) < count:
        item = await asyncio.wait_for(anext(feed), WAIT)
        if isinstance(item, RevisionChanges):
            out.append(item.ref.revision)
    return out


class CountedHistory:
    """Counts the database history reads of a backend (an async generator function)."""

    def __init__(self, service: MemoryService) -> None:
        self.history = service.backend.history
        self.calls = 0
        service.backend.history = self  # type: ignore[method-assign,assignment]

    def __call__(self, *args: int) -> AsyncGenerator[RevisionChanges, None]:
        self.calls += 1
        return self.history(*args)  # type: ignore[arg-type]


class Counted:
    """Counts the calls of an async function."""

    def __init__(self, function: Callable[..., object]) -> None:
        self.function = function
        self.calls = 0

    async def __call__(self, *args: object) -> object:
        self.calls += 1
        return await self.function(*args)  # type: ignore[misc]


async def test_idle_followers_share_one_poll_and_one_read_per_commit(
    service: MemoryService,
) -> None:
    watcher = service.notifier
    watcher.interval = 0.05
    heads = Counted(watcher._read_heads)
    changes = Counted(watcher._read_changes)
    watcher._read_heads = heads  # type: ignore[method-assign]
    watcher._read_changes = changes  # type: ignore[method-assign]
    memory = ref(await service.remember(None, [], [], [add("followed")]))
    feeds = [service.follow_changes(memory, None) for _ in range(40)]
    try:
        assert [await _revisions(feed, 1) for feed in feeds] == [[1]] * 40
        history = CountedHistory(service)
        polls = watcher.polls
        await _until(lambda: watcher.polls >= polls + 10, "ten polls")
        assert heads.calls == watcher.polls  # one head query per poll, for all 40 streams

        for text in ("two", "three", "four"):
            memory = ref(await service.remember(memory, [], [], [add(text)]))
        for feed in feeds:
            assert await _revisions(feed, 3) == [2, 3, 4]
        assert history.calls == 0  # nobody fell back to the database...
        assert changes.calls <= 3  # ...each commit was read at most once, for everyone
    finally:
        for feed in feeds:
            await feed.aclose()
    await _until(lambda: watcher.followers == 0, "the followers to leave")


async def test_commits_by_another_process_reach_the_followers(harness: Harness) -> None:
    first = harness.service
    assert first is not None
    first.notifier.interval = 0.05
    memory = ref(await first.remember(None, [], [], [add("shared")]))
    second = await harness.open()  # another server on the same database
    try:
        async with aclosing(first.follow_changes(memory, None)) as feed:
            assert await _revisions(feed, 1) == [1]
            head = memory
            for text in ("a", "b", "c"):
                head = ref(await second.remember(head, [], [], [add(text)]))
            assert await _revisions(feed, 3) == [2, 3, 4]
    finally:
        await second.close()
        harness.service = first


async def test_a_follower_behind_the_watcher_reads_the_rest_from_the_database(
    service: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(notifier, "KEEP_CHANGES", 2)  # the watcher keeps two revisions
    history = CountedHistory(service)
    memory = ref(await service.remember(None, [], [], [add("start")]))
    async with (
        aclosing(service.follow_changes(memory, None)) as fast,
        aclosing(service.follow_changes(memory, None)) as slow,
    ):
        assert await _revisions(fast, 1) == [1] and await _revisions(slow, 1) == [1]
        for i in range(2, 12):
            memory = ref(await service.remember(memory, [], [], [add(f"entry {i}")]))
            assert await _revisions(fast, 1) == [i]  # the fast one keeps up
        reads = history.calls
        assert await _revisions(slow, 10) == list(range(2, 12))  # the slow one catches up
        assert history.calls == reads + 1  # from the database, once
        memory = ref(await service.remember(memory, [], [], [add("after")]))
        assert await _revisions(slow, 1) == [12] and await _revisions(fast, 1) == [12]


async def test_followers_of_several_memories_are_polled_together(
    service: MemoryService,
) -> None:
    watcher = service.notifier
    watcher.interval = 0.05
    seen: list[Sequence[str]] = []
    read_heads = watcher._read_heads

    async def heads(artifact_ids: Sequence[str]) -> dict[str, int]:
        seen.append(sorted(artifact_ids))
        return await read_heads(artifact_ids)

    watcher._read_heads = heads  # type: ignore[method-assign]
    memories = [ref(await service.remember(None, [], [], [add(f"m{i}")])) for i in range(3)]
    feeds = [service.follow_changes(m, None) for m in memories]
    try:
        for feed in feeds:
            assert await _revisions(feed, 1) == [1]
        seen.clear()
        await _until(lambda: len(seen) >= 3, "three polls")
        assert seen[-1] == sorted(m.artifact_id for m in memories)  # one query for all three
    finally:
        for feed in feeds:
            await feed.aclose()


async def test_a_failed_read_ends_only_that_memorys_followers(service: MemoryService) -> None:
    watcher = service.notifier
    broken = ref(await service.remember(None, [], [], [add("broken")]))
    healthy = ref(await service.remember(None, [], [], [add("healthy")]))
    read_changes = watcher._read_changes

    async def changes(artifact_id: str, first: int, last: int) -> list[RevisionChanges]:
        if artifact_id == broken.artifact_id:
            raise DataLossError(f"artifact_revisions[{artifact_id}@{first}]: tampered")
        return await read_changes(artifact_id, first, last)

    watcher._read_changes = changes  # type: ignore[method-assign]
    async with (
        aclosing(service.follow_changes(broken, None)) as on_broken,
        aclosing(service.follow_changes(healthy, None)) as on_healthy,
    ):
        assert await _revisions(on_broken, 1) == [1] and await _revisions(on_healthy, 1) == [1]
        await service.remember(broken, [], [], [add("two")])
        await service.remember(healthy, [], [], [add("two")])
        with pytest.raises(DataLossError):
            await _revisions(on_broken, 1)
        assert await _revisions(on_healthy, 1) == [2]
