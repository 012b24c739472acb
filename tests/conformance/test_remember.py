"""Remember: creation, adds, revisions, evidence rules, no-ops and CAS (docs/api.md rules)."""

from __future__ import annotations

import hashlib

import pytest

from powercontext_memory.api import EntryInput, RememberMode
from powercontext_memory.domain.canonical import canonical_json
from powercontext_memory.domain.errors import (
    CapabilityNotSupportedError,
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
    RevisionConflictError,
)
from powercontext_memory.domain.lifecycle import EntryOutcome, EntryRef
from powercontext_memory.domain.models import ArtifactRef, ChangeOp, EntryState, SourceRef
from powercontext_memory.memory import MemoryService

from .helpers import add, create, entry_ref, put_source, ref, revise
from .helpers import expand_version as _expand


async def test_create_writes_revision_one_with_sorted_manifest(service: MemoryService) -> None:
    result = await create(service, "alpha fact", "beta fact", "gamma fact")
    assert ref(result).revision == 1 and result.changed
    view = await service.get_memory(ArtifactRef(ref(result).artifact_id, 0))
    ids = [e.entry_id for e in view.revision.content.entries]
    assert ids == sorted(ids) and len(ids) == 3
    assert [c.entry_id for c in view.revision.content.changes] == ids
    assert all(
        c.op is ChangeOp.ADD and c.from_entry_version_id is None
        for c in view.revision.content.changes
    )
    raw = canonical_json(view.revision.content.to_json())
    assert hashlib.sha256(raw).hexdigest() == view.revision.content.content_hash
    assert result.content_hash == view.revision.content.content_hash
    assert all(i.startswith("mem_ent_") and len(i) == 40 for i in ids)


async def test_create_with_nothing_creates_no_memory(service: MemoryService) -> None:
    with pytest.raises(InvalidArgumentError) as err:
        await service.remember(None, [], [], [])
    assert err.value.reason == "NOTHING_TO_REMEMBER"


async def test_extract_modes_check_their_inputs(service: MemoryService) -> None:
    src = await put_source(service, "a.md")
    # AUTO with evidence alone runs the pipeline: nothing it knows, so nothing is created.
    nothing = await service.remember(None, [src], [], [], RememberMode.AUTO)
    assert nothing.memory is None and not nothing.changed
    with pytest.raises(CapabilityNotSupportedError):
        await service.remember(None, [src], [], [], RememberMode.EXTRACT, extractors=["model"])
    with pytest.raises(InvalidArgumentError):
        entry = add("x", sources=(src,))
        await service.remember(None, [src], [], [entry], extractors=["pyproject"])
    with pytest.raises(InvalidArgumentError):
        await service.remember(None, [src], [], [add("x", sources=(src,))], RememberMode.EXTRACT)
    with pytest.raises(InvalidArgumentError):
        await service.remember(None, [src], [], [], RememberMode.APPEND)


async def test_identical_adds_in_one_batch_are_kept_once(service: MemoryService) -> None:
    result = await service.remember(None, [], [], [add("same"), add("other"), add("same")])
    outcomes = [r.outcome for r in result.results]
    assert outcomes == [EntryOutcome.ADDED, EntryOutcome.ADDED, EntryOutcome.DUPLICATE]
    assert result.results[2].entry_id == result.results[0].entry_id
    view = await service.get_memory(ref(result))
    assert len(view.revision.content.entries) == 2


async def test_add_identical_to_active_entry_is_a_noop(service: MemoryService) -> None:
    first = await create(service, "keep me")
    src = (await service.get_memory(ref(first))).revision.lineage.sources[0]
    again = await service.remember(ref(first), [src], [], [add("keep me", sources=(src,))])
    assert not again.changed and again.memory == ref(first)
    assert again.results[0].outcome is EntryOutcome.DUPLICATE


async def test_text_and_kind_are_normalized_and_validated(service: MemoryService) -> None:
    result = await service.remember(None, [], [], [add("  Cafe\u0301  ", kind="my_kind")])
    expanded = await _expand(service, ref(result), entry_ref(result, 0))
    assert expanded.content.text == "Café" and expanded.content.kind == "my_kind"
    bad = [
        (add("   "), "entries[0].text"),
        (add("x" * 8193), "entries[0].text"),
        (add("é" * 4097), "entries[0].text"),
        (add("ok", kind=""), "entries[0].kind"),
        (add("ok", kind="has space"), "entries[0].kind"),
        (add("ok", reason="r" * 513), "entries[0].reason"),
        (EntryInput(EntryRef("bad id!", "v"), "fact", "t"), "entries[0].entry.entry_id"),
    ]
    for entry, field in bad:
        with pytest.raises(InvalidArgumentError) as err:
            await service.remember(ref(result), [], [], [entry])
        assert err.value.field == field
    assert (await service.get_memory(ArtifactRef(ref(result).artifact_id, 0))).head_revision == 1


async def test_text_limit_is_8192_utf8_bytes(service: MemoryService) -> None:
    result = await service.remember(None, [], [], [add("é" * 4096)])
    assert result.changed


async def test_reason_is_512_code_points(service: MemoryService) -> None:
    result = await service.remember(None, [], [], [add("x", reason="理" * 512)])
    view = await service.get_memory(ref(result))
    assert view.revision.content.changes[0].reason == "理" * 512


async def test_add_evidence_must_be_operation_evidence(service: MemoryService) -> None:
    a = await put_source(service, "a.md")
    b = await put_source(service, "b.md")
    with pytest.raises(InvalidArgumentError) as err:
        await service.remember(None, [a], [], [add("uses b", sources=(b,))])
    assert err.value.reason == "EVIDENCE_NOT_ALLOWED" and err.value.field == "entries[0].sources"


async def test_unpersisted_or_mismatched_evidence_is_refused(service: MemoryService) -> None:
    ghost = SourceRef("src_" + "0" * 32, "0" * 64)
    with pytest.raises(NotFoundError) as err:
        await service.remember(None, [ghost], [], [add("x", sources=(ghost,))])
    assert err.value.reason == "SOURCE_NOT_FOUND"
    real = await put_source(service, "a.md")
    wrong = SourceRef(real.source_id, "f" * 64)
    with pytest.raises(InvalidArgumentError) as err2:
        await service.remember(None, [wrong], [], [add("x", sources=(wrong,))])
    assert err2.value.reason == "SOURCE_HASH_MISMATCH"
    missing_artifact = ArtifactRef("mem_art_" + "0" * 32, 1)
    with pytest.raises(NotFoundError):
        await service.remember(None, [], [missing_artifact], [add("x")])


async def test_artifact_evidence_must_exist(service: MemoryService) -> None:
    first = await create(service, "upstream decision")
    result = await service.remember(
        None, [], [ref(first)], [EntryInput(None, "decision", "cites it", (), (ref(first),))]
    )
    version = await _expand(service, ref(result), entry_ref(result, 0))
    assert version.content.artifact_refs == (ref(first),)


async def test_revise_unions_predecessor_and_candidate_evidence(service: MemoryService) -> None:
    a = await put_source(service, "a.md")
    b = await put_source(service, "b.md")
    r1 = await service.remember(None, [a], [], [add("v1 text", sources=(a,))])
    r2 = await service.remember(
        ref(r1), [b], [], [revise(entry_ref(r1, 0), "v2 text", sources=(b,), reason="fix")]
    )
    assert r2.results[0].outcome is EntryOutcome.REVISED
    v2 = await _expand(service, ref(r2), entry_ref(r2, 0))
    assert v2.version == 2 and v2.previous_version_id == r1.results[0].entry_version_id
    assert v2.entry_id == r1.results[0].entry_id
    assert set(v2.content.source_refs) == {a, b}
    change = r2.changes[0]
    assert (change.op, change.from_entry_version_id, change.to_entry_version_id, change.reason) == (
        ChangeOp.REVISE,
        r1.results[0].entry_version_id,
        v2.entry_version_id,
        "fix",
    )
    # The candidate may re-cite predecessor evidence without it being operation evidence.
    r3 = await service.remember(ref(r2), [], [], [revise(entry_ref(r2, 0), "v3", sources=(a,))])
    assert r3.results[0].outcome is EntryOutcome.REVISED


async def test_revise_evidence_outside_predecessor_and_operation(service: MemoryService) -> None:
    a = await put_source(service, "a.md")
    c = await put_source(service, "c.md")
    r1 = await service.remember(None, [a], [], [add("v1", sources=(a,))])
    with pytest.raises(InvalidArgumentError) as err:
        await service.remember(ref(r1), [], [], [revise(entry_ref(r1, 0), "v2", sources=(c,))])
    assert err.value.reason == "EVIDENCE_NOT_ALLOWED"


async def test_revise_with_same_content_is_a_noop(service: MemoryService) -> None:
    r1 = await create(service, "stable")
    src = (await service.get_memory(ref(r1))).revision.lineage.sources[0]
    again = await service.remember(
        ref(r1), [], [], [revise(entry_ref(r1, 0), "stable", sources=(src,))]
    )
    assert not again.changed and again.memory == ref(r1)
    assert again.results[0].outcome is EntryOutcome.UNCHANGED


async def test_revise_stale_unrelated_inactive_or_cross_entry_is_refused(
    service: MemoryService,
) -> None:
    r1 = await create(service, "one", "two")
    one, two = entry_ref(r1, 0), entry_ref(r1, 1)
    r2 = await service.remember(ref(r1), [], [], [revise(one, "one v2")])
    cases = [
        (EntryRef(one.entry_id, one.entry_version_id), "ENTRY_VERSION_STALE"),  # skip/fork
        (EntryRef(one.entry_id, two.entry_version_id), "ENTRY_VERSION_STALE"),  # cross entry
        (EntryRef("mem_ent_" + "f" * 32, one.entry_version_id), "ENTRY_NOT_IN_MEMORY"),
    ]
    for target, reason in cases:
        with pytest.raises(FailedPreconditionError) as err:
            await service.remember(ref(r2), [], [], [revise(target, "x")])
        assert err.value.reason == reason
    r3 = await service.forget(ref(r2), [two], None)
    with pytest.raises(FailedPreconditionError) as err:
        await service.remember(ref(r3), [], [], [revise(two, "two v2")])
    assert err.value.reason == "ENTRY_INACTIVE"


async def test_revise_without_memory_is_refused(service: MemoryService) -> None:
    with pytest.raises(InvalidArgumentError) as err:
        await service.remember(None, [], [], [revise(EntryRef("mem_ent_x", "mem_ver_x"), "t")])
    assert err.value.reason == "REVISE_WITHOUT_MEMORY"


async def test_same_entry_twice_in_a_batch_is_refused(service: MemoryService) -> None:
    r1 = await create(service, "one")
    one = entry_ref(r1, 0)
    with pytest.raises(InvalidArgumentError) as err:
        await service.remember(ref(r1), [], [], [revise(one, "a"), revise(one, "b")])
    assert err.value.reason == "DUPLICATE_ENTRY_IN_BATCH"
    assert (await service.get_memory(ArtifactRef(ref(r1).artifact_id, 0))).head_revision == 1


async def test_stale_memory_ref_is_aborted_even_for_a_noop(service: MemoryService) -> None:
    r1 = await create(service, "one")
    r2 = await service.remember(ref(r1), [], [], [add("two")])
    with pytest.raises(RevisionConflictError) as err:
        await service.remember(ref(r1), [], [], [add("two")])
    assert err.value.actual == ref(r2).revision
    with pytest.raises(RevisionConflictError):
        await service.forget(ref(r1), [entry_ref(r1, 0)], None)


async def test_unknown_memory_is_not_found(service: MemoryService) -> None:
    with pytest.raises(NotFoundError) as err:
        await service.remember(ArtifactRef("mem_art_" + "a" * 32, 1), [], [], [add("x")])
    assert err.value.reason == "MEMORY_NOT_FOUND"


async def test_old_revisions_and_versions_are_never_rewritten(service: MemoryService) -> None:
    r1 = await create(service, "one", "two")
    before = await service.get_memory(ref(r1))
    r2 = await service.remember(ref(r1), [], [], [revise(entry_ref(r1, 0), "one v2")])
    await service.forget(ref(r2), [entry_ref(r1, 1)], None)
    after = await service.get_memory(ref(r1))
    assert after.revision.content.canonical_bytes == before.revision.content.canonical_bytes
    assert all(e.state is EntryState.ACTIVE for e in after.revision.content.entries)
    old = await _expand(service, ref(r1), entry_ref(r1, 0))
    assert old.content.text == "one"
