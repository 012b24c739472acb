"""The offline verifier checks merge records: forged revisions (committed past the planner) and
raw storage edits are named; a database with merges and restores verifies clean."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import pytest

from powercontext_memory.api import EntryInput
from powercontext_memory.domain.lifecycle import CommitPlan, EntryRef
from powercontext_memory.domain.models import (
    ArtifactRef,
    ChangeOp,
    EntryState,
    Lineage,
    ManifestEntry,
    MemoryChange,
)
from powercontext_memory.memory import MemoryService
from powercontext_memory.verifier import verify

from .conftest import Harness
from .helpers import create, entry_ref, ref


async def _problems(service: MemoryService) -> list[str]:
    return [str(p) for p in (await verify(service.backend)).problems]


async def _forge(
    service: MemoryService,
    memory: ArtifactRef,
    rows: Sequence[tuple[EntryRef, EntryState, str | None]],
) -> str:
    """Commit a revision that sets rows' state/merged_into, each with a DEACTIVATE change that
    records the same merged_into (what a Merge writes), bypassing the planner's rules."""
    base = (await service.get_memory(memory)).revision
    updates, changes = {}, []
    for entry, state, merged_into in rows:
        row = base.content.entry(entry.entry_id)
        assert row is not None
        updates[entry.entry_id] = ManifestEntry(
            row.entry_id, row.entry_version_id, row.entry_content_hash, state, merged_into
        )
        changes.append(
            MemoryChange(
                ChangeOp.DEACTIVATE, row.entry_id, row.entry_version_id, None, None, merged_into
            )
        )
    changes.sort(key=lambda c: c.entry_id)
    plan = CommitPlan(
        memory.artifact_id,
        memory.revision,
        base.content.updated(updates, changes),
        Lineage("merge"),
        (),
        (),
        tuple(e.entry_id for e, _, _ in rows),
    )
    revision = await service.backend.commit(plan)
    return f"artifact_revisions[{revision.ref}]"


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("active", "is merged into {b} but not inactive"),
        ("absent", "is merged into mem_ent_ghost, which is not in it"),
        ("itself", "is merged into itself"),
        ("loop", "is in a loop of merges"),
    ],
)
async def test_forged_merge_records_are_reported(
    service: MemoryService, case: str, expected: str
) -> None:
    r1 = await create(service, "one", "two", "three")
    a, b = entry_ref(r1, 0), entry_ref(r1, 1)
    inactive = EntryState.INACTIVE
    rows = {
        "active": [(a, EntryState.ACTIVE, b.entry_id)],
        "absent": [(a, inactive, "mem_ent_ghost")],
        "itself": [(a, inactive, a.entry_id)],
        "loop": [(a, inactive, b.entry_id), (b, inactive, a.entry_id)],
    }[case]
    where = await _forge(service, ref(r1), rows)
    problems = await _problems(service)
    assert any(p.startswith(where) and expected.format(b=b.entry_id) in p for p in problems), (
        problems
    )


async def test_merged_into_without_a_change_recording_it_is_reported(
    service: MemoryService,
) -> None:
    r1 = await create(service, "one", "two")
    a, b = entry_ref(r1, 0), entry_ref(r1, 1)
    base = (await service.get_memory(ref(r1))).revision
    row = base.content.entry(a.entry_id)
    assert row is not None
    merged = ManifestEntry(
        row.entry_id, row.entry_version_id, row.entry_content_hash, EntryState.INACTIVE, b.entry_id
    )
    change = MemoryChange(ChangeOp.DEACTIVATE, a.entry_id, a.entry_version_id, None, None)
    plan = CommitPlan(
        r1.memory.artifact_id if r1.memory else "",
        1,
        base.content.updated({a.entry_id: merged}, [change]),
        Lineage("forget"),
        (),
        (),
        (a.entry_id,),
    )
    await service.backend.commit(plan)
    problems = await _problems(service)
    assert any("without a DEACTIVATE change that records it" in p for p in problems), problems


async def _merged(service: MemoryService) -> tuple[ArtifactRef, EntryRef, EntryRef, EntryRef]:
    r1 = await create(service, "one", "two")
    a, b = entry_ref(r1, 0), entry_ref(r1, 1)
    merged = await service.merge(ref(r1), [a, b], EntryInput(None, "fact", "one and two"), None)
    assert not await _problems(service)
    return merged.memory, a, b, merged.result


async def test_dropping_merged_into_from_stored_changes_is_reported(harness: Harness) -> None:
    service = harness.service
    assert service is not None
    await _merged(service)
    changes = harness.tamper.scalar("SELECT changes FROM artifact_revisions WHERE revision = 2")
    assert '"merged_into_entry_id"' in changes
    forged = changes.replace('"merged_into_entry_id"', '"merged_into_entry"')
    harness.tamper.execute(
        "UPDATE artifact_revisions SET changes = ?, changes_hash = ? WHERE revision = 2",
        (forged, hashlib.sha256(forged.encode()).hexdigest()),
    )
    problems = await _problems(service)
    # The revision's content hash covers the changes, merged_into included.
    assert any(p.startswith("artifact_revisions[") and "@2]" in p for p in problems), problems


async def test_redirecting_merged_into_in_a_manifest_piece_is_reported(harness: Harness) -> None:
    service = harness.service
    assert service is not None
    _, _, b, c = await _merged(service)
    harness.tamper.execute(
        "UPDATE manifest_pieces SET body = replace(body, ?, ?)",
        (f'"merged_into_entry_id":"{c.entry_id}"', f'"merged_into_entry_id":"{b.entry_id}"'),
    )
    problems = await _problems(service)
    assert any(p.startswith("manifest_pieces[") for p in problems), problems


async def test_merges_and_restores_verify_clean(service: MemoryService) -> None:
    memory, a, b, c = await _merged(service)
    restored = await service.restore(memory, a.entry_id, None, "", None)
    again = await service.merge(restored.memory, [a, b], EntryInput(None, "fact", "again"), None)
    undone = await service.undo_merge(again.memory, again.result.entry_id, "", None)
    assert undone.changed
    assert await _problems(service) == []
