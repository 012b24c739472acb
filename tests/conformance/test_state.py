"""Forget, reactivate and organize: state changes without rewriting history."""

from __future__ import annotations

import pytest

from powercontext_memory.api import SearchMode
from powercontext_memory.domain.errors import FailedPreconditionError, InvalidArgumentError
from powercontext_memory.domain.lifecycle import EntryRef, OrganizeStep
from powercontext_memory.domain.models import ArtifactRef, ChangeOp, EntryState
from powercontext_memory.memory import MemoryService

from .helpers import create, entry_ref, ref, revise


async def _search_ids(service: MemoryService, memory: ArtifactRef, query: str) -> list[str]:
    result = await service.search(query, [memory], 8, SearchMode.FTS)
    return [h.entry_id for h in result.hits]


async def test_forget_then_reactivate_restores_the_same_version(service: MemoryService) -> None:
    r1 = await create(service, "lighthouse keeper notes", "harbour pilot notes")
    target = entry_ref(r1, 0)
    assert target.entry_id in await _search_ids(service, ref(r1), "lighthouse")

    r2 = await service.forget(ref(r1), [target], "user_requested")
    assert r2.changed and ref(r2).revision == 2
    [change] = r2.changes
    assert (change.op, change.from_entry_version_id, change.to_entry_version_id, change.reason) == (
        ChangeOp.DEACTIVATE,
        target.entry_version_id,
        None,
        "user_requested",
    )
    manifest = (await service.get_memory(ref(r2))).revision.content.by_entry_id
    assert manifest[target.entry_id].state is EntryState.INACTIVE
    assert manifest[target.entry_id].entry_version_id == target.entry_version_id
    assert await _search_ids(service, ref(r2), "lighthouse") == []

    again = await service.forget(ref(r2), [target], None)
    assert not again.changed and again.memory == ref(r2)

    r3 = await service.reactivate(ref(r2), [target], "user_restored")
    [change] = r3.changes
    assert (change.op, change.from_entry_version_id, change.to_entry_version_id) == (
        ChangeOp.REACTIVATE,
        None,
        target.entry_version_id,
    )
    assert await _search_ids(service, ref(r3), "lighthouse") == [target.entry_id]
    again = await service.reactivate(ref(r3), [target], None)
    assert not again.changed and again.memory == ref(r3)


async def test_forget_mixed_batch_only_changes_active_entries(service: MemoryService) -> None:
    r1 = await create(service, "one", "two")
    one, two = entry_ref(r1, 0), entry_ref(r1, 1)
    r2 = await service.forget(ref(r1), [one], None)
    r3 = await service.forget(ref(r2), [one, two], None)
    assert [c.entry_id for c in r3.changes] == [two.entry_id]


async def test_forget_refuses_stale_unrelated_and_repeated(service: MemoryService) -> None:
    r1 = await create(service, "one", "two")
    one = entry_ref(r1, 0)
    r2 = await service.remember(ref(r1), [], [], [revise(one, "one v2")])
    with pytest.raises(FailedPreconditionError) as err:
        await service.forget(ref(r2), [one], None)
    assert err.value.reason == "ENTRY_VERSION_STALE"
    with pytest.raises(FailedPreconditionError) as err:
        await service.reactivate(ref(r2), [EntryRef("mem_ent_" + "0" * 32, "mem_ver_x")], None)
    assert err.value.reason == "ENTRY_NOT_IN_MEMORY"
    two = entry_ref(r1, 1)
    with pytest.raises(InvalidArgumentError) as err2:
        await service.forget(ref(r2), [two, two], None)
    assert err2.value.reason == "DUPLICATE_ENTRY_IN_BATCH"
    with pytest.raises(InvalidArgumentError):
        await service.forget(ref(r2), [], None)


async def test_organize_dedupe_keeps_smallest_entry_id(service: MemoryService) -> None:
    r1 = await create(service, "alpha", "beta", "gamma")
    refs = [entry_ref(r1, i) for i in range(3)]
    # Revise two entries to the text of the first: three exact duplicates.
    r2 = await service.remember(
        ref(r1), [], [], [revise(refs[1], "alpha"), revise(refs[2], "alpha")]
    )
    src = (await service.get_memory(ref(r1))).revision.lineage.sources
    assert src  # the create helper cites a source; duplicates must have identical evidence
    view = await service.get_memory(ref(r2))
    hashes = {e.entry_id: e.entry_content_hash for e in view.revision.content.entries}
    assert len(set(hashes.values())) == 1
    r3 = await service.organize(ref(r2), [OrganizeStep.DEDUPE])
    keeper = min(r.entry_id for r in refs)
    assert sorted(c.entry_id for c in r3.changes) == sorted(
        r.entry_id for r in refs if r.entry_id != keeper
    )
    assert all(c.op is ChangeOp.DEACTIVATE and c.reason == "dedupe" for c in r3.changes)
    again = await service.organize(ref(r3), [])
    assert not again.changed and again.memory == ref(r3)


async def test_organize_on_clean_memory_is_a_noop(service: MemoryService) -> None:
    r1 = await create(service, "alpha", "beta")
    result = await service.organize(ref(r1), [])
    assert not result.changed and result.memory == ref(r1)
    assert (await service.get_memory(ArtifactRef(ref(r1).artifact_id, 0))).head_revision == 1
