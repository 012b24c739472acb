"""Pure planner rules that need hand-made stored state (e.g. rows written by an older writer)."""

from __future__ import annotations

import itertools

from powercontext_memory.domain.lifecycle import OrganizeStep, plan_organize
from powercontext_memory.domain.models import (
    ArtifactRef,
    ChangeOp,
    EntryContent,
    EntryState,
    EntryVersion,
    Lineage,
    ManifestEntry,
    MemoryContent,
    Revision,
    SourceRef,
)

A = SourceRef("src_a", "a" * 64)
B = SourceRef("src_b", "b" * 64)


def _version(entry_id: str, version_id: str, content: EntryContent) -> EntryVersion:
    return EntryVersion(
        "mem_art_x", entry_id, version_id, 1, None, content, content.content_hash(), 1
    )


def _revision(*versions: EntryVersion) -> Revision:
    entries = tuple(
        ManifestEntry(v.entry_id, v.entry_version_id, v.entry_content_hash, EntryState.ACTIVE)
        for v in sorted(versions, key=lambda v: v.entry_id)
    )
    return Revision(ArtifactRef("mem_art_x", 1), MemoryContent(entries, ()), Lineage("remember"), 0)


def _ids() -> itertools.count[int]:
    return itertools.count()


def test_normalize_revises_only_unnormalized_versions() -> None:
    legacy = _version("mem_ent_1", "mem_ver_1", EntryContent("fact", " text ", (B, A, A)))
    clean = _version("mem_ent_2", "mem_ver_2", EntryContent("fact", "clean", (A,)))
    base = _revision(legacy, clean)
    counter = _ids()
    plan = plan_organize(
        base,
        [OrganizeStep.NORMALIZE],
        Lineage("organize"),
        {v.entry_version_id: v for v in (legacy, clean)},
        lambda prefix: f"{prefix}{next(counter)}",
    )
    assert plan is not None
    [change] = plan.content.changes
    assert (change.op, change.entry_id, change.from_entry_version_id, change.reason) == (
        ChangeOp.REVISE,
        "mem_ent_1",
        "mem_ver_1",
        "normalize",
    )
    [version] = plan.new_versions
    assert version.content == EntryContent("fact", "text", (A, B))
    assert version.version == 2 and version.previous_version_id == "mem_ver_1"
    assert version.created_in_revision == 2
    assert plan.content.by_entry_id["mem_ent_2"].entry_version_id == "mem_ver_2"


def test_organize_default_runs_dedupe_then_normalize() -> None:
    one = _version("mem_ent_1", "mem_ver_1", EntryContent("fact", "same"))
    two = _version("mem_ent_2", "mem_ver_2", EntryContent("fact", "same"))
    messy = _version("mem_ent_3", "mem_ver_3", EntryContent("fact", "messy ", (B, A)))
    base = _revision(two, one, messy)
    plan = plan_organize(
        base, [], Lineage("organize"), {v.entry_version_id: v for v in (one, two, messy)}
    )
    assert plan is not None
    ops = [(c.entry_id, c.op, c.reason) for c in plan.content.changes]
    assert ops == [
        ("mem_ent_2", ChangeOp.DEACTIVATE, "dedupe"),
        ("mem_ent_3", ChangeOp.REVISE, "normalize"),
    ]
    assert plan.projection_removals == ("mem_ent_2",)
    assert [r.entry_id for r in plan.projection_upserts] == ["mem_ent_3"]


def test_fast_manifest_encoding_equals_generic_canonical_json() -> None:
    from powercontext_memory.domain.canonical import canonical_json
    from powercontext_memory.domain.models import MemoryChange

    entries = tuple(
        ManifestEntry(
            f"mem_ent_{i:032x}",
            f"mem_ver_{i:032x}",
            f"{i:064x}",
            EntryState.ACTIVE if i % 3 else EntryState.INACTIVE,
        )
        for i in range(50)
    )
    changes = (
        MemoryChange(
            ChangeOp.REVISE,
            entries[0].entry_id,
            "mem_ver_a",
            "mem_ver_b",
            'reason with "quotes", \\\\ and 中文\\n',
        ),
    )
    content = MemoryContent(entries, changes)
    assert content.canonical_bytes == canonical_json(content.to_json())
    assert MemoryContent((), ()).canonical_bytes == canonical_json(MemoryContent((), ()).to_json())
