"""Replay (domain/replay.py) rebuilds exactly what the planner committed, and nothing a commit
could not have produced."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from powercontext_memory.domain.lifecycle import (
    CommitPlan,
    EntryInputSpec,
    EntryRef,
    OrganizeStep,
    plan_forget,
    plan_organize,
    plan_reactivate,
    plan_remember,
)
from powercontext_memory.domain.models import (
    ArtifactRef,
    ChangeOp,
    EntryContent,
    Lineage,
    MemoryChange,
    Revision,
)
from powercontext_memory.domain.replay import MemoryReplay, ReplayError

MEMORY = "mem_art_x"


def _history() -> list[CommitPlan]:
    """add three (one duplicate text), revise, forget, reactivate, organize (dedupe)."""
    counter = itertools.count(1)

    def new_id(prefix: str) -> str:
        return f"{prefix}{next(counter):04d}"

    plans: list[CommitPlan] = []
    versions = {}

    def commit(plan: CommitPlan | None) -> Revision:
        assert plan is not None
        plans.append(plan)
        versions.update({v.entry_version_id: v for v in plan.new_versions})
        return Revision(ArtifactRef(MEMORY, plan.next_revision), plan.content, plan.lineage, 0)

    def spec(text: str, target: EntryRef | None = None) -> EntryInputSpec:
        return EntryInputSpec(target, EntryContent("fact", text))

    first = plan_remember(
        artifact_id=MEMORY,
        base=None,
        lineage=Lineage("remember"),
        inputs=[spec("alpha"), spec("beta"), spec(" beta")],
        predecessors={},
        new_id=new_id,
    )
    r1 = commit(first.commit)
    alpha = EntryRef(first.results[0].entry_id, first.results[0].entry_version_id)
    second = plan_remember(
        artifact_id=MEMORY,
        base=r1,
        lineage=Lineage("remember"),
        inputs=[spec("alpha, revised", alpha)],
        predecessors=versions,
        new_id=new_id,
    )
    r2 = commit(second.commit)
    alpha2 = EntryRef(alpha.entry_id, second.results[0].entry_version_id)
    r3 = commit(plan_forget(r2, [alpha2], "stale", Lineage("forget")))
    r4 = commit(plan_reactivate(r3, [alpha2], None, Lineage("reactivate"), versions))
    commit(plan_organize(r4, [OrganizeStep.NORMALIZE], Lineage("organize"), versions, new_id))
    return plans


def test_replay_rebuilds_every_planned_revision_byte_for_byte() -> None:
    replay = MemoryReplay(MEMORY)
    for plan in _history():
        content = replay.apply(plan.next_revision, plan.content.changes, plan.new_versions)
        assert content.canonical_bytes == plan.content.canonical_bytes
    assert replay.revision == 5


def _broken(plans: list[CommitPlan], index: int, **change: object) -> ReplayError:
    replay = MemoryReplay(MEMORY)
    for plan in plans[:index]:
        replay.apply(plan.next_revision, plan.content.changes, plan.new_versions)
    plan = plans[index]
    versions = plan.new_versions
    changes = plan.content.changes
    if "version" in change:
        versions = (dataclasses.replace(versions[0], **change["version"]),)  # type: ignore[arg-type]
    if "changes" in change:
        changes = change["changes"]  # type: ignore[assignment]
    revision = int(change.get("revision", plan.next_revision))  # type: ignore[call-overload]
    with pytest.raises(ReplayError) as error:
        replay.apply(revision, changes, versions)
    assert replay.revision == index  # a refused revision changes nothing
    return error.value


@pytest.mark.parametrize(
    ("index", "change", "words"),
    [
        (1, {"revision": 3}, "does not follow"),
        (1, {"changes": ()}, "without changes"),
        (1, {"version": {"version": 3}}, "not the next version"),
        (1, {"version": {"previous_version_id": None}}, "not the next version"),
        (1, {"version": {"created_in_revision": 1}}, "created in revision 1"),
        (1, {"version": {"memory_artifact_id": "mem_art_y"}}, "belongs to memory"),
        (3, {"changes": (MemoryChange(ChangeOp.REACTIVATE, "mem_ent_0001", None, "x"),)}, "fit"),
    ],
)
def test_replay_refuses_what_no_commit_produces(
    index: int, change: dict[str, object], words: str
) -> None:
    assert words in str(_broken(_history(), index, **change))


def test_a_version_no_change_uses_is_refused() -> None:
    plans = _history()
    replay = MemoryReplay(MEMORY)
    for plan in plans[:2]:
        replay.apply(plan.next_revision, plan.content.changes, plan.new_versions)
    extra = dataclasses.replace(plans[1].new_versions[0], created_in_revision=3)
    with pytest.raises(ReplayError, match="no change uses it"):
        replay.apply(3, plans[2].content.changes, (extra,))


def test_unsorted_changes_are_refused() -> None:
    plans = _history()
    replay = MemoryReplay(MEMORY)
    first = plans[0]
    with pytest.raises(ReplayError, match="not sorted"):
        replay.apply(1, tuple(reversed(first.content.changes)), first.new_versions)
