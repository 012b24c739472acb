"""The observer port on every backend: what the service and its backend report, and when."""

from __future__ import annotations

from contextlib import aclosing
from typing import Any

import pytest

from powercontext_memory.domain.errors import NotFoundError, RevisionConflictError
from powercontext_memory.memory import MemoryService
from powercontext_memory.observing.port import ServiceObserver

from .conftest import Harness
from .helpers import add, create, entry_ref, ref


class Recorder(ServiceObserver):
    def __init__(self) -> None:
        self.events: list[tuple[Any, ...]] = []

    def committed(self, operation: str) -> None:
        self.events.append(("committed", operation))

    def cas_conflict(self, operation: str) -> None:
        self.events.append(("cas_conflict", operation))

    def database_error(self, backend: str, error: str) -> None:
        self.events.append(("database_error", backend, error))

    def follow_opened(self) -> None:
        self.events.append(("follow_opened",))

    def follow_closed(self) -> None:
        self.events.append(("follow_closed",))


@pytest.fixture
def recorder(service: MemoryService) -> Recorder:
    recorder = Recorder()
    service.observe(recorder)
    return recorder


async def test_commits_and_conflicts(service: MemoryService, recorder: Recorder) -> None:
    created = await create(service, "uses tabs")
    first = ref(created)
    second = ref(await service.remember(first, [], [], [add("prefers pytest")]))
    with pytest.raises(RevisionConflictError):
        await service.remember(first, [], [], [add("on a stale head")])
    targets = [entry_ref(created, 0)]
    third = ref(await service.forget(second, targets, None))
    with pytest.raises(RevisionConflictError):
        await service.forget(second, targets, None)
    fourth = ref(await service.reactivate(third, targets, None))
    assert not (await service.organize(fourth, [])).changed  # no revision, no commit

    assert recorder.events == [
        ("committed", "remember"),
        ("committed", "remember"),
        ("cas_conflict", "remember"),
        ("committed", "forget"),
        ("cas_conflict", "forget"),
        ("committed", "reactivate"),
    ]


async def test_follow_feeds_open_and_close(service: MemoryService, recorder: Recorder) -> None:
    memory = ref(await create(service, "watched"))
    async with aclosing(service.follow_changes(memory, None)) as feed:
        first = await anext(feed)
        assert first.ref == memory  # type: ignore[union-attr]
        assert recorder.events[-1] == ("follow_opened",)
    assert recorder.events[-1] == ("follow_closed",)
    assert recorder.events.count(("follow_opened",)) == 1


async def test_a_failing_driver_is_a_database_error(
    harness: Harness, service: MemoryService, recorder: Recorder
) -> None:
    with pytest.raises(NotFoundError):  # a domain error is not a database error
        await service.get_source("src_none")
    assert recorder.events == []

    harness.tamper.execute("DROP TABLE sources")
    with pytest.raises(Exception) as failed:
        await service.get_source("src_none")
    assert isinstance(failed.value, service.backend.adapter.driver_errors)
    assert recorder.events == [("database_error", harness.backend, type(failed.value).__name__)]
