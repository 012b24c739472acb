"""Merge, restore and undo-merge as pure plans on a base revision (like lifecycle.py).

Merge state lives in the manifest rows themselves (ManifestEntry.merged_into), so it is hashed
with every revision and history is never rewritten:

- Merge folds two or more active entries into one new entry: the result is ADDed, and each
  input gets a DEACTIVATE change that records `merged_into` = the result.
- Restore / UndoMerge compute an undo set U of merge results: for Restore(X) the chain of
  results freezing X (X.merged_into = C, C.merged_into = E, ...), for UndoMerge(C) C plus the
  chain freezing C. Every result in U is retired (plainly inactive), and every row frozen into
  a result of U comes back active at the version it had when it was frozen.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .errors import DataLossError, FailedPreconditionError, InvalidArgumentError
from .lifecycle import (
    ENTRY_ID_PREFIX,
    VERSION_ID_PREFIX,
    CommitPlan,
    EntryRef,
    IdFactory,
    _current_entry,
    _Draft,
    _projection_row,
    random_id,
)
from .models import (
    ChangeOp,
    EntryContent,
    EntryState,
    EntryVersion,
    Lineage,
    ManifestEntry,
    MemoryChange,
    Revision,
    normalize_artifact_refs,
    normalize_source_refs,
)

MERGE_REASON = "merge"
RESTORE_REASON = "restore"
UNDO_MERGE_REASON = "undo_merge"
MIN_MERGE_INPUTS = 2


# -- merge ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MergePlan:
    result: EntryRef
    commit: CommitPlan


def check_merge_inputs(inputs: Sequence[EntryRef]) -> None:
    """Two or more distinct entries (checked before anything is read)."""
    if len(inputs) < MIN_MERGE_INPUTS:
        raise InvalidArgumentError(
            "inputs",
            f"name at least {MIN_MERGE_INPUTS} entries to merge (got {len(inputs)})",
            reason="MERGE_NEEDS_TWO_INPUTS",
        )
    seen: set[str] = set()
    for i, ref in enumerate(inputs):
        if ref.entry_id in seen:
            raise InvalidArgumentError(
                "inputs",
                f"inputs[{i}]: entry {ref.entry_id} appears more than once",
                reason="DUPLICATE_ENTRY_IN_BATCH",
                metadata={"entryId": ref.entry_id, "index": str(i)},
            )
        seen.add(ref.entry_id)


def merge_input_rows(base: Revision, inputs: Sequence[EntryRef]) -> list[ManifestEntry]:
    """The current, active manifest rows the inputs name.

    A stale version is ABORTED (the entry moved on since the caller read it: re-read and
    retry), an absent or inactive entry is FAILED_PRECONDITION.
    """
    check_merge_inputs(inputs)
    rows = []
    for i, ref in enumerate(inputs):
        field_name = f"inputs[{i}]"
        row = _current_entry(base, field_name, ref, stale_aborts=True)
        if row.state is not EntryState.ACTIVE:
            merged = f" (merged into {row.merged_into})" if row.merged_into else ""
            raise FailedPreconditionError(
                f"{field_name}: entry {ref.entry_id} is inactive in {base.ref}{merged}; "
                "only active entries can be merged",
                reason="ENTRY_INACTIVE",
                subject=field_name,
                metadata={"field": field_name, "entryId": ref.entry_id},
            )
        rows.append(row)
    return rows


def plan_merge(
    *,
    base: Revision,
    inputs: Sequence[EntryRef],
    content: EntryContent,
    reason: str | None,
    lineage: Lineage,
    versions: Mapping[str, EntryVersion],
    new_id: IdFactory = random_id,
) -> MergePlan:
    """One revision: ADD the result, DEACTIVATE each input with merged_into = the result.

    `content` is the validated result (kind, text, description; tags empty = the union of the
    inputs' tags); `lineage` holds the operation's own evidence. The result keeps the union of
    the inputs' evidence, the operation's, and the base revision (where the inputs were active,
    so their exact citations stay reachable from the result).
    """
    rows = merge_input_rows(base, inputs)
    merged = [versions[row.entry_version_id] for row in rows]
    sources = normalize_source_refs(
        [
            *content.source_refs,
            *lineage.sources,
            *(s for v in merged for s in v.content.source_refs),
        ]
    )
    artifacts = normalize_artifact_refs(
        [
            *content.artifact_refs,
            *lineage.artifacts,
            base.ref,
            *(a for v in merged for a in v.content.artifact_refs),
        ]
    )
    tags = content.tags or tuple(sorted({t for v in merged for t in v.content.tags}))
    result_content = EntryContent(
        content.kind, content.text, sources, artifacts, content.description, tags
    )
    draft = _Draft(base.ref.artifact_id, base, Lineage(lineage.operation, sources, artifacts))
    version = EntryVersion(
        memory_artifact_id=base.ref.artifact_id,
        entry_id=new_id(ENTRY_ID_PREFIX),
        entry_version_id=new_id(VERSION_ID_PREFIX),
        version=1,
        previous_version_id=None,
        content=result_content,
        entry_content_hash=result_content.content_hash(),
        created_in_revision=draft.next_revision,
    )
    change_reason = reason or MERGE_REASON
    draft.put_version(
        version,
        MemoryChange(ChangeOp.ADD, version.entry_id, None, version.entry_version_id, change_reason),
    )
    for row in rows:
        change = MemoryChange(
            ChangeOp.DEACTIVATE,
            row.entry_id,
            row.entry_version_id,
            None,
            change_reason,
            merged_into=version.entry_id,
        )
        draft.set_state(row, EntryState.INACTIVE, change, merged_into=version.entry_id)
        draft.removals.append(row.entry_id)
    plan = draft.plan()
    assert plan is not None  # an ADD was put
    return MergePlan(EntryRef(version.entry_id, version.entry_version_id), plan)


# -- restore and undo-merge ----------------------------------------------------------------------


@dataclass(frozen=True)
class RestoreScope:
    """What a Restore / UndoMerge reads at a base revision, before any version is loaded."""

    target: ManifestEntry
    # The merge results to undo, innermost first (UndoMerge: the target itself first).
    undo: tuple[ManifestEntry, ...]
    # Rows frozen into a result of `undo` that come back (not themselves in `undo`).
    frozen: tuple[ManifestEntry, ...]
    fingerprint: str  # of every row the plan reads or changes (stale-preview check)

    @property
    def version_ids(self) -> list[str]:
        """Versions the plan needs: the rows that come back, and the target's current one."""
        return [self.target.entry_version_id, *(r.entry_version_id for r in self.frozen)]


@dataclass(frozen=True)
class RestoreEffect:
    restored: tuple[EntryRef, ...] = ()  # active after the commit, at their versions then
    retired: tuple[EntryRef, ...] = ()  # merge results this plan turns plainly inactive
    undone_merge_results: tuple[str, ...] = ()  # outermost first


@dataclass(frozen=True)
class RestorePlan:
    effect: RestoreEffect
    commit: CommitPlan | None


def restore_scope(base: Revision, entry_id: str, *, undo_merge: bool) -> RestoreScope:
    """Restore(X): U = the chain of results freezing X. UndoMerge(C): U = C + its chain, and C
    must be a merge result (some row is merged into it)."""
    target = base.content.entry(entry_id)
    if target is None:
        raise FailedPreconditionError(
            f"entry_id: entry {entry_id} is not in memory {base.ref}",
            reason="ENTRY_NOT_IN_MEMORY",
            subject="entry_id",
            metadata={"field": "entry_id", "entryId": entry_id},
        )
    chain = _chain(base, target)
    undo = (target, *chain) if undo_merge else chain
    undo_ids = {r.entry_id for r in undo}
    frozen: tuple[ManifestEntry, ...] = ()
    if undo_ids:
        # One pass over the manifest: merge state is held by the frozen rows, not the results.
        frozen = tuple(
            r
            for r in base.content.manifest
            if r.merged_into in undo_ids and r.entry_id not in undo_ids
        )
    if undo_merge and not any(r.merged_into == target.entry_id for r in frozen):
        raise FailedPreconditionError(
            f"entry_id: entry {entry_id} is not a merge result in {base.ref} (no entry is "
            "merged into it)",
            reason="NOT_A_MERGE_RESULT",
            subject="entry_id",
            metadata={"field": "entry_id", "entryId": entry_id},
        )
    relevant = {r.entry_id: r for r in (target, *undo, *frozen)}
    return RestoreScope(target, undo, frozen, relevant_state_fingerprint(relevant.values()))


def _chain(base: Revision, row: ManifestEntry) -> tuple[ManifestEntry, ...]:
    """The merge results freezing `row`, innermost first (stops at the first unmerged one)."""
    chain: list[ManifestEntry] = []
    seen = {row.entry_id}
    while row.merged_into is not None:
        parent = base.content.entry(row.merged_into)
        if parent is None or parent.entry_id in seen:
            problem = "is absent" if parent is None else "closes a cycle"
            raise DataLossError(
                f"manifest of {base.ref}: entry {row.entry_id} is merged into "
                f"{row.merged_into}, which {problem}",
                metadata={"row": f"artifact_revisions[{base.ref}]"},
            )
        seen.add(parent.entry_id)
        chain.append(parent)
        row = parent
    return tuple(chain)


def relevant_state_fingerprint(rows: Iterable[ManifestEntry]) -> str:
    """SHA-256 hex over the rows' canonical JSON in entry id order: any change to a row the
    plan reads or changes (version, state, merged_into) changes it; other rows do not."""
    ordered = sorted(rows, key=lambda r: r.entry_id)
    body = "[" + ",".join(r.canonical for r in ordered) + "]"
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def plan_restore(
    *,
    base: Revision,
    scope: RestoreScope,
    versions: Mapping[str, EntryVersion],
    restore_version: EntryVersion | None,
    undo_merge: bool,
    reason: str | None,
    new_id: IdFactory = random_id,
) -> RestorePlan:
    """Retire U, bring back what U froze, bring back the target (Restore), and with
    `restore_version` (a version of the target, validated by the caller) make a new version
    copying it when it is not the current content."""
    operation = UNDO_MERGE_REASON if undo_merge else RESTORE_REASON
    draft = _Draft(base.ref.artifact_id, base, Lineage(operation))
    retired: list[EntryRef] = []
    for row in scope.undo:
        if row.state is EntryState.INACTIVE and row.merged_into is None:
            continue  # already plainly inactive: nothing to retire
        draft.set_state(
            row,
            EntryState.INACTIVE,
            MemoryChange(
                ChangeOp.DEACTIVATE,
                row.entry_id,
                row.entry_version_id,
                None,
                reason or UNDO_MERGE_REASON,
            ),
        )
        if row.state is EntryState.ACTIVE:
            draft.removals.append(row.entry_id)
        retired.append(EntryRef(row.entry_id, row.entry_version_id))
    target = scope.target
    comes_back = list(scope.frozen)
    if not undo_merge and target.state is EntryState.INACTIVE and target.merged_into is None:
        comes_back.append(target)  # plainly forgotten
    restored: dict[str, EntryRef] = {}
    for row in comes_back:
        if not undo_merge and row.entry_id == target.entry_id and restore_version is not None:
            continue  # the version step below brings it back
        _reactivate(draft, row, versions, reason or operation)
        restored[row.entry_id] = EntryRef(row.entry_id, row.entry_version_id)
    if not undo_merge and restore_version is not None:
        ref = _restore_version(draft, target, versions, restore_version, reason, new_id)
        if ref is not None:
            restored[ref.entry_id] = ref
    commit = draft.plan()
    if commit is None and not undo_merge and target.state is EntryState.ACTIVE:
        # A no-op Restore names the target as it stands: the ref a caller goes on citing.
        restored[target.entry_id] = EntryRef(target.entry_id, target.entry_version_id)
    effect = RestoreEffect(
        tuple(restored[k] for k in sorted(restored)),
        tuple(sorted(retired, key=lambda r: r.entry_id)),
        tuple(r.entry_id for r in reversed(scope.undo)),
    )
    return RestorePlan(effect, commit)


def _reactivate(
    draft: _Draft, row: ManifestEntry, versions: Mapping[str, EntryVersion], reason: str
) -> None:
    """Active again at the version the row names (the one it had when frozen / forgotten)."""
    draft.set_state(
        row,
        EntryState.ACTIVE,
        MemoryChange(ChangeOp.REACTIVATE, row.entry_id, None, row.entry_version_id, reason),
    )
    draft.upserts.append(_projection_row(versions[row.entry_version_id]))


def _restore_version(
    draft: _Draft,
    target: ManifestEntry,
    versions: Mapping[str, EntryVersion],
    chosen: EntryVersion,
    reason: str | None,
    new_id: IdFactory,
) -> EntryRef | None:
    """The target active with the chosen version's content: the current version when the
    content is the same, else a new version linked to the current one (REVISE, which may start
    from an inactive row: the entry comes back and moves on in one change). None: no change."""
    current = versions[target.entry_version_id]
    if chosen.entry_content_hash == current.entry_content_hash:
        if target.state is EntryState.ACTIVE:
            return None
        _reactivate(draft, target, versions, reason or RESTORE_REASON)
        return EntryRef(target.entry_id, target.entry_version_id)
    version = EntryVersion(
        memory_artifact_id=draft.artifact_id,
        entry_id=target.entry_id,
        entry_version_id=new_id(VERSION_ID_PREFIX),
        version=current.version + 1,
        previous_version_id=current.entry_version_id,
        content=chosen.content,  # as stored: an old version gets no description added
        entry_content_hash=chosen.entry_content_hash,
        created_in_revision=draft.next_revision,
    )
    draft.put_version(
        version,
        MemoryChange(
            ChangeOp.REVISE,
            target.entry_id,
            current.entry_version_id,
            version.entry_version_id,
            reason or RESTORE_REASON,
        ),
    )
    return EntryRef(version.entry_id, version.entry_version_id)


def check_restore_version(entry_id: str, version: EntryVersion | None, artifact_id: str) -> None:
    """A chosen historical version must exist and belong to the entry and memory restored."""
    if version is None:
        raise InvalidArgumentError(
            "entry_version_id",
            f"no such version of entry {entry_id}",
            reason="ENTRY_VERSION_NOT_FOUND",
        )
    if version.entry_id != entry_id or version.memory_artifact_id != artifact_id:
        raise InvalidArgumentError(
            "entry_version_id",
            f"{version.entry_version_id} is not a version of entry {entry_id} in this memory",
            reason="ENTRY_VERSION_NOT_OF_ENTRY",
        )
