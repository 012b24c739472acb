"""Replaying a Memory's history: each revision's content from the previous one and its changes.

A revision's manifest is fully determined by the previous manifest, the revision's compact
changes and the entry versions it creates. Export files therefore carry only the changes (their
size grows with what changed, not with revisions x entries), and import rebuilds every
manifest here, then checks the rebuilt content against the revision's content_hash. Every rule
a commit obeys is checked on the way, so a replayed history passes the verifier.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field

from .models import ChangeOp, EntryState, EntryVersion, ManifestEntry, MemoryChange, MemoryContent


class ReplayError(ValueError):
    """A revision that no commit could have produced (names the rule it breaks)."""


def change_consistent(
    op: ChangeOp,
    from_id: str | None,
    to_id: str | None,
    before: ManifestEntry | None,
    after: ManifestEntry,
    merged_into: str | None = None,
) -> bool:
    """Whether one change turns the manifest row `before` (None: absent) into `after`.

    `merged_into` is the change's own (a Merge's DEACTIVATE): the row must carry exactly it.
    A DEACTIVATE without one may also turn a merged row into a plainly inactive one (an undone
    merge result that was itself merged); only DEACTIVATE ever sets merged_into.
    """
    active, inactive = EntryState.ACTIVE, EntryState.INACTIVE
    if after.merged_into != merged_into or (
        merged_into is not None and op is not ChangeOp.DEACTIVATE
    ):
        return False
    if op is ChangeOp.ADD:
        return (
            before is None
            and from_id is None
            and after.state is active
            and after.entry_version_id == to_id
        )
    if before is None:
        return False
    if op is ChangeOp.REVISE:
        # From an inactive row only by Restore with a chosen historical version: the entry
        # comes back as a new version in one change (planners refuse other revisions of it).
        return (
            before.entry_version_id == from_id
            and after.state is active
            and after.entry_version_id == to_id
        )
    if op is ChangeOp.DEACTIVATE:
        unmerged = before.merged_into is not None and merged_into is None
        return (
            (before.state is active or unmerged)
            and after.state is inactive
            and to_id is None
            and before.entry_version_id == from_id == after.entry_version_id
        )
    return (
        before.state is inactive
        and after.state is active
        and from_id is None
        and before.entry_version_id == to_id == after.entry_version_id
    )


@dataclass
class MemoryReplay:
    """One memory's manifest as of `revision`, advanced one revision at a time by `apply`."""

    artifact_id: str
    revision: int = 0
    manifest: dict[str, ManifestEntry] = field(default_factory=dict)
    # entry id -> number of its newest version (the manifest always names the newest one)
    newest: dict[str, int] = field(default_factory=dict)
    _order: list[str] = field(default_factory=list)  # manifest keys, sorted

    def apply(
        self, revision: int, changes: Sequence[MemoryChange], created: Sequence[EntryVersion]
    ) -> MemoryContent:
        """The content of revision `revision` (must be the next one); the state advances only
        when every rule holds. `created` are the entry versions this revision creates."""
        if revision != self.revision + 1:
            raise ReplayError(f"revision {revision} does not follow revision {self.revision}")
        if not changes:
            raise ReplayError("a revision without changes is never committed")
        ids = [c.entry_id for c in changes]
        if any(a >= b for a, b in zip(ids, ids[1:], strict=False)):
            raise ReplayError("changes are not sorted by entry_id, one per entry")
        versions = self._created(revision, created)
        updates: dict[str, ManifestEntry] = {}
        for change in changes:
            updates[change.entry_id] = self._after(change, versions)
        if versions:
            raise ReplayError(f"entry version {min(versions)} is created but no change uses it")
        for entry_id, entry in updates.items():
            if entry_id not in self.manifest:
                bisect.insort(self._order, entry_id)
            self.manifest[entry_id] = entry
        for version in created:
            self.newest[version.entry_id] = version.version
        self.revision = revision
        entries = tuple([self.manifest[k] for k in self._order])
        return MemoryContent(entries, tuple(changes))

    def _created(self, revision: int, created: Sequence[EntryVersion]) -> dict[str, EntryVersion]:
        versions: dict[str, EntryVersion] = {}
        for version in created:
            what = f"entry version {version.entry_version_id}"
            if version.memory_artifact_id != self.artifact_id:
                raise ReplayError(f"{what} belongs to memory {version.memory_artifact_id}")
            if version.created_in_revision != revision:
                raise ReplayError(
                    f"{what} says it was created in revision {version.created_in_revision}"
                )
            if version.entry_version_id in versions:
                raise ReplayError(f"{what} appears twice")
            versions[version.entry_version_id] = version
        return versions

    def _after(self, change: MemoryChange, versions: dict[str, EntryVersion]) -> ManifestEntry:
        """The manifest row after `change`, checking the version it creates (if any)."""
        before = self.manifest.get(change.entry_id)
        op = change.op
        if op in (ChangeOp.ADD, ChangeOp.REVISE):
            version = versions.pop(change.to_entry_version_id or "", None)
            if version is None:
                raise ReplayError(
                    f"change {op.value} of {change.entry_id} names version "
                    f"{change.to_entry_version_id}, which this revision does not create"
                )
            if before is None:
                number, previous = 1, None
            else:
                number = self.newest.get(change.entry_id, 0) + 1
                previous = before.entry_version_id
            if (version.entry_id, version.version, version.previous_version_id) != (
                change.entry_id,
                number,
                previous,
            ):
                raise ReplayError(
                    f"entry version {version.entry_version_id} is not the next version of "
                    f"entry {change.entry_id}"
                )
            after = ManifestEntry(
                change.entry_id,
                version.entry_version_id,
                version.entry_content_hash,
                EntryState.ACTIVE,
            )
        elif before is None:
            after = ManifestEntry(change.entry_id, "", "", EntryState.ACTIVE)  # fails below
        else:
            state = EntryState.INACTIVE if op is ChangeOp.DEACTIVATE else EntryState.ACTIVE
            after = ManifestEntry(
                before.entry_id,
                before.entry_version_id,
                before.entry_content_hash,
                state,
                change.merged_into,
            )
        if not change_consistent(
            op,
            change.from_entry_version_id,
            change.to_entry_version_id,
            before,
            after,
            change.merged_into,
        ):
            raise ReplayError(f"change {op.value} of {change.entry_id} does not fit the manifest")
        return after
