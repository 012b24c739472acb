"""Optimistic reads (StorageAdapter.read(optimistic=True)) on every backend.

A read may run its first statement alone and begin its snapshot only for a second one
(OceanBase: one round trip for a warm search instead of three). Whatever the adapter does, what
a read returns belongs to one snapshot: when a commit lands between its first and second
statements, the second one either still sees the first one's state (SQLite: the snapshot began
with the first statement) or raises SnapshotMovedError (OceanBase), and the backend then runs
the read again over a plain snapshot.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest

from powercontext_memory.api import SearchMode
from powercontext_memory.backends.port import SnapshotMovedError
from powercontext_memory.backends.read_session import ReadSession
from powercontext_memory.domain.errors import FailedPreconditionError
from powercontext_memory.domain.models import ArtifactRef
from powercontext_memory.memory import MemoryService
from powercontext_memory.transport.metrics import PrometheusMetrics

from .conftest import Harness
from .helpers import add, create, ref

# Adapters that run an optimistic read's first statement outside its snapshot.
RUNS_FIRST_STATEMENT_ALONE = {"sqlite": False, "oceanbase": True}


@pytest.fixture
async def other(harness: Harness, service: MemoryService) -> AsyncIterator[MemoryService]:
    """A second service on the same database: another server process's commits."""
    second = await harness.open()
    harness.service = service  # the harness fixture closes the first one
    yield second
    await second.close()


async def test_a_commit_between_statements_never_mixes_two_states(
    harness: Harness, service: MemoryService, other: MemoryService
) -> None:
    first = ref(await create(service, "uses tabs"))
    artifact = first.artifact_id
    async with service.backend.adapter.read(optimistic=True) as tx:
        assert await tx.head_revisions([artifact]) == {artifact: first.revision}
        await other.remember(first, [], [], [add("prefers pytest")])
        if RUNS_FIRST_STATEMENT_ALONE[harness.backend]:
            with pytest.raises(SnapshotMovedError):
                await tx.revision_row(artifact, first.revision)
        else:
            assert await tx.revision_row(artifact, first.revision) is not None
            assert await tx.head_revisions([artifact]) == {artifact: first.revision}
    async with service.backend.adapter.read(optimistic=True) as tx:  # the next read: the commit
        assert await tx.head_revisions([artifact]) == {artifact: first.revision + 1}


async def test_unchanged_first_answer_keeps_the_read(
    harness: Harness, service: MemoryService, other: MemoryService
) -> None:
    first = ref(await create(service, "uses tabs"))
    unrelated = ref(await create(other, "another memory"))
    async with service.backend.adapter.read(optimistic=True) as tx:
        assert await tx.head_revisions([first.artifact_id]) == {first.artifact_id: 1}
        await other.remember(unrelated, [], [], [add("a commit elsewhere")])
        row = await tx.revision_row(first.artifact_id, 1)  # no retry: its heads did not move
        assert row is not None and row.artifact_id == first.artifact_id
        # The snapshot began with the second statement, or with the first.
        unrelated_head = 2 if RUNS_FIRST_STATEMENT_ALONE[harness.backend] else 1
        assert await tx.head_revisions([unrelated.artifact_id]) == {
            unrelated.artifact_id: unrelated_head
        }


async def test_optimistic_read_runs_again_over_one_snapshot(
    harness: Harness, service: MemoryService, other: MemoryService
) -> None:
    first = ref(await create(service, "uses tabs"))
    artifact = first.artifact_id
    metrics = PrometheusMetrics()
    service.observe(metrics)
    runs = 0

    async def body(session: ReadSession) -> tuple[int, int]:
        nonlocal runs
        runs += 1
        head = await session.head(artifact)
        if runs == 1:
            await other.remember(ArtifactRef(artifact, head), [], [], [add("prefers pytest")])
        return head, await session.head(artifact)

    heads = await service.backend.optimistic_read(body)
    retries = metrics.registry.get_sample_value(
        "powercontext_read_retries_total", {"backend": service.backend.name}
    )
    if RUNS_FIRST_STATEMENT_ALONE[harness.backend]:
        assert (runs, heads) == (2, (2, 2))  # read again, all of it at the new head
        assert retries == 1
    else:
        assert (runs, heads) == (1, (1, 1))  # the first statement's snapshot throughout
        assert retries is None  # never counted


async def test_search_racing_a_commit_answers_one_state(
    harness: Harness, service: MemoryService, other: MemoryService
) -> None:
    """The first search of a memory must load its index (a second statement): a commit from
    another server right after the heads read is either invisible to the whole search or
    makes the search see that the memory moved on."""
    first = ref(await create(other, "the deploy script lives in tools"))
    raced = CommitAfterHeadsRead(
        service, lambda: other.remember(first, [], [], [add("deploy with make release")])
    )
    with raced:
        if RUNS_FIRST_STATEMENT_ALONE[harness.backend]:
            with pytest.raises(FailedPreconditionError) as err:
                await service.search("deploy", [first], 8, SearchMode.FTS)
            assert err.value.reason == "MEMORY_NOT_AT_HEAD"
            assert err.value.metadata["headRevision"] == "2"
        else:
            result = await service.search("deploy", [first], 8, SearchMode.FTS)
            assert [h.text for h in result.hits] == ["the deploy script lives in tools"]
            assert result.hits[0].memory_ref == first
    second = ArtifactRef(first.artifact_id, 2)
    result = await service.search("deploy", [second], 8, SearchMode.FTS)
    assert sorted(h.text for h in result.hits) == [
        "deploy with make release",
        "the deploy script lives in tools",
    ]


async def test_prepare_context_racing_a_commit_answers_one_state(
    harness: Harness, service: MemoryService, other: MemoryService
) -> None:
    """PrepareContext reads optimistically too: a commit from another server right after its
    heads read gives a block wholly at the old head (SQLite) or wholly at the new one
    (OceanBase, read again), every line citing the revision the block names."""
    first = ref(await create(other, "the deploy script lives in tools"))
    raced = CommitAfterHeadsRead(
        service,
        lambda: other.remember(
            first, [], [], [add("Always deploy with make release.", "constraint")]
        ),
    )
    with raced:
        prepared = await service.prepare_context([ArtifactRef(first.artifact_id, 0)], "deploy", 0)
    if RUNS_FIRST_STATEMENT_ALONE[harness.backend]:
        assert prepared.memories == (ArtifactRef(first.artifact_id, 2),)
        assert "Always deploy with make release." in prepared.block
    else:
        assert prepared.memories == (first,)
        assert "make release" not in prepared.block
    assert "the deploy script lives in tools" in prepared.block
    assert {line.citation.memory_ref for line in prepared.lines} == set(prepared.memories)


class CommitAfterHeadsRead:
    """While active, the first heads read of `service`'s next read is followed by `commit`."""

    def __init__(self, service: MemoryService, commit: Callable[[], Any]) -> None:
        self._adapter = service.backend.adapter
        self._commit = commit
        self._original = self._adapter.read

    def __enter__(self) -> None:
        fired = False

        @asynccontextmanager
        async def read(*, optimistic: bool = False) -> AsyncIterator[Any]:
            nonlocal fired
            async with self._original(optimistic=optimistic) as tx:
                heads = tx.head_revisions

                async def then_commit(artifact_ids: Any) -> dict[str, int]:
                    nonlocal fired
                    answer = await heads(artifact_ids)
                    if not fired:
                        fired = True
                        await self._commit()
                    return answer

                tx.head_revisions = then_commit  # type: ignore[method-assign]
                yield tx

        self._adapter.read = read  # type: ignore[method-assign]

    def __exit__(self, *exc: object) -> None:
        self._adapter.read = self._original  # type: ignore[method-assign]
