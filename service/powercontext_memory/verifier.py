"""Offline verifier: re-checks every stored fact against its hash and against the history.

For each memory: every revision's hash and canonical bytes, manifest order, that each revision's
manifest is exactly the previous one with its own changes applied, that its stored changes
(what history reads) are its content's changes, every entry version's hash
and predecessor chain, every manifest reference, that described versions obey the description
and tag rules (domain/descriptions.py), merge records (a merged row is inactive, folded into
another entry of the same manifest, without loops, by a DEACTIVATE change that records it),
and that the head projection and full-text
index equal what the head revision implies (i.e. a rebuild would produce the same state), and
that every source it cites is linked to it (memory_sources). Every source's record hash too.
Problems name the table and row.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from .backends import codec
from .backends.commit_rows import expected_projection
from .backends.database import DatabaseMemoryBackend
from .backends.port import ReadTransaction, RevisionRow
from .backends.read_session import ReadSession
from .backends.revision_cache import RevisionCache, read_revision
from .domain import descriptions
from .domain.canonical import sha256_hex
from .domain.errors import DataLossError
from .domain.models import (
    ChangeOp,
    EmbeddingProfile,
    EntryState,
    EntryVersion,
    ManifestEntry,
    Revision,
)
from .domain.replay import change_consistent
from .search.vector_index import valid_vector


@dataclass(frozen=True, slots=True)
class Problem:
    row: str
    detail: str

    def __str__(self) -> str:
        return f"{self.row}: {self.detail}"


@dataclass
class Report:
    memories: int = 0
    revisions: int = 0
    entry_versions: int = 0
    sources: int = 0
    problems: list[Problem] = field(default_factory=list)
    # Active entries without a vector: allowed (model was down), fixed by rebuild-vectors.
    missing_vectors: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems


async def verify(backend: DatabaseMemoryBackend) -> Report:
    report = Report()
    async with backend.audit_read() as tx:
        # No cache: every revision is parsed and checked from its stored bytes.
        session = ReadSession(tx, RevisionCache(max_rows=1))
        stored = await tx.embedding_profile_json()
        profile = EmbeddingProfile.from_json(json.loads(stored)) if stored else None
        for artifact_id in await tx.artifact_ids():
            report.memories += 1
            await _verify_memory(session, tx, artifact_id, report, profile)
        for source_id in await tx.all_source_ids():
            report.sources += 1
            try:
                codec.source_from_row((await tx.source_rows([source_id]))[0])
            except DataLossError as exc:
                report.problems.append(Problem(f"sources[{source_id}]", exc.message))
    return report


async def _verify_memory(
    session: ReadSession,
    tx: ReadTransaction,
    artifact_id: str,
    report: Report,
    profile: EmbeddingProfile | None,
) -> None:
    versions = await _verify_versions(tx, artifact_id, report)
    head = (await tx.head_revisions([artifact_id]))[artifact_id]
    previous: Revision | None = None
    latest: Revision | None = None
    cited = {s.source_id for v in versions.values() for s in v.content.source_refs}
    # Its own: each piece is checked against its key once, then shared by later revisions.
    pieces = RevisionCache(max_rows=1)
    for number in range(1, head + 1):
        where = f"artifact_revisions[{artifact_id}@{number}]"
        row = await tx.revision_row(artifact_id, number)
        if row is None:
            report.problems.append(Problem(where, "missing (revisions must be gapless)"))
            previous = None
            continue
        report.revisions += 1
        try:
            revision = await read_revision(tx, row, pieces)
            cited.update(s.source_id for s in revision.lineage.sources)
        except DataLossError as exc:
            # The row at fault is named (a broken manifest piece rather than the revision).
            bad = exc.metadata.get("row", where)
            detail = exc.message.removeprefix(f"{bad}: ")
            if bad != where:
                detail = f"{detail} (in {where})"
            report.problems.append(Problem(bad, detail))
            previous = None
            continue
        for detail in _manifest_problems(revision, previous, versions):
            report.problems.append(Problem(where, detail))
        for detail in _stored_changes_problems(row, revision):
            report.problems.append(Problem(where, detail))
        for detail in _merge_problems(revision, previous):
            report.problems.append(Problem(where, detail))
        previous = latest = revision
    linked = {r.source_id for r in await tx.source_link_rows(artifact_id)}
    for source_id in sorted(cited - linked):
        report.problems.append(
            Problem(
                f"memory_sources[{artifact_id}]",
                f"source {source_id} is cited but not linked (tokens limited to this memory "
                "cannot read it)",
            )
        )
    if latest is not None and latest.ref.revision == head:
        await _verify_projection(session, tx, latest, report)
        if profile is not None:
            await _verify_vectors(tx, artifact_id, profile, report)


async def _verify_versions(
    tx: ReadTransaction, artifact_id: str, report: Report
) -> dict[str, EntryVersion]:
    versions: dict[str, EntryVersion] = {}
    for row in await tx.all_entry_version_rows(artifact_id):
        report.entry_versions += 1
        try:
            versions[row.entry_version_id] = codec.version_from_row(row)
        except DataLossError as exc:
            report.problems.append(
                Problem(f"memory_entry_versions[{row.entry_version_id}]", exc.message)
            )
            continue
        where = f"memory_entry_versions[{row.entry_version_id}]"
        for detail in _description_problems(versions[row.entry_version_id]):
            report.problems.append(Problem(where, detail))
    for version in versions.values():
        where = f"memory_entry_versions[{version.entry_version_id}]"
        if version.previous_version_id is None:
            if version.version != 1:
                report.problems.append(Problem(where, "version > 1 without a predecessor"))
            continue
        prev = versions.get(version.previous_version_id)
        if prev is None or prev.entry_id != version.entry_id or prev.version + 1 != version.version:
            report.problems.append(
                Problem(
                    where, "predecessor is not the directly preceding version of the same entry"
                )
            )
    return versions


def _description_problems(version: EntryVersion) -> list[str]:
    """A described version (hash v2) must obey the description and tag rules as stored; a
    version without a description (v1, written before descriptions) has no tags."""
    content = version.content
    if content.description is None:
        return []
    problems = []
    problem = descriptions.description_problem(content.description)
    if problem is not None:
        problems.append(f"description {problem}")
    problem = descriptions.tags_problem(content.tags)
    if problem is not None:
        problems.append(f"tags: {problem}")
    return problems


def _stored_changes_problems(row: RevisionRow, revision: Revision) -> list[str]:
    """History reads the changes columns, never content: they must be content's own changes."""
    if row.changes is None or row.changes_hash is None:
        return ["changes are not stored (the server fills them when it opens the database)"]
    problems = []
    if sha256_hex(row.changes.encode("utf-8")) != row.changes_hash:
        problems.append("changes do not match changes_hash")
    if row.changes != codec.changes_json(revision.content.changes):
        problems.append("stored changes differ from the changes inside the hashed content")
    return problems


def _manifest_problems(
    revision: Revision, previous: Revision | None, versions: dict[str, EntryVersion]
) -> list[str]:
    problems = []
    entries = revision.content.entries
    ids = [e.entry_id for e in entries]
    if ids != sorted(set(ids)):
        problems.append("manifest entries are not sorted by entry_id without duplicates")
    change_ids = [c.entry_id for c in revision.content.changes]
    if change_ids != sorted(set(change_ids)):
        problems.append("changes are not sorted by entry_id, one per entry")
    if not revision.content.changes:
        problems.append("revision has no changes (empty revisions are never written)")
    for entry in entries:
        version = versions.get(entry.entry_version_id)
        if version is None:
            problems.append(
                f"entry {entry.entry_id} names missing version {entry.entry_version_id}"
            )
        elif (
            version.entry_id != entry.entry_id
            or version.entry_content_hash != entry.entry_content_hash
        ):
            problems.append(
                f"entry {entry.entry_id} does not match version {entry.entry_version_id}"
            )
    if previous is not None or revision.ref.revision == 1:
        problems.extend(_transition_problems(revision, previous, versions))
    return problems


def _transition_problems(
    revision: Revision, previous: Revision | None, versions: dict[str, EntryVersion]
) -> list[str]:
    """This manifest must be the previous one with exactly this revision's changes applied."""
    expected: dict[str, ManifestEntry] = dict(previous.content.by_entry_id) if previous else {}
    problems = []
    for change in revision.content.changes:
        before = expected.get(change.entry_id)
        after = revision.content.by_entry_id.get(change.entry_id)
        ok = after is not None and change_consistent(
            change.op,
            change.from_entry_version_id,
            change.to_entry_version_id,
            before,
            after,
            change.merged_into,
        )
        if not ok:
            problems.append(
                f"change {change.op.value} of {change.entry_id} does not match manifests"
            )
            continue
        assert after is not None
        expected[change.entry_id] = after
        if change.op in (ChangeOp.ADD, ChangeOp.REVISE):
            version = versions.get(after.entry_version_id)
            if version is not None and version.created_in_revision != revision.ref.revision:
                problems.append(
                    f"version {after.entry_version_id} was not created in this revision"
                )
    if expected != revision.content.by_entry_id:
        problems.append("manifest differs from the previous manifest plus this revision's changes")
    return problems


def _merge_problems(revision: Revision, previous: Revision | None) -> list[str]:
    """Merge state (manifest rows' merged_into): a merged row is inactive and folded into
    another entry of the same manifest, merges never loop, and a row only becomes merged by a
    Merge's DEACTIVATE change in that revision."""
    merged = {e.entry_id: e for e in revision.content.entries if e.merged_into is not None}
    changes = {c.entry_id: c for c in revision.content.changes}
    problems = []
    for entry_id, row in merged.items():
        target = row.merged_into
        if row.state is not EntryState.INACTIVE:
            problems.append(f"entry {entry_id} is merged into {target} but not inactive")
        if target == entry_id:
            problems.append(f"entry {entry_id} is merged into itself")
        elif revision.content.entry(target or "") is None:
            problems.append(f"entry {entry_id} is merged into {target}, which is not in it")
        before = previous.content.entry(entry_id) if previous is not None else None
        if before is None or before.merged_into != target:
            change = changes.get(entry_id)
            if (
                change is None
                or change.op is not ChangeOp.DEACTIVATE
                or change.merged_into != target
            ):
                problems.append(
                    f"entry {entry_id} became merged into {target} without a DEACTIVATE "
                    "change that records it"
                )
    problems.extend(_merge_cycles(merged))
    return problems


def _merge_cycles(merged: dict[str, ManifestEntry]) -> list[str]:
    """Each loop of merged_into links (longer than a self-merge), named once by its least id."""
    loops: set[str] = set()
    for start in merged:
        seen = [start]
        node = merged[start].merged_into
        while node is not None and node in merged and node not in seen:
            seen.append(node)
            node = merged[node].merged_into
        if node is not None and node in seen and len(seen) - seen.index(node) > 1:
            loops.add(min(seen[seen.index(node) :]))
    return [f"entry {entry_id} is in a loop of merges" for entry_id in sorted(loops)]


async def _verify_projection(
    session: ReadSession, tx: ReadTransaction, head: Revision, report: Report
) -> None:
    artifact_id = head.ref.artifact_id
    try:
        expected = {r.entry_id: r for r in await expected_projection(session, head)}
    except DataLossError as exc:
        report.problems.append(
            Problem(f"memory_entry_heads[{artifact_id}]", f"cannot be rebuilt: {exc.message}")
        )
        return
    actual = {r.entry_id: r for r in await tx.head_projection_rows(artifact_id)}
    for entry_id in sorted(expected.keys() | actual.keys()):
        where = f"memory_entry_heads[{artifact_id}/{entry_id}]"
        if entry_id not in actual:
            report.problems.append(Problem(where, "missing for an active head entry"))
        elif entry_id not in expected:
            report.problems.append(Problem(where, "present but the entry is not active at head"))
        elif actual[entry_id] != expected[entry_id]:
            report.problems.append(Problem(where, "differs from the head manifest and entry text"))
    for entry_id, text in await tx.fts_rows(artifact_id):
        if entry_id in expected and text != expected[entry_id].searchable_text:
            report.problems.append(
                Problem(
                    f"memory_entry_search_fts[{artifact_id}/{entry_id}]",
                    "indexed text differs from the analyzer's output",
                )
            )


async def _verify_vectors(
    tx: ReadTransaction, artifact_id: str, profile: EmbeddingProfile, report: Report
) -> None:
    """A stored vector must be bound to its head row and the profile, and be a valid vector.

    A missing vector is not corruption (the model may have been down); a wrong one is.
    """
    for row in await tx.vector_rows(artifact_id, None):
        if not row.has_vector and row.meta_entry_version_id is None:
            report.missing_vectors += 1
            continue
        if valid_vector(row, profile) is None:
            report.problems.append(
                Problem(
                    f"memory_entry_vector_metadata[{artifact_id}/{row.entry_id}]",
                    "vector is missing, invalid, or not bound to the head row and the "
                    f"embedding profile {profile.profile_id}",
                )
            )
