"""Idempotent writes (AIP-155) on every backend: a request id is answered once and replayed.

The fingerprints here are arbitrary strings: the transport makes the real ones (tested in
tests/e2e/test_idempotent_writes.py); the service only compares them.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest

from powercontext_memory.api import WriteResult
from powercontext_memory.backends.port import WriteRequestRow
from powercontext_memory.domain import idempotency
from powercontext_memory.domain.errors import (
    AlreadyExistsError,
    InvalidArgumentError,
    RevisionConflictError,
)
from powercontext_memory.domain.idempotency import IdempotencyKey
from powercontext_memory.domain.models import ArtifactRef
from powercontext_memory.memory import MemoryService
from powercontext_memory.security.caller import Caller, acting_as

from .conftest import Harness
from .helpers import add, entry_ref, ref


def key(request_id: str, fingerprint: str = "f1") -> IdempotencyKey:
    return IdempotencyKey(request_id, fingerprint)


async def put(
    service: MemoryService, memory: ArtifactRef | None, *texts: str, rid: str, fp: str = "f1"
) -> WriteResult:
    """Remember `texts` on `memory` (None: a new memory) under request id `rid`."""
    entries = [add(t) for t in texts]
    return await service.remember(memory, [], [], entries, idempotency_key=key(rid, fp))


def records(harness: Harness) -> int:
    return int(harness.tamper.scalar("SELECT count(*) FROM write_requests"))


def revisions(harness: Harness) -> int:
    return int(harness.tamper.scalar("SELECT count(*) FROM artifact_revisions"))


async def test_a_repeat_gets_the_first_response_even_after_the_head_moved(
    harness: Harness, service: MemoryService
) -> None:
    entry = None

    async def writes() -> list[WriteResult]:
        """Every write operation once, each on the head the previous one left."""
        nonlocal entry
        created = await put(service, None, "alpha", "beta", rid="c")
        entry = entry or entry_ref(created, 0)
        remembered = await put(service, ref(created), "gamma", rid="r")
        forgot = await service.forget(ref(remembered), [entry], "gone", idempotency_key=key("f"))
        back = await service.reactivate(ref(forgot), [entry], None, idempotency_key=key("a"))
        organized = await service.organize(ref(back), [], idempotency_key=key("o"))  # a no-op
        return [created, remembered, forgot, back, organized]

    first = await writes()
    assert [w.changed for w in first] == [True, True, True, True, False]
    await service.remember(ref(first[3]), [], [], [add("delta")])  # the head moves on
    # Sent again, each is answered from its record, not re-applied (nor ABORTED on its base).
    assert await writes() == first
    head = await service.get_memory(dataclasses.replace(ref(first[0]), revision=0))
    assert head.head_revision == 5 and revisions(harness) == 5 and records(harness) == 5


async def test_the_same_id_with_another_request_is_refused(service: MemoryService) -> None:
    created = await put(service, None, "alpha", rid="x", fp="f1")
    with pytest.raises(AlreadyExistsError) as refused:
        await put(service, ref(created), "beta", rid="x", fp="f2")
    assert refused.value.reason == "REQUEST_ID_REUSED"
    assert refused.value.metadata == {"field": "request_id", "requestId": "x"}


async def test_request_ids_belong_to_their_caller(harness: Harness, service: MemoryService) -> None:
    with acting_as(Caller("tok_a")):
        one = await put(service, None, "a", rid="same", fp="fa")
    with acting_as(Caller("tok_b")):
        other = await put(service, None, "b", rid="same", fp="fb")
    assert ref(one).artifact_id != ref(other).artifact_id and records(harness) == 2
    with acting_as(Caller("tok_a")):
        assert await put(service, None, "a", rid="same", fp="fa") == one


async def test_a_write_that_changes_nothing_is_recorded_too(
    harness: Harness, service: MemoryService
) -> None:
    created = await service.remember(None, [], [], [add("alpha")])
    noop = await put(service, ref(created), "alpha", rid="n")
    assert not noop.changed and noop.memory == ref(created) and records(harness) == 1
    await service.remember(ref(created), [], [], [add("beta")])  # the head moves on
    # Re-planned on the old base this would be ABORTED; the record answers instead.
    assert await put(service, ref(created), "alpha", rid="n") == noop


@pytest.mark.parametrize("step", ["request", "revision", "projection"])
async def test_a_failed_write_records_nothing_and_may_be_sent_again(
    harness: Harness, service: MemoryService, step: str
) -> None:
    created = await service.remember(None, [], [], [add("alpha")])
    moved = await service.remember(ref(created), [], [], [add("beta")])
    with pytest.raises(RevisionConflictError):  # a stale base: ABORTED, nothing recorded
        await put(service, ref(created), "gamma", rid="k", fp="stale")
    with pytest.raises(InvalidArgumentError):
        await put(service, ref(moved), " ", rid="k", fp="empty")
    harness.fail_at = step
    with pytest.raises(RuntimeError):
        await put(service, ref(moved), "gamma", rid="k")
    harness.fail_at = None
    assert records(harness) == 0 and revisions(harness) == 2
    done = await put(service, ref(moved), "gamma", rid="k")
    assert ref(done).revision == 3 and records(harness) == 1


@pytest.mark.parametrize("bad", ["x" * 129, "has space", "naïve", "tab\there"])
async def test_a_request_id_is_short_visible_ascii(service: MemoryService, bad: str) -> None:
    with pytest.raises(InvalidArgumentError) as refused:
        await put(service, None, "alpha", rid=bad)
    assert refused.value.field == "request_id" and refused.value.reason == "INVALID_REQUEST_ID"
    assert await put(service, None, "a", rid="x" * 128)


async def test_a_call_that_lost_the_race_answers_with_the_winners_outcome(
    harness: Harness, service: MemoryService
) -> None:
    """The loser looked the id up before the winner committed: it then loses at the record's
    unique key (a create: nothing else collides) or at the head CAS, and replays."""
    replay = service.writes.replay
    missed: list[str] = []

    async def lookup_before_the_winner_committed(scope: Any) -> WriteResult | None:
        if not missed:
            missed.append(scope.request_id)
            return None
        return await replay(scope)

    created = await put(service, None, "alpha", rid="c")
    second = await put(service, ref(created), "b", rid="s")
    service.writes.replay = lookup_before_the_winner_committed  # type: ignore[method-assign]
    assert await put(service, None, "alpha", rid="c") == created
    missed.clear()
    assert await put(service, ref(created), "b", rid="s") == second
    assert missed == ["s"] and revisions(harness) == 2 and records(harness) == 2


@pytest.mark.parametrize("creates", [True, False], ids=["create", "update"])
async def test_concurrent_calls_with_one_id_commit_once(
    harness: Harness, service: MemoryService, creates: bool
) -> None:
    """Eight identical calls at once, on two services sharing the database (two servers)."""
    base = None if creates else ref(await service.remember(None, [], [], [add("base")]))
    other = await harness.open()
    harness.service = service  # the fixture closes this one
    try:
        calls = [put(s, base, "raced", rid="race") for s in (service, other) * 4]
        outcomes = await asyncio.gather(*calls)
    finally:
        await other.close()
    assert all(o == outcomes[0] for o in outcomes) and outcomes[0].changed
    assert revisions(harness) == (1 if creates else 2) and records(harness) == 1


async def test_expired_records_are_pruned_in_small_batches_by_writes(
    harness: Harness, service: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = 1_800_000_000_000
    service.backend.clock = lambda: now
    monkeypatch.setattr(idempotency, "PRUNE_BATCH", 2)
    first = memory = ref(await put(service, None, "t1", rid="old-1"))
    for n in (2, 3):
        memory = ref(await put(service, memory, f"t{n}", rid=f"old-{n}"))
    now += idempotency.RETENTION_MS - 1
    memory = ref(await put(service, memory, "young", rid="young"))
    assert records(harness) == 4  # nothing has expired yet

    def old() -> int:
        sql = "SELECT count(*) FROM write_requests WHERE request_id LIKE 'old-%'"
        return int(harness.tamper.scalar(sql))

    now += idempotency.PRUNE_INTERVAL_MS  # old-* are now older than the retention
    memory = ref(await put(service, memory, "n1", rid="new-1"))
    assert old() == 1  # a full batch (the two oldest) went with this write ...
    memory = ref(await put(service, memory, "n2", rid="new-2"))
    assert old() == 0 and records(harness) == 3  # ... so the next one pruned again
    harness.tamper.execute(
        "INSERT INTO write_requests (caller_key, request_id, fingerprint, outcome, "
        "created_at_ms) VALUES ('', 'old-4', 'f', '{}', 0)"
    )
    memory = ref(await put(service, memory, "n3", rid="new-3"))
    assert old() == 1  # the last batch was not full: no pruning within the interval
    now += idempotency.PRUNE_INTERVAL_MS
    memory = ref(await put(service, memory, "n4", rid="new-4"))
    assert old() == 0
    # A pruned id is free again: the same request is a new write now.
    again = await put(service, None, "t1", rid="old-1")
    assert ref(again).artifact_id != first.artifact_id


async def test_the_adapter_records_once_and_prunes_oldest_first(service: MemoryService) -> None:
    adapter = service.backend.adapter
    rows = [WriteRequestRow("", f"id-{t}", "f" * 64, "{}", t) for t in (30, 10, 20)]
    async with adapter.write() as tx:
        assert [await tx.insert_write_request(r) for r in rows] == [True, True, True]
        assert not await tx.insert_write_request(dataclasses.replace(rows[0], outcome="other"))
    async with adapter.read() as tx:
        assert await tx.write_request_row("", "id-30") == rows[0]  # unchanged by the repeat
        assert await tx.write_request_row("tok", "id-30") is None
    async with adapter.write() as tx:
        assert await tx.delete_write_requests(25, 1) == 1
    async with adapter.read() as tx:
        assert await tx.write_request_row("", "id-10") is None
        assert await tx.write_request_row("", "id-20") == rows[2]
    async with adapter.write() as tx:
        assert await tx.delete_write_requests(25, 10) == 1
        assert await tx.delete_write_requests(25, 10) == 0
    async with adapter.read() as tx:
        assert await tx.write_request_row("", "id-30") == rows[0]
