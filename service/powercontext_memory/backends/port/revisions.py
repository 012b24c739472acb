"""Revisions, their entry versions and manifest pieces, and the head that names the newest.

Every row here is immutable once inserted (content addressed or keyed by memory and revision);
the only thing that moves is a memory's head, and only by compare-and-swap from the revision a
writer read, inside the transaction that inserts the new revision."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from .rows import ChangesRow, EntryVersionRow, ManifestPieceRow, RevisionRow, VersionMetadataRow


class RevisionExistsError(Exception):
    """insert_revision hit a unique conflict: another writer committed that revision first."""

    def __init__(self, artifact_id: str, revision: int) -> None:
        super().__init__(f"{artifact_id}@{revision} already exists")
        self.artifact_id = artifact_id
        self.revision = revision


class RevisionReads(Protocol):
    """Reads of one request: bounded by the revisions and versions it names."""

    async def head_revisions(self, artifact_ids: Sequence[str]) -> dict[str, int]:
        """Current head revision of each artifact that exists."""
        ...

    async def revision_row(self, artifact_id: str, revision: int) -> RevisionRow | None: ...

    async def changes_rows(self, artifact_id: str, first: int, last: int) -> list[ChangesRow]:
        """The compact changes of revisions first..last inclusive, ascending (history reads:
        a caller asks for a bounded page at a time)."""
        ...

    async def manifest_piece_rows(self, keys: Sequence[str]) -> list[ManifestPieceRow]:
        """The stored pieces among `keys` (any order; a missing key is simply absent)."""
        ...

    async def entry_version_rows(self, version_ids: Sequence[str]) -> list[EntryVersionRow]: ...

    async def existing_revisions(self, refs: Sequence[tuple[str, int]]) -> set[tuple[str, int]]:
        """Which (artifact_id, revision) pairs exist, in any family."""
        ...

    async def version_metadata_rows(self, version_ids: Sequence[str]) -> list[VersionMetadataRow]:
        """Kind, description and tags of these entry versions (any order; never the text)."""
        ...


class RevisionWrites(Protocol):
    """Inserts of a commit; the head CAS is what makes a revision the newest."""

    async def insert_revision(self, row: RevisionRow) -> None:
        """Raises RevisionExistsError when that (artifact, revision) already exists."""
        ...

    async def advance_head(self, artifact_id: str, base_revision: int, next_revision: int) -> bool:
        """CAS the head from base to next (base 0: create it). False when the head moved."""
        ...

    async def insert_entry_versions(self, rows: Sequence[EntryVersionRow]) -> None: ...

    async def set_revision_changes(
        self, artifact_id: str, revision: int, changes: str, changes_hash: str
    ) -> None:
        """Fill the changes columns of a revision stored without them (never overwrites)."""
        ...

    async def insert_manifest_pieces(self, rows: Sequence[ManifestPieceRow]) -> None:
        """Store pieces; a key already stored is left as it is (content addressed)."""
        ...

    async def set_revision_pieces(self, artifact_id: str, revision: int, root: str) -> None:
        """Replace a revision's whole content by its piece root (the migration; only rows
        that still hold their content are changed)."""
        ...
