"""Write rules of the Memory family, as pure functions from a base revision to a commit plan.

Every write (remember, forget, reactivate, organize) is planned here, against the base
revision's manifest, before any revision is built: when nothing changes the planner returns no
plan, so an empty revision can never be committed. Backends only execute plans.
"""

from __future__ import annotations

import enum
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from . import analyzer, descriptions
from .canonical import nfc
from .errors import AbortedError, FailedPreconditionError, InvalidArgumentError
from .interning import shared_ids
from .models import (
    ArtifactRef,
    ChangeOp,
    EntryContent,
    EntryState,
    EntryVersion,
    Lineage,
    ManifestEntry,
    MemoryChange,
    MemoryContent,
    Revision,
    SourceRef,
    normalize_artifact_refs,
    normalize_source_refs,
)

ARTIFACT_ID_PREFIX = "mem_art_"
ENTRY_ID_PREFIX = "mem_ent_"
VERSION_ID_PREFIX = "mem_ver_"
DEDUPE_REASON = "dedupe"
NORMALIZE_REASON = "normalize"

IdFactory = Callable[[str], str]


def random_id(prefix: str) -> str:
    return prefix + secrets.token_hex(16)


class EntryOutcome(enum.Enum):
    ADDED = "added"
    REVISED = "revised"
    UNCHANGED = "unchanged"
    DUPLICATE = "duplicate"


class OrganizeStep(enum.Enum):
    DEDUPE = "dedupe"
    NORMALIZE = "normalize"


@dataclass(frozen=True, slots=True)
class EntryRef:
    entry_id: str
    entry_version_id: str


@dataclass(frozen=True, slots=True)
class EntryInputSpec:
    """A validated Remember input: target unset = add, else revise exactly that version."""

    target: EntryRef | None
    content: EntryContent
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class EntryResult:
    outcome: EntryOutcome
    entry_id: str
    entry_version_id: str


@dataclass(frozen=True, slots=True)
class ProjectionRow:
    """One active entry of the latest-head projection (what full text search reads).

    `text` is the entry text the vector is computed from; the vector and its hash are attached
    by the service (outside the transaction) when an embedding model is available.
    """

    entry_id: str
    entry_version_id: str
    entry_content_hash: str
    searchable_text: str
    text: str = ""
    embedding: bytes | None = None
    embedding_content_hash: str | None = None
    # What listing and the search filters read from the projection (domain/descriptions.py).
    kind: str = ""
    description: str | None = None
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class CommitPlan:
    """Everything one revision writes; executed atomically by a backend."""

    artifact_id: str
    base_revision: int  # 0 when the commit creates the Memory
    content: MemoryContent
    lineage: Lineage
    new_versions: tuple[EntryVersion, ...]
    projection_upserts: tuple[ProjectionRow, ...]
    projection_removals: tuple[str, ...]
    # Every evidence ref the revision relies on, re-checked inside the transaction.
    evidence_sources: tuple[SourceRef, ...] = field(default=())
    evidence_artifacts: tuple[ArtifactRef, ...] = field(default=())

    @property
    def next_revision(self) -> int:
        return self.base_revision + 1


@dataclass(frozen=True)
class RememberPlan:
    results: tuple[EntryResult, ...]
    commit: CommitPlan | None


class _Draft:
    """A manifest being edited: at most one change per entry, changes recorded in order."""

    def __init__(self, artifact_id: str, base: Revision | None, lineage: Lineage) -> None:
        self.artifact_id = artifact_id
        self.base = base
        self.lineage = lineage
        self.next_revision = base.ref.revision + 1 if base else 1
        # Only the rows this revision changes: the rest stays in the base's shared pieces.
        self.manifest: dict[str, ManifestEntry] = {}
        self.changes: dict[str, MemoryChange] = {}
        self.versions: list[EntryVersion] = []
        self.upserts: list[ProjectionRow] = []
        self.removals: list[str] = []

    def put_version(self, version: EntryVersion, change: MemoryChange) -> None:
        # Interned: the cached head keeps this row, and the search indexes the same ids.
        self.manifest[version.entry_id] = ManifestEntry(
            *shared_ids(version.entry_id, version.entry_version_id, version.entry_content_hash),
            EntryState.ACTIVE,
        )
        self.versions.append(version)
        self.changes[version.entry_id] = change
        self.upserts.append(_projection_row(version))

    def set_state(
        self,
        entry: ManifestEntry,
        state: EntryState,
        change: MemoryChange,
        merged_into: str | None = None,
    ) -> None:
        """`merged_into`: the Merge result an inactive row is folded into (else cleared)."""
        self.manifest[entry.entry_id] = ManifestEntry(
            entry.entry_id, entry.entry_version_id, entry.entry_content_hash, state, merged_into
        )
        self.changes[entry.entry_id] = change

    def plan(self) -> CommitPlan | None:
        if not self.changes:
            return None
        changes = tuple(self.changes[k] for k in sorted(self.changes))
        sources, artifacts = cited_evidence(self.lineage, self.versions)
        if self.base is None:
            content = MemoryContent([self.manifest[k] for k in sorted(self.manifest)], changes)
        else:
            content = self.base.content.updated(self.manifest, changes)
        return CommitPlan(
            artifact_id=self.artifact_id,
            base_revision=self.base.ref.revision if self.base else 0,
            content=content,
            lineage=self.lineage,
            new_versions=tuple(self.versions),
            projection_upserts=tuple(self.upserts),
            projection_removals=tuple(self.removals),
            evidence_sources=sources,
            evidence_artifacts=artifacts,
        )


def cited_evidence(
    lineage: Lineage, versions: Iterable[EntryVersion]
) -> tuple[tuple[SourceRef, ...], tuple[ArtifactRef, ...]]:
    """Every source and artifact a revision cites, sorted and unique: its operation's evidence
    (lineage) and the evidence of the entry versions it creates."""
    sources = set(lineage.sources)
    artifacts = set(lineage.artifacts)
    for version in versions:
        sources.update(version.content.source_refs)
        artifacts.update(version.content.artifact_refs)
    return tuple(sorted(sources)), tuple(sorted(artifacts))


def _projection_row(version: EntryVersion) -> ProjectionRow:
    content = version.content
    return ProjectionRow(
        version.entry_id,
        version.entry_version_id,
        version.entry_content_hash,
        searchable_text(content),
        content.text,
        kind=content.kind,
        description=content.description,
        tags=content.tags,
    )


def searchable_text(content: EntryContent) -> str:
    """What full-text search indexes of an entry version."""
    return indexed_text(content.text, content.description)


def indexed_text(text: str, description: str | None) -> str:
    """What full-text search indexes: the text, plus the description when the caller gave one
    of their own (a derived description repeats the text's first words, which would only
    count them twice)."""
    if description is None or description == descriptions.derive_description(text):
        return analyzer.searchable_text(text)
    return analyzer.searchable_text(f"{text}\n{description}")


def _current_entry(
    base: Revision, field_name: str, ref: EntryRef, *, stale_aborts: bool = False
) -> ManifestEntry:
    """The manifest row `ref` names, which must be its current version (not stale/unrelated).

    A stale version is FAILED_PRECONDITION for entry writes and ABORTED for a Merge
    (stale_aborts: re-read the inputs and merge again)."""
    entry = base.content.entry(ref.entry_id)
    if entry is None:
        raise FailedPreconditionError(
            f"{field_name}: entry {ref.entry_id} is not in memory {base.ref}",
            reason="ENTRY_NOT_IN_MEMORY",
            subject=field_name,
            metadata={"field": field_name, "entryId": ref.entry_id},
        )
    if entry.entry_version_id != ref.entry_version_id:
        message = (
            f"{field_name}: {ref.entry_version_id} is not the current version of "
            f"{ref.entry_id} in {base.ref} (current: {entry.entry_version_id})"
        )
        metadata = {
            "field": field_name,
            "entryId": ref.entry_id,
            "currentVersionId": entry.entry_version_id,
        }
        if stale_aborts:
            raise AbortedError(
                f"{message}; re-read it", reason="ENTRY_VERSION_STALE", metadata=metadata
            )
        raise FailedPreconditionError(
            message, reason="ENTRY_VERSION_STALE", subject=field_name, metadata=metadata
        )
    return entry


def _reject_repeats(field_name: str, refs: Sequence[EntryRef]) -> None:
    seen: set[str] = set()
    for i, ref in enumerate(refs):
        if ref.entry_id in seen:
            raise InvalidArgumentError(
                f"{field_name}[{i}]",
                f"entry {ref.entry_id} appears more than once in one request",
                reason="DUPLICATE_ENTRY_IN_BATCH",
            )
        seen.add(ref.entry_id)


def _require_subset(
    field_name: str,
    content: EntryContent,
    allowed_sources: Iterable[SourceRef],
    allowed_artifacts: Iterable[ArtifactRef],
    what: str,
) -> None:
    extra_sources = set(content.source_refs) - set(allowed_sources)
    if extra_sources:
        first = min(extra_sources)
        raise InvalidArgumentError(
            f"{field_name}.sources",
            f"source {first.source_id} is not part of {what}",
            reason="EVIDENCE_NOT_ALLOWED",
        )
    extra_artifacts = set(content.artifact_refs) - set(allowed_artifacts)
    if extra_artifacts:
        first_artifact = min(extra_artifacts)
        raise InvalidArgumentError(
            f"{field_name}.artifacts",
            f"artifact {first_artifact} is not part of {what}",
            reason="EVIDENCE_NOT_ALLOWED",
        )


def plan_remember(
    *,
    artifact_id: str,
    base: Revision | None,
    lineage: Lineage,
    inputs: Sequence[EntryInputSpec],
    predecessors: Mapping[str, EntryVersion],
    new_id: IdFactory = random_id,
) -> RememberPlan:
    """Adds and revisions. `predecessors` maps version id -> verified version for revise targets."""
    draft = _Draft(artifact_id, base, lineage)
    active_by_hash = _active_with_hashes(
        base, {s.content.content_hash() for s in inputs if s.target is None}
    )
    added_by_hash: dict[str, EntryVersion] = {}
    revised: set[str] = set()
    results: list[EntryResult] = []
    for i, spec in enumerate(inputs):
        field_name = f"entries[{i}]"
        if spec.target is None:
            results.append(_add(draft, field_name, spec, active_by_hash, added_by_hash, new_id))
            continue
        if base is None:
            raise InvalidArgumentError(
                f"{field_name}.entry",
                "a new memory has no entries to revise; leave entry unset to add",
                reason="REVISE_WITHOUT_MEMORY",
            )
        if spec.target.entry_id in revised:
            raise InvalidArgumentError(
                f"{field_name}.entry",
                f"entry {spec.target.entry_id} appears more than once in one request",
                reason="DUPLICATE_ENTRY_IN_BATCH",
            )
        revised.add(spec.target.entry_id)
        results.append(_revise(draft, base, field_name, spec, predecessors, new_id))
    return RememberPlan(tuple(results), draft.plan())


def _active_with_hashes(base: Revision | None, hashes: set[str]) -> dict[str, ManifestEntry]:
    """Active base entries whose content hash is in `hashes`; the smallest entry_id wins."""
    found: dict[str, ManifestEntry] = {}
    if base is None or not hashes:
        return found
    for entry in base.content.manifest.active_with_hashes(hashes):  # sorted by entry_id
        found.setdefault(entry.entry_content_hash, entry)
    return found


def _add(
    draft: _Draft,
    field_name: str,
    spec: EntryInputSpec,
    active_by_hash: Mapping[str, ManifestEntry],
    added_by_hash: dict[str, EntryVersion],
    new_id: IdFactory,
) -> EntryResult:
    _require_subset(
        field_name,
        spec.content,
        draft.lineage.sources,
        draft.lineage.artifacts,
        "the operation evidence",
    )
    content_hash = spec.content.content_hash()
    earlier = added_by_hash.get(content_hash)
    if earlier is not None:
        return EntryResult(EntryOutcome.DUPLICATE, earlier.entry_id, earlier.entry_version_id)
    existing = active_by_hash.get(content_hash)
    if existing is not None:
        return EntryResult(EntryOutcome.DUPLICATE, existing.entry_id, existing.entry_version_id)
    version = EntryVersion(
        memory_artifact_id=draft.artifact_id,
        entry_id=new_id(ENTRY_ID_PREFIX),
        entry_version_id=new_id(VERSION_ID_PREFIX),
        version=1,
        previous_version_id=None,
        content=spec.content,
        entry_content_hash=content_hash,
        created_in_revision=draft.next_revision,
    )
    added_by_hash[content_hash] = version
    draft.put_version(
        version,
        MemoryChange(ChangeOp.ADD, version.entry_id, None, version.entry_version_id, spec.reason),
    )
    return EntryResult(EntryOutcome.ADDED, version.entry_id, version.entry_version_id)


def _revise(
    draft: _Draft,
    base: Revision,
    field_name: str,
    spec: EntryInputSpec,
    predecessors: Mapping[str, EntryVersion],
    new_id: IdFactory,
) -> EntryResult:
    assert spec.target is not None
    current = _current_entry(base, f"{field_name}.entry", spec.target)
    if current.state is not EntryState.ACTIVE:
        raise FailedPreconditionError(
            f"{field_name}.entry: entry {current.entry_id} is inactive in {base.ref}; "
            "reactivate it first, then revise from the new head",
            reason="ENTRY_INACTIVE",
            subject=f"{field_name}.entry",
            metadata={"field": f"{field_name}.entry", "entryId": current.entry_id},
        )
    previous = predecessors[current.entry_version_id]
    _require_subset(
        field_name,
        spec.content,
        (*previous.content.source_refs, *draft.lineage.sources),
        (*previous.content.artifact_refs, *draft.lineage.artifacts),
        "the previous version's evidence or the operation evidence",
    )
    # The spec's description is the given one or derived from the new text; its tags replace
    # the previous version's.
    content = EntryContent(
        spec.content.kind,
        spec.content.text,
        normalize_source_refs([*previous.content.source_refs, *spec.content.source_refs]),
        normalize_artifact_refs([*previous.content.artifact_refs, *spec.content.artifact_refs]),
        spec.content.description,
        spec.content.tags,
    )
    content_hash = content.content_hash()
    if content_hash == previous.entry_content_hash:
        return EntryResult(EntryOutcome.UNCHANGED, current.entry_id, current.entry_version_id)
    version = _successor(draft, previous, content, content_hash, new_id)
    draft.put_version(
        version,
        MemoryChange(
            ChangeOp.REVISE,
            version.entry_id,
            previous.entry_version_id,
            version.entry_version_id,
            spec.reason,
        ),
    )
    return EntryResult(EntryOutcome.REVISED, version.entry_id, version.entry_version_id)


def _successor(
    draft: _Draft,
    previous: EntryVersion,
    content: EntryContent,
    content_hash: str,
    new_id: IdFactory,
) -> EntryVersion:
    return EntryVersion(
        memory_artifact_id=draft.artifact_id,
        entry_id=previous.entry_id,
        entry_version_id=new_id(VERSION_ID_PREFIX),
        version=previous.version + 1,
        previous_version_id=previous.entry_version_id,
        content=content,
        entry_content_hash=content_hash,
        created_in_revision=draft.next_revision,
    )


def plan_forget(
    base: Revision, refs: Sequence[EntryRef], reason: str | None, lineage: Lineage
) -> CommitPlan | None:
    """Deactivate; entries already inactive are a no-op."""
    _reject_repeats("entries", refs)
    draft = _Draft(base.ref.artifact_id, base, lineage)
    for i, ref in enumerate(refs):
        entry = _current_entry(base, f"entries[{i}]", ref)
        if entry.state is EntryState.INACTIVE:
            continue
        draft.set_state(
            entry,
            EntryState.INACTIVE,
            MemoryChange(ChangeOp.DEACTIVATE, entry.entry_id, entry.entry_version_id, None, reason),
        )
        draft.removals.append(entry.entry_id)
    return draft.plan()


def plan_reactivate(
    base: Revision,
    refs: Sequence[EntryRef],
    reason: str | None,
    lineage: Lineage,
    versions: Mapping[str, EntryVersion],
) -> CommitPlan | None:
    """Reactivate the same version (no new version); active entries are a no-op."""
    _reject_repeats("entries", refs)
    draft = _Draft(base.ref.artifact_id, base, lineage)
    for i, ref in enumerate(refs):
        entry = _current_entry(base, f"entries[{i}]", ref)
        if entry.state is EntryState.ACTIVE:
            continue
        if entry.merged_into is not None:
            raise FailedPreconditionError(
                f"entries[{i}]: entry {entry.entry_id} was merged into {entry.merged_into}; "
                "use Restore, which undoes the merges that froze it",
                reason="ENTRY_MERGED",
                subject=f"entries[{i}]",
                metadata={
                    "field": f"entries[{i}]",
                    "entryId": entry.entry_id,
                    "mergedInto": entry.merged_into,
                },
            )
        draft.set_state(
            entry,
            EntryState.ACTIVE,
            MemoryChange(ChangeOp.REACTIVATE, entry.entry_id, None, entry.entry_version_id, reason),
        )
        draft.upserts.append(_projection_row(versions[entry.entry_version_id]))
    return draft.plan()


def normalized_content(content: EntryContent) -> EntryContent:
    """The content a writer would store for this content: NFC+trim text, sorted refs. The
    description and tags stay as they are: a version without a description never gets one
    here, so a normalized successor of a v1 version hashes as v1 too."""
    return EntryContent(
        content.kind.strip(),
        nfc(content.text).strip(),
        normalize_source_refs(content.source_refs),
        normalize_artifact_refs(content.artifact_refs),
        content.description,
        content.tags,
    )


def plan_organize(
    base: Revision,
    steps: Sequence[OrganizeStep],
    lineage: Lineage,
    versions: Mapping[str, EntryVersion],
    new_id: IdFactory = random_id,
) -> CommitPlan | None:
    """Dedupe (keep the smallest entry_id of identical active entries), then normalize.

    `versions` must hold the current version of every active entry when NORMALIZE is a step.
    """
    draft = _Draft(base.ref.artifact_id, base, lineage)
    selected = set(steps) or {OrganizeStep.DEDUPE, OrganizeStep.NORMALIZE}
    if OrganizeStep.DEDUPE in selected:
        keeper: dict[str, str] = {}
        for entry in base.content.entries:
            if entry.state is not EntryState.ACTIVE:
                continue
            if keeper.setdefault(entry.entry_content_hash, entry.entry_id) != entry.entry_id:
                draft.set_state(
                    entry,
                    EntryState.INACTIVE,
                    MemoryChange(
                        ChangeOp.DEACTIVATE,
                        entry.entry_id,
                        entry.entry_version_id,
                        None,
                        DEDUPE_REASON,
                    ),
                )
                draft.removals.append(entry.entry_id)
    if OrganizeStep.NORMALIZE in selected:
        for entry in base.content.entries:
            if entry.state is not EntryState.ACTIVE or entry.entry_id in draft.changes:
                continue
            previous = versions[entry.entry_version_id]
            content = normalized_content(previous.content)
            content_hash = content.content_hash()
            if content_hash == previous.entry_content_hash:
                continue
            version = _successor(draft, previous, content, content_hash, new_id)
            draft.put_version(
                version,
                MemoryChange(
                    ChangeOp.REVISE,
                    entry.entry_id,
                    previous.entry_version_id,
                    version.entry_version_id,
                    NORMALIZE_REASON,
                ),
            )
    return draft.plan()
