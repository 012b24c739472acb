"""Changes (compact history) and Expand (verified citations), including tampered rows."""

from __future__ import annotations

import pytest

from powercontext_memory.api import RevisionChanges
from powercontext_memory.domain.errors import DataLossError, InvalidArgumentError, NotFoundError
from powercontext_memory.domain.models import ArtifactRef, ChangeOp, Citation, EntryState
from powercontext_memory.memory import MemoryService

from .conftest import Harness
from .helpers import WorkedExample, ref


async def _history(
    service: MemoryService, memory: ArtifactRef, since: int | ArtifactRef | None
) -> list[RevisionChanges]:
    _, items = await service.changes(memory, since)
    return [item async for item in items]


async def _revisions(
    service: MemoryService, memory: ArtifactRef, since: int | ArtifactRef | None
) -> list[int]:
    return [i.ref.revision for i in await _history(service, memory, since)]


async def test_changes_semantics(service: MemoryService) -> None:
    ex = await WorkedExample().run(service)
    mid = ArtifactRef(ref(ex.r3).artifact_id, 2)
    head = ref(ex.r3)
    assert await _revisions(service, head, None) == [3]
    assert await _revisions(service, head, 0) == [1, 2, 3]
    assert await _revisions(service, head, 1) == [2, 3]
    assert await _revisions(service, head, 3) == []
    assert await _revisions(service, mid, 0) == [1, 2]
    assert await _revisions(service, head, ArtifactRef(head.artifact_id, 1)) == [2, 3]
    items = await _history(service, head, 0)
    ops = [[c.op for c in i.changes] for i in items]
    assert ops == [[ChangeOp.ADD] * 3, [ChangeOp.REVISE], [ChangeOp.DEACTIVATE]]
    assert items[2].changes[0].entry_id == ex.site.entry_id
    assert items[2].changes[0].reason == "user_requested"
    assert items[1].content_hash == ex.r2.content_hash


async def test_changes_errors(service: MemoryService) -> None:
    ex = await WorkedExample().run(service)
    head = ref(ex.r3)
    with pytest.raises(InvalidArgumentError) as err:
        await service.changes(head, -1)
    assert err.value.field == "since_revision"
    with pytest.raises(InvalidArgumentError) as err:
        await service.changes(ArtifactRef(head.artifact_id, 2), 3)
    assert err.value.reason == "SINCE_BEYOND_TARGET"
    with pytest.raises(NotFoundError) as nf:
        await service.changes(ArtifactRef(head.artifact_id, 9), 0)
    assert nf.value.reason == "REVISION_NOT_FOUND"
    with pytest.raises(NotFoundError) as nf:
        await service.changes(ArtifactRef("mem_art_" + "0" * 32, 1), 0)
    assert nf.value.reason == "MEMORY_NOT_FOUND"
    with pytest.raises(InvalidArgumentError) as err:
        await service.changes(head, ArtifactRef("mem_art_" + "0" * 32, 1))
    assert err.value.reason == "CROSS_MEMORY_SINCE"
    # Revision 0 reads up to the head now, and says which revision that is.
    target, history = await service.changes(ArtifactRef(head.artifact_id, 0), 0)
    assert target == head.revision
    assert [c.ref async for c in history][-1] == head
    with pytest.raises(InvalidArgumentError):
        await service.changes(ArtifactRef(head.artifact_id, -1), 0)


async def test_changes_reads_no_entry_text(harness: Harness) -> None:
    service = harness.service
    assert service is not None
    ex = await WorkedExample().run(service)
    harness.tamper.execute("UPDATE memory_entry_versions SET text = 'tampered'")
    items = await _history(service, ref(ex.r3), 0)
    assert len(items) == 3  # entry rows are never read, so their corruption does not matter


async def test_expand_verifies_the_revision_two_citation(service: MemoryService) -> None:
    ex = await WorkedExample().run(service)
    citation = Citation(ref(ex.r2), ex.validation_v2.entry_id, ex.validation_v2.entry_version_id)
    [view] = await service.expand([citation])
    assert view.version.version == 2 and "make docs-test" in view.version.content.text
    assert view.state is EntryState.ACTIVE
    assert view.version.previous_version_id == ex.validation.entry_version_id
    assert len(view.version.content.source_refs) == 3
    # The same citation still verifies after the memory moved on.
    [later] = await service.expand([citation])
    assert later.version == view.version
    # An inactive entry is citable in the revision where it is inactive, with its state.
    [site] = await service.expand(
        [Citation(ref(ex.r3), ex.site.entry_id, ex.site.entry_version_id)]
    )
    assert site.state is EntryState.INACTIVE


async def test_expand_mismatches_are_typed_errors(service: MemoryService) -> None:
    ex = await WorkedExample().run(service)
    v2 = ex.validation_v2
    # Revision 1 never held version 2; revision 2 no longer holds version 1.
    bad = [
        Citation(ArtifactRef(ref(ex.r2).artifact_id, 1), v2.entry_id, v2.entry_version_id),
        Citation(ref(ex.r2), v2.entry_id, ex.validation.entry_version_id),
        Citation(ref(ex.r2), ex.build.entry_id, v2.entry_version_id),
    ]
    for citation in bad:
        with pytest.raises(NotFoundError) as err:
            await service.expand([citation])
        assert err.value.reason == "CITATION_MISMATCH"
    with pytest.raises(NotFoundError) as err:
        await service.expand(
            [Citation(ArtifactRef(ref(ex.r2).artifact_id, 7), v2.entry_id, v2.entry_version_id)]
        )
    assert err.value.reason == "REVISION_NOT_FOUND"
    with pytest.raises(InvalidArgumentError):
        await service.expand([])


async def test_tampered_entry_row_is_caught_by_expand(harness: Harness) -> None:
    service = harness.service
    assert service is not None
    ex = await WorkedExample().run(service)
    v2 = ex.validation_v2
    harness.tamper.execute(
        "UPDATE memory_entry_versions SET text = ? WHERE entry_version_id = ?",
        ("验证约定：什么都不用跑。", v2.entry_version_id),
    )
    with pytest.raises(DataLossError):
        await service.expand([Citation(ref(ex.r2), v2.entry_id, v2.entry_version_id)])


async def test_tampered_revision_content_is_caught(harness: Harness) -> None:
    service = harness.service
    assert service is not None
    ex = await WorkedExample().run(service)
    # A fresh service so that no verified revision is cached in memory.
    await service.close()
    service = await harness.open()
    # The manifest is stored in pieces shared between revisions: revision 3's holds the one
    # inactive entry.
    harness.tamper.execute("UPDATE manifest_pieces SET body = replace(body, 'inactive', 'active')")
    with pytest.raises(DataLossError) as lost:
        await service.get_memory(ref(ex.r3))
    assert lost.value.metadata["row"].startswith("manifest_pieces[")
    # History reads only the changes columns, each verified against its own hash (the
    # verifier checks that they are the content's changes: see test_history.py).
    assert len(await _history(service, ref(ex.r3), 0)) == 3
    harness.tamper.execute(
        "UPDATE artifact_revisions SET changes = replace(changes, 'user_requested', 'forged') "
        "WHERE revision = 3"
    )
    with pytest.raises(DataLossError) as err:
        await _history(service, ref(ex.r3), None)
    assert err.value.metadata["row"] == f"artifact_revisions[{ref(ex.r3).artifact_id}@3]"
