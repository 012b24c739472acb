"""Merge, Restore, UndoMerge and PreviewRestore on every backend: new revisions only, old
citations keep resolving, and previews apply only while nothing relevant changed."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator
from pathlib import Path

import pytest

from powercontext_memory.admin.export import export
from powercontext_memory.admin.importer import import_file
from powercontext_memory.api import (
    EntryInput,
    RestoreOperation,
    RevisionChanges,
    SearchMode,
)
from powercontext_memory.app import open_service
from powercontext_memory.domain.errors import (
    AbortedError,
    FailedPreconditionError,
    InvalidArgumentError,
    RevisionConflictError,
)
from powercontext_memory.domain.models import (
    ArtifactRef,
    ChangeOp,
    Citation,
    EntryState,
    ManifestEntry,
)
from powercontext_memory.memory import MemoryService
from powercontext_memory.security.caller import Caller, acting_as
from powercontext_memory.verifier import verify

from .helpers import create, entry_ref, expand_version, put_source, ref, revise


def _result(text: str, tags: tuple[str, ...] = ()) -> EntryInput:
    return EntryInput(None, "fact", text, (), (), None, None, tags)


async def _rows(service: MemoryService, memory: ArtifactRef) -> dict[str, ManifestEntry]:
    return (await service.get_memory(memory)).revision.content.by_entry_id


async def _search(service: MemoryService, memory: ArtifactRef, query: str) -> set[str]:
    found = await service.search(query, [memory], 20, SearchMode.FTS)
    return {h.entry_id for h in found.hits}


async def _history(service: MemoryService, memory: ArtifactRef) -> list[RevisionChanges]:
    _, history = await service.changes(memory, 0)
    out = []
    gen: AsyncGenerator[RevisionChanges, None] = history
    async with contextlib.aclosing(gen):
        async for item in gen:
            out.append(item)
    return out


class Chain:
    """A+B→C at revision 2, then C+D→E at revision 3."""

    async def build(self, service: MemoryService) -> Chain:
        self.r1 = await create(service, "alpha lighthouse", "beta harbour", "delta compass")
        self.a, self.b, self.d = (entry_ref(self.r1, i) for i in range(3))
        self.m1 = await service.merge(
            ref(self.r1), [self.a, self.b], _result("gamma lighthouse harbour"), None
        )
        self.c = self.m1.result
        self.m2 = await service.merge(
            self.m1.memory, [self.c, self.d], _result("epsilon lighthouse compass"), "tidy"
        )
        self.e = self.m2.result
        return self


async def test_merge_chain_then_restore_b(service: MemoryService) -> None:
    ch = await Chain().build(service)
    a, b, c, d, e = ch.a, ch.b, ch.c, ch.d, ch.e
    rows = await _rows(service, ch.m1.memory)
    assert rows[a.entry_id].state is EntryState.INACTIVE
    assert rows[a.entry_id].merged_into == rows[b.entry_id].merged_into == c.entry_id
    assert rows[c.entry_id].state is EntryState.ACTIVE
    rows = await _rows(service, ch.m2.memory)
    assert (rows[c.entry_id].state, rows[c.entry_id].merged_into) == (
        EntryState.INACTIVE,
        e.entry_id,
    )
    head = ch.m2.memory
    assert await _search(service, head, "alpha") == set()
    assert await _search(service, head, "lighthouse") == {e.entry_id}

    restored = await service.restore(head, b.entry_id, None, "", None)
    assert restored.changed and restored.memory == ArtifactRef(head.artifact_id, 4)
    assert set(restored.outcome.restored) == {a, b, d}  # the versions they had when frozen
    assert set(restored.outcome.retired) == {c, e}
    assert restored.outcome.undone_merge_results == (e.entry_id, c.entry_id)
    rows = await _rows(service, restored.memory)
    for x in (a, b, d):
        assert (rows[x.entry_id].state, rows[x.entry_id].merged_into) == (EntryState.ACTIVE, None)
        assert rows[x.entry_id].entry_version_id == x.entry_version_id
    for x in (c, e):
        assert (rows[x.entry_id].state, rows[x.entry_id].merged_into) == (EntryState.INACTIVE, None)
    assert await _search(service, restored.memory, "alpha") == {a.entry_id}
    assert await _search(service, restored.memory, "lighthouse") == {a.entry_id}
    assert await _search(service, restored.memory, "epsilon") == set()

    history = await _history(service, restored.memory)
    reasons = [{(ch.entry_id, ch.op, ch.reason) for ch in rev.changes} for rev in history]
    assert reasons[1] == {
        (c.entry_id, ChangeOp.ADD, "merge"),
        (a.entry_id, ChangeOp.DEACTIVATE, "merge"),
        (b.entry_id, ChangeOp.DEACTIVATE, "merge"),
    }
    assert reasons[2] == {
        (e.entry_id, ChangeOp.ADD, "tidy"),
        (c.entry_id, ChangeOp.DEACTIVATE, "tidy"),
        (d.entry_id, ChangeOp.DEACTIVATE, "tidy"),
    }
    assert reasons[3] == {
        (a.entry_id, ChangeOp.REACTIVATE, "restore"),
        (b.entry_id, ChangeOp.REACTIVATE, "restore"),
        (d.entry_id, ChangeOp.REACTIVATE, "restore"),
        (c.entry_id, ChangeOp.DEACTIVATE, "undo_merge"),
        (e.entry_id, ChangeOp.DEACTIVATE, "undo_merge"),
    }
    # Every old exact citation still resolves, whatever happened since.
    old = [(ref(ch.r1), a), (ref(ch.r1), b), (ch.m1.memory, c), (ch.m2.memory, e)]
    expanded = await service.expand([Citation(m, x.entry_id, x.entry_version_id) for m, x in old])
    assert [x.version.entry_version_id for x in expanded] == [x.entry_version_id for _, x in old]
    [frozen] = await service.expand([Citation(ch.m1.memory, a.entry_id, a.entry_version_id)])
    assert frozen.state is EntryState.INACTIVE
    report = await verify(service.backend)
    assert report.ok, report.problems


async def test_merge_result_keeps_the_union_of_evidence(service: MemoryService) -> None:
    notes = await put_source(service, "notes.md")
    extra = await put_source(service, "extra.md")
    r1 = await create(service, "first fact", "second fact")
    one, two = entry_ref(r1, 0), entry_ref(r1, 1)
    merged = await service.merge(
        ref(r1), [one, two], EntryInput(None, "fact", "both facts", (extra,)), None
    )
    version = await expand_version(service, merged.memory, merged.result)
    assert set(version.content.source_refs) == {notes, extra}
    assert version.content.artifact_refs == (ref(r1),)  # the revision the inputs were active in
    assert version.content.description == "both facts"  # derived
    assert merged.changes and {c.entry_id for c in merged.changes} == {
        one.entry_id,
        two.entry_id,
        merged.result.entry_id,
    }


async def test_merge_tags_default_to_the_union_of_the_inputs(service: MemoryService) -> None:
    src = await put_source(service, "n.md")
    r1 = await service.remember(
        None,
        [src],
        [],
        [
            EntryInput(None, "fact", "one", (src,), (), None, None, ("x", "y")),
            EntryInput(None, "fact", "two", (src,), (), None, None, ("z",)),
        ],
    )
    merged = await service.merge(
        ref(r1), [entry_ref(r1, 0), entry_ref(r1, 1)], _result("1+2"), None
    )
    version = await expand_version(service, merged.memory, merged.result)
    assert version.content.tags == ("x", "y", "z")


async def test_merge_refuses_bad_inputs(service: MemoryService) -> None:
    r1 = await create(service, "one", "two", "three")
    one, two, three = (entry_ref(r1, i) for i in range(3))
    head = ref(r1)
    for inputs, reason in (
        ([one], "MERGE_NEEDS_TWO_INPUTS"),
        ([], "MERGE_NEEDS_TWO_INPUTS"),
        ([one, two, one], "DUPLICATE_ENTRY_IN_BATCH"),
    ):
        with pytest.raises(InvalidArgumentError) as bad:
            await service.merge(head, inputs, _result("x"), None)
        assert (bad.value.field, bad.value.reason) == ("inputs", reason)
    with pytest.raises(InvalidArgumentError) as bad:
        await service.merge(head, [one, two], _result("   "), None)
    assert bad.value.field == "result.text"
    r2 = await service.remember(head, [], [], [revise(two, "two, revised")])
    with pytest.raises(AbortedError) as stale:
        await service.merge(ref(r2), [one, two], _result("x"), None)
    assert stale.value.reason == "ENTRY_VERSION_STALE"
    assert stale.value.metadata["field"] == "inputs[1]"
    with pytest.raises(RevisionConflictError):  # head not current: ABORTED as every write
        await service.merge(head, [one, three], _result("x"), None)
    r3 = await service.forget(ref(r2), [three], None)
    with pytest.raises(FailedPreconditionError) as inactive:
        await service.merge(ref(r3), [one, three], _result("x"), None)
    assert (inactive.value.reason, inactive.value.subject) == ("ENTRY_INACTIVE", "inputs[1]")
    assert (await service.get_memory(ArtifactRef(head.artifact_id, 0))).head_revision == 3


async def test_merged_entries_are_restored_not_reactivated(service: MemoryService) -> None:
    ch = await Chain().build(service)
    head = ch.m2.memory
    with pytest.raises(FailedPreconditionError) as merged:
        await service.reactivate(head, [ch.a], None)
    assert merged.value.reason == "ENTRY_MERGED"
    forgot = await service.forget(head, [ch.a, ch.c], None)
    assert not forgot.changed and forgot.memory == head
    with pytest.raises(FailedPreconditionError) as not_result:
        await service.undo_merge(head, ch.d.entry_id, "", None)
    assert (not_result.value.reason, not_result.value.subject) == ("NOT_A_MERGE_RESULT", "entry_id")


async def test_undo_merge_of_the_outer_result(service: MemoryService) -> None:
    ch = await Chain().build(service)
    undone = await service.undo_merge(ch.m2.memory, ch.e.entry_id, "", "wrong merge")
    assert set(undone.outcome.restored) == {ch.c, ch.d}
    assert undone.outcome.retired == (ch.e,)
    assert {c.reason for c in undone.changes} == {"wrong merge"}
    rows = await _rows(service, undone.memory)
    assert rows[ch.a.entry_id].merged_into == ch.c.entry_id  # the inner merge stays
    assert rows[ch.c.entry_id].state is EntryState.ACTIVE
    assert rows[ch.e.entry_id].state is EntryState.INACTIVE
    assert (await verify(service.backend)).ok


async def test_restore_forgotten_active_and_historical(service: MemoryService) -> None:
    r1 = await create(service, "kept note", "other note")
    kept, other = entry_ref(r1, 0), entry_ref(r1, 1)
    r2 = await service.forget(ref(r1), [kept], None)
    back = await service.restore(ref(r2), kept.entry_id, None, "", None)
    assert back.changed and back.outcome.restored == (kept,)
    [change] = back.changes
    assert (change.op, change.reason) == (ChangeOp.REACTIVATE, "restore")
    noop = await service.restore(back.memory, other.entry_id, None, "", None)
    assert not noop.changed and noop.memory == back.memory and noop.changes == ()
    assert noop.outcome.restored == (other,) and noop.outcome.retired == ()  # as it stands
    # A historical version becomes a new version linked to the current one.
    r4 = await service.remember(back.memory, [], [], [revise(kept, "kept note, second take")])
    current = entry_ref(r4, 0)
    old = await service.restore(ref(r4), kept.entry_id, kept.entry_version_id, "", None)
    assert old.changed
    [change] = old.changes
    assert (change.op, change.from_entry_version_id, change.reason) == (
        ChangeOp.REVISE,
        current.entry_version_id,
        "restore",
    )
    [new] = old.outcome.restored
    version = await expand_version(service, old.memory, new)
    first = await expand_version(service, ref(r1), kept)
    assert version.version == 3 and version.previous_version_id == current.entry_version_id
    assert version.content == first.content
    assert await _search(service, old.memory, "second") == set()
    same = await service.restore(old.memory, kept.entry_id, new.entry_version_id, "", None)
    assert not same.changed
    with pytest.raises(InvalidArgumentError) as wrong:
        await service.restore(old.memory, kept.entry_id, other.entry_version_id, "", None)
    assert (wrong.value.field, wrong.value.reason) == (
        "entry_version_id",
        "ENTRY_VERSION_NOT_OF_ENTRY",
    )
    with pytest.raises(InvalidArgumentError) as missing:
        await service.restore(old.memory, kept.entry_id, "mem_ver_nope", "", None)
    assert (missing.value.field, missing.value.reason) == (
        "entry_version_id",
        "ENTRY_VERSION_NOT_FOUND",
    )
    assert (await verify(service.backend)).ok


# -- previews ------------------------------------------------------------------------------------


def _latest(memory: ArtifactRef) -> ArtifactRef:
    return ArtifactRef(memory.artifact_id, 0)


async def test_preview_then_apply(service: MemoryService) -> None:
    ch = await Chain().build(service)
    head = ch.m2.memory
    preview = await service.preview_restore(
        _latest(head), RestoreOperation.RESTORE, ch.b.entry_id, None
    )
    assert preview.memory == head and preview.would_change
    assert set(preview.outcome.restored) == {ch.a, ch.b, ch.d}
    assert set(preview.outcome.retired) == {ch.c, ch.e}
    assert preview.outcome.undone_merge_results == (ch.e.entry_id, ch.c.entry_id)
    # Writes nothing.
    assert (await service.get_memory(_latest(head))).head_revision == head.revision
    applied = await service.restore(_latest(head), ch.b.entry_id, None, preview.preview_token, None)
    assert applied.memory.revision == head.revision + 1
    assert applied.outcome == preview.outcome


async def test_preview_of_undo_merge_then_apply(service: MemoryService) -> None:
    ch = await Chain().build(service)
    preview = await service.preview_restore(
        ch.m2.memory, RestoreOperation.UNDO_MERGE, ch.e.entry_id, None
    )
    applied = await service.undo_merge(ch.m2.memory, ch.e.entry_id, preview.preview_token, None)
    assert applied.changed and applied.outcome == preview.outcome


async def test_preview_goes_stale_only_on_relevant_changes(service: MemoryService) -> None:
    ch = await Chain().build(service)
    head = ch.m2.memory
    preview = await service.preview_restore(head, RestoreOperation.RESTORE, ch.b.entry_id, None)
    # An unrelated write in between: the preview still applies at the new head.
    unrelated = await service.remember(head, [], [], [EntryInput(None, "fact", "unrelated")])
    applied = await service.restore(_latest(head), ch.b.entry_id, None, preview.preview_token, None)
    assert applied.memory.revision == ref(unrelated).revision + 1

    ch = await Chain().build(service)
    preview = await service.preview_restore(
        ch.m2.memory, RestoreOperation.RESTORE, ch.b.entry_id, None
    )
    moved = await service.forget(ch.m2.memory, [ch.e], None)  # a result of the chain
    with pytest.raises(AbortedError) as stale:
        await service.restore(_latest(moved.memory or ch.m2.memory), ch.b.entry_id, None,
                              preview.preview_token, None)  # fmt: skip
    assert stale.value.reason == "PREVIEW_STALE"
    assert (await service.get_memory(_latest(ch.m2.memory))).head_revision == ref(moved).revision


async def test_preview_token_is_bound_to_caller_memory_operation_and_target(
    service: MemoryService,
) -> None:
    ch = await Chain().build(service)
    head = ch.m2.memory
    with acting_as(Caller("tok_alice")):
        preview = await service.preview_restore(head, RestoreOperation.RESTORE, ch.b.entry_id, None)
        token = preview.preview_token
        attempts = [
            service.restore(head, ch.a.entry_id, None, token, None),  # another entry
            service.restore(head, ch.b.entry_id, ch.b.entry_version_id, token, None),  # version
            service.undo_merge(head, ch.b.entry_id, token, None),  # another operation
        ]
        other = await create(service, "another memory")
        attempts.append(service.restore(ref(other), ch.b.entry_id, None, token, None))
        for attempt in attempts:
            with pytest.raises(InvalidArgumentError) as mismatch:
                await attempt
            assert (mismatch.value.field, mismatch.value.reason) == (
                "preview_token",
                "PREVIEW_TOKEN_MISMATCH",
            )
    with acting_as(Caller("tok_bob")), pytest.raises(InvalidArgumentError) as other_caller:
        await service.restore(head, ch.b.entry_id, None, token, None)
    assert other_caller.value.reason == "PREVIEW_TOKEN_MISMATCH"
    assert other_caller.value.metadata["mismatch"] == "caller"
    fmt, payload, mac = token.split(".")
    flipped = mac[:-2] + ("AA" if mac[-2:] != "AA" else "BB")
    for tampered in (f"{fmt}.{payload}.{flipped}", "garbage", f"pc1.{payload}.{mac}"):
        with acting_as(Caller("tok_alice")), pytest.raises(InvalidArgumentError) as bad:
            await service.restore(head, ch.b.entry_id, None, tampered, None)
        assert (bad.value.field, bad.value.reason) == ("preview_token", "PREVIEW_TOKEN_INVALID")
    with acting_as(Caller("tok_alice")):
        applied = await service.restore(head, ch.b.entry_id, None, token, None)
    assert applied.changed


async def test_expired_preview_token(service: MemoryService) -> None:
    ch = await Chain().build(service)
    service.merging.preview_ttl_seconds = 0  # expires as it is issued
    preview = await service.preview_restore(
        ch.m2.memory, RestoreOperation.RESTORE, ch.b.entry_id, None
    )
    with pytest.raises(FailedPreconditionError) as expired:
        await service.restore(ch.m2.memory, ch.b.entry_id, None, preview.preview_token, None)
    assert expired.value.reason == "PREVIEW_EXPIRED"
    assert (await service.get_memory(_latest(ch.m2.memory))).head_revision == 3


async def test_restore_without_token_needs_the_head(service: MemoryService) -> None:
    ch = await Chain().build(service)
    with pytest.raises(InvalidArgumentError) as zero:
        await service.restore(_latest(ch.m2.memory), ch.b.entry_id, None, "", None)
    assert zero.value.field == "memory.revision"
    with pytest.raises(RevisionConflictError):
        await service.restore(ch.m1.memory, ch.b.entry_id, None, "", None)


async def test_export_and_import_replay_merge_state(service: MemoryService, tmp_path: Path) -> None:
    """Export files carry changes only: the merge state is rebuilt from them on import."""
    ch = await Chain().build(service)
    restored = await service.restore(ch.m2.memory, ch.b.entry_id, None, "", None)
    path = tmp_path / "merged.jsonl"
    with path.open("wb") as out:
        await export(service.backend, out, ())
    target = await open_service(tmp_path / "imported.sqlite3")
    try:
        await import_file(target, path)
        for revision in range(1, restored.memory.revision + 1):
            memory = ArtifactRef(restored.memory.artifact_id, revision)
            original = (await service.get_memory(memory)).revision.content
            imported = (await target.get_memory(memory)).revision.content
            assert imported.content_hash == original.content_hash
            assert imported.by_entry_id == original.by_entry_id
        assert (await verify(target.backend)).ok
    finally:
        await target.close()


async def test_preview_of_an_undo_that_no_longer_applies_is_stale(service: MemoryService) -> None:
    ch = await Chain().build(service)
    preview = await service.preview_restore(
        ch.m2.memory, RestoreOperation.UNDO_MERGE, ch.e.entry_id, None
    )
    restored = await service.restore(ch.m2.memory, ch.b.entry_id, None, "", None)  # retires E
    with pytest.raises(AbortedError) as stale:
        await service.undo_merge(
            _latest(restored.memory), ch.e.entry_id, preview.preview_token, None
        )
    assert (stale.value.reason, stale.value.metadata["field"]) == ("PREVIEW_STALE", "preview_token")


async def test_restore_a_merged_entry_as_a_historical_version(service: MemoryService) -> None:
    r1 = await create(service, "original wording of the rule", "neighbour")
    rule, neighbour = entry_ref(r1, 0), entry_ref(r1, 1)
    r2 = await service.remember(ref(r1), [], [], [revise(rule, "reworded rule")])
    current = entry_ref(r2, 0)
    merged = await service.merge(ref(r2), [current, neighbour], _result("merged rule"), None)
    back = await service.restore(merged.memory, rule.entry_id, rule.entry_version_id, "", None)
    restored = {r.entry_id: r for r in back.outcome.restored}
    assert set(restored) == {rule.entry_id, neighbour.entry_id}
    assert restored[neighbour.entry_id] == neighbour
    new = restored[rule.entry_id]
    version = await expand_version(service, back.memory, new)
    assert (version.version, version.previous_version_id) == (3, current.entry_version_id)
    assert version.content.text == "original wording of the rule"
    changes = {c.entry_id: c for c in back.changes}
    assert changes[rule.entry_id].op is ChangeOp.REVISE  # inactive (merged) -> a new version
    assert await _search(service, back.memory, "original") == {rule.entry_id}
    assert await _search(service, back.memory, "merged") == set()
    assert (await verify(service.backend)).ok
