"""Merge / Restore / UndoMerge planner rules (domain/merging.py), on hand-made revisions.

Every committed plan is also replayed (domain/replay.py, what import does from an export file's
changes alone), so the merge state a plan writes can be rebuilt from its changes.
"""

from __future__ import annotations

import itertools

import pytest

from powercontext_memory.domain import merging
from powercontext_memory.domain.errors import (
    AbortedError,
    FailedPreconditionError,
    InvalidArgumentError,
)
from powercontext_memory.domain.lifecycle import (
    CommitPlan,
    EntryInputSpec,
    EntryRef,
    plan_forget,
    plan_reactivate,
    plan_remember,
)
from powercontext_memory.domain.models import (
    ArtifactRef,
    ChangeOp,
    EntryContent,
    EntryState,
    EntryVersion,
    Lineage,
    Revision,
    SourceRef,
)
from powercontext_memory.domain.replay import MemoryReplay

MEMORY = "mem_art_x"
S1 = SourceRef("src_1", "1" * 64)
S2 = SourceRef("src_2", "2" * 64)
S_OP = SourceRef("src_op", "0" * 64)


class History:
    """Plans committed one after another, replayed alongside."""

    def __init__(self) -> None:
        counter = itertools.count(1)
        self.new_id = lambda prefix: f"{prefix}{next(counter):04d}"
        self.versions: dict[str, EntryVersion] = {}
        self.head: Revision | None = None
        self.replay = MemoryReplay(MEMORY)

    def commit(self, plan: CommitPlan | None) -> Revision:
        assert plan is not None
        self.versions.update({v.entry_version_id: v for v in plan.new_versions})
        replayed = self.replay.apply(plan.next_revision, plan.content.changes, plan.new_versions)
        assert replayed.content_hash == plan.content.content_hash
        self.head = Revision(ArtifactRef(MEMORY, plan.next_revision), plan.content, plan.lineage, 0)
        return self.head

    @property
    def base(self) -> Revision:
        assert self.head is not None
        return self.head

    def add(self, *texts: str, source: SourceRef = S1, tags: tuple[str, ...] = ()) -> list[str]:
        specs = [
            EntryInputSpec(None, EntryContent("fact", t, (source,), (), t, tags)) for t in texts
        ]
        plan = plan_remember(
            artifact_id=MEMORY,
            base=self.head,
            lineage=Lineage("remember", (source,)),
            inputs=specs,
            predecessors={},
            new_id=self.new_id,
        )
        self.commit(plan.commit)
        return [r.entry_id for r in plan.results]

    def ref(self, entry_id: str) -> EntryRef:
        row = self.base.content.entry(entry_id)
        assert row is not None
        return EntryRef(entry_id, row.entry_version_id)

    def merge(self, *entry_ids: str, text: str = "merged", tags: tuple[str, ...] = ()) -> str:
        plan = self.plan_merge([self.ref(e) for e in entry_ids], text=text, tags=tags)
        self.commit(plan.commit)
        return plan.result.entry_id

    def plan_merge(
        self,
        inputs: list[EntryRef],
        text: str = "merged",
        tags: tuple[str, ...] = (),
        reason: str | None = None,
    ) -> merging.MergePlan:
        return merging.plan_merge(
            base=self.base,
            inputs=inputs,
            content=EntryContent("fact", text, (), (), text, tags),
            reason=reason,
            lineage=Lineage("merge", (S_OP,)),
            versions=self.versions,
            new_id=self.new_id,
        )

    def plan_restore(
        self,
        entry_id: str,
        *,
        undo_merge: bool = False,
        version: EntryVersion | None = None,
    ) -> merging.RestorePlan:
        scope = merging.restore_scope(self.base, entry_id, undo_merge=undo_merge)
        return merging.plan_restore(
            base=self.base,
            scope=scope,
            versions=self.versions,
            restore_version=version,
            undo_merge=undo_merge,
            reason=None,
            new_id=self.new_id,
        )

    def state(self, entry_id: str) -> tuple[EntryState, str | None]:
        row = self.base.content.entry(entry_id)
        assert row is not None
        return row.state, row.merged_into


def _chain() -> tuple[History, str, str, str, str, str]:
    """A+B→C, then C+D→E."""
    h = History()
    a, b, d = h.add("alpha", "beta", "delta")
    c = h.merge(a, b, text="alpha and beta")
    e = h.merge(c, d, text="alpha, beta and delta")
    return h, a, b, c, d, e


def test_merge_adds_the_result_and_folds_the_inputs_into_it() -> None:
    h = History()
    [a] = h.add("alpha", source=S1, tags=("x", "y"))
    [b] = h.add("beta", source=S2, tags=("y", "z"))
    base_ref = h.base.ref
    plan = h.plan_merge([h.ref(a), h.ref(b)], text="alpha and beta")
    revision = h.commit(plan.commit)
    c = plan.result.entry_id
    changes = {ch.entry_id: ch for ch in revision.content.changes}
    assert (changes[c].op, changes[c].reason) == (ChangeOp.ADD, "merge")
    for entry_id in (a, b):
        change = changes[entry_id]
        assert (change.op, change.reason, change.merged_into) == (ChangeOp.DEACTIVATE, "merge", c)
        assert h.state(entry_id) == (EntryState.INACTIVE, c)
    assert h.state(c) == (EntryState.ACTIVE, None)
    result = h.versions[plan.result.entry_version_id].content
    # Evidence: the inputs' sources, the operation's, and the revision the inputs were active in.
    assert result.source_refs == (S1, S2, S_OP)
    assert result.artifact_refs == (base_ref,)
    assert result.tags == ("x", "y", "z")  # no tags given: the union
    assert plan.commit.lineage.operation == "merge"
    assert plan.commit.lineage.artifacts == (base_ref,)
    assert set(plan.commit.projection_removals) == {a, b}
    assert [r.entry_id for r in plan.commit.projection_upserts] == [c]


def test_merge_keeps_given_tags_and_reason() -> None:
    h = History()
    a, b = h.add("alpha", "beta", tags=("x",))
    plan = h.plan_merge([h.ref(a), h.ref(b)], tags=("only",), reason="same fact")
    revision = h.commit(plan.commit)
    assert h.versions[plan.result.entry_version_id].content.tags == ("only",)
    assert {ch.reason for ch in revision.content.changes} == {"same fact"}


@pytest.mark.parametrize("count", [0, 1])
def test_merge_needs_two_inputs(count: int) -> None:
    refs = [EntryRef("mem_ent_1", "mem_ver_1")][:count]
    with pytest.raises(InvalidArgumentError) as caught:
        merging.check_merge_inputs(refs)
    assert (caught.value.field, caught.value.reason) == ("inputs", "MERGE_NEEDS_TWO_INPUTS")


def test_merge_refuses_a_repeated_input() -> None:
    h = History()
    a, _ = h.add("alpha", "beta")
    with pytest.raises(InvalidArgumentError) as caught:
        h.plan_merge([h.ref(a), h.ref(a)])
    assert (caught.value.field, caught.value.reason) == ("inputs", "DUPLICATE_ENTRY_IN_BATCH")


def test_merge_of_a_stale_input_version_is_aborted() -> None:
    h = History()
    a, b = h.add("alpha", "beta")
    with pytest.raises(AbortedError) as caught:
        h.plan_merge([h.ref(a), EntryRef(b, "mem_ver_stale")])
    assert caught.value.reason == "ENTRY_VERSION_STALE"
    assert caught.value.metadata["field"] == "inputs[1]"


def test_merge_of_an_inactive_or_merged_input_fails_its_precondition() -> None:
    h, a, b, c, d, e = _chain()
    for entry_id in (a, c):  # merged
        with pytest.raises(FailedPreconditionError) as caught:
            h.plan_merge([h.ref(e), h.ref(entry_id)])
        assert (caught.value.reason, caught.value.subject) == ("ENTRY_INACTIVE", "inputs[1]")
    h.commit(plan_forget(h.base, [h.ref(e)], None, Lineage("forget")))
    [f] = h.add("phi")
    with pytest.raises(FailedPreconditionError) as caught:
        h.plan_merge([h.ref(f), h.ref(e)])
    assert caught.value.reason == "ENTRY_INACTIVE"


def test_restore_of_b_undoes_every_merge_that_froze_it() -> None:
    h, a, b, c, d, e = _chain()
    frozen = {x: h.ref(x) for x in (a, b, c, d, e)}
    plan = h.plan_restore(b)
    revision = h.commit(plan.commit)
    for entry_id in (a, b, d):
        assert h.state(entry_id) == (EntryState.ACTIVE, None)
        assert h.ref(entry_id) == frozen[entry_id]  # the version it had when frozen
    for entry_id in (c, e):
        assert h.state(entry_id) == (EntryState.INACTIVE, None)
    assert plan.effect.restored == tuple(sorted((frozen[x] for x in (a, b, d)), key=str))
    assert set(plan.effect.retired) == {frozen[c], frozen[e]}
    assert plan.effect.undone_merge_results == (e, c)
    changes = {ch.entry_id: (ch.op, ch.reason) for ch in revision.content.changes}
    assert changes == {
        a: (ChangeOp.REACTIVATE, "restore"),
        b: (ChangeOp.REACTIVATE, "restore"),
        d: (ChangeOp.REACTIVATE, "restore"),
        c: (ChangeOp.DEACTIVATE, "undo_merge"),
        e: (ChangeOp.DEACTIVATE, "undo_merge"),
    }
    assert plan.commit is not None and plan.commit.lineage.operation == "restore"
    assert set(plan.commit.projection_removals) == {e}  # c was not active
    assert {r.entry_id for r in plan.commit.projection_upserts} == {a, b, d}


def test_undo_merge_of_the_inner_result_equals_restoring_an_input() -> None:
    h, a, b, c, d, e = _chain()
    plan = h.plan_restore(c, undo_merge=True)
    h.commit(plan.commit)
    assert [h.state(x)[0] for x in (a, b, c, d, e)] == [
        EntryState.ACTIVE,
        EntryState.ACTIVE,
        EntryState.INACTIVE,
        EntryState.ACTIVE,
        EntryState.INACTIVE,
    ]
    assert plan.effect.undone_merge_results == (e, c)
    assert plan.commit is not None and plan.commit.lineage.operation == "undo_merge"


def test_undo_merge_of_the_outer_result_leaves_the_inner_merge() -> None:
    h, a, b, c, d, e = _chain()
    plan = h.plan_restore(e, undo_merge=True)
    h.commit(plan.commit)
    assert h.state(c) == h.state(d) == (EntryState.ACTIVE, None)
    assert h.state(a) == h.state(b) == (EntryState.INACTIVE, c)
    assert h.state(e) == (EntryState.INACTIVE, None)
    assert plan.effect.undone_merge_results == (e,)


def test_undo_merge_of_an_entry_that_is_no_merge_result_fails() -> None:
    h, a, b, c, d, e = _chain()
    for entry_id in (a, d):
        with pytest.raises(FailedPreconditionError) as caught:
            merging.restore_scope(h.base, entry_id, undo_merge=True)
        assert (caught.value.reason, caught.value.subject) == ("NOT_A_MERGE_RESULT", "entry_id")
    h.commit(h.plan_restore(b).commit)
    with pytest.raises(FailedPreconditionError) as caught:  # its merge is undone already
        merging.restore_scope(h.base, c, undo_merge=True)
    assert caught.value.reason == "NOT_A_MERGE_RESULT"


def test_restore_of_a_forgotten_entry_reactivates_it_and_of_an_active_one_is_a_no_op() -> None:
    h = History()
    a, b = h.add("alpha", "beta")
    h.commit(plan_forget(h.base, [h.ref(a)], None, Lineage("forget")))
    plan = h.plan_restore(a)
    revision = h.commit(plan.commit)
    assert h.state(a) == (EntryState.ACTIVE, None)
    [change] = revision.content.changes
    assert (change.op, change.reason) == (ChangeOp.REACTIVATE, "restore")
    assert plan.effect.undone_merge_results == ()
    noop = h.plan_restore(b)
    assert noop.commit is None and noop.effect.restored == (h.ref(b),)  # as it stands


def test_restore_of_a_historical_version_makes_a_new_version_linked_to_the_current_one() -> None:
    h = History()
    a, b = h.add("alpha", "beta")
    old = h.versions[h.ref(a).entry_version_id]
    revise = plan_remember(
        artifact_id=MEMORY,
        base=h.base,
        lineage=Lineage("remember"),
        inputs=[EntryInputSpec(h.ref(a), EntryContent("fact", "alpha 2", (), (), "alpha 2"))],
        predecessors=h.versions,
        new_id=h.new_id,
    )
    h.commit(revise.commit)
    current = h.ref(a)
    # Merged away, then restored as the first version: one REVISE from the inactive row.
    c = h.merge(a, b)
    plan = h.plan_restore(a, version=old)
    revision = h.commit(plan.commit)
    new = h.ref(a)
    version = h.versions[new.entry_version_id]
    assert (version.version, version.previous_version_id) == (3, current.entry_version_id)
    assert version.content == old.content and version.entry_content_hash == old.entry_content_hash
    assert h.state(a) == (EntryState.ACTIVE, None) and h.state(c) == (EntryState.INACTIVE, None)
    changes = {ch.entry_id: ch for ch in revision.content.changes}
    assert (changes[a].op, changes[a].from_entry_version_id) == (
        ChangeOp.REVISE,
        current.entry_version_id,
    )
    assert new in plan.effect.restored
    # The current version again while active: nothing to do.
    again = h.plan_restore(a, version=version)
    assert again.commit is None


def test_restore_version_must_belong_to_the_entry() -> None:
    h = History()
    a, b = h.add("alpha", "beta")
    other = h.versions[h.ref(b).entry_version_id]
    with pytest.raises(InvalidArgumentError) as caught:
        merging.check_restore_version(a, other, MEMORY)
    assert (caught.value.field, caught.value.reason) == (
        "entry_version_id",
        "ENTRY_VERSION_NOT_OF_ENTRY",
    )
    with pytest.raises(InvalidArgumentError) as caught:
        merging.check_restore_version(a, None, MEMORY)
    assert caught.value.reason == "ENTRY_VERSION_NOT_FOUND"


def test_reactivate_of_a_merged_entry_points_to_restore_and_forget_is_a_no_op() -> None:
    h, a, b, c, d, e = _chain()
    with pytest.raises(FailedPreconditionError) as caught:
        plan_reactivate(h.base, [h.ref(a)], None, Lineage("reactivate"), h.versions)
    assert caught.value.reason == "ENTRY_MERGED"
    assert plan_forget(h.base, [h.ref(a), h.ref(c)], None, Lineage("forget")) is None


def test_fingerprint_covers_the_rows_the_plan_reads_and_nothing_else() -> None:
    h, a, b, c, d, e = _chain()
    before = merging.restore_scope(h.base, b, undo_merge=False).fingerprint
    h.add("unrelated")
    assert merging.restore_scope(h.base, b, undo_merge=False).fingerprint == before
    h.commit(plan_forget(h.base, [h.ref(e)], None, Lineage("forget")))  # a result in the chain
    assert merging.restore_scope(h.base, b, undo_merge=False).fingerprint != before
