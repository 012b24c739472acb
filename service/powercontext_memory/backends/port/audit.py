"""Whole-database reads for the verifier, export, backfills and admin listings: offline or rare,
each may scan a memory or the whole database; they change nothing."""

from __future__ import annotations

from typing import Protocol

from .catalog import MemoryLabelRow
from .rows import AccessTokenRow, EntryVersionRow, HeadProjectionRow, RevisionRow, SourceLinkRow


class AuditReads(Protocol):
    """Scans of one memory or of the whole database."""

    async def revision_rows(self, artifact_id: str, first: int, last: int) -> list[RevisionRow]:
        """Revisions first..last inclusive, ascending."""
        ...

    async def lineage_rows(self, artifact_id: str) -> list[tuple[int, int, str]]:
        """(revision, committed_at_ms, lineage JSON) of every revision of one memory, ascending:
        never a manifest."""
        ...

    async def revisions_without_changes(
        self, after: tuple[str, int] | None, limit: int
    ) -> list[tuple[str, int]]:
        """Up to `limit` (artifact_id, revision) keys of revisions whose changes are not
        stored, after `after` in key order (the backfill walks them in batches)."""
        ...

    async def revisions_with_full_content(
        self, after: tuple[str, int] | None, limit: int
    ) -> list[tuple[str, int]]:
        """Up to `limit` keys of revisions still holding their whole content (not pieces),
        after `after` in key order (the manifest migration walks them in batches)."""
        ...

    async def head_projection_rows(self, artifact_id: str) -> list[HeadProjectionRow]:
        """Every projection row of one memory (verifier and rebuild)."""
        ...

    async def fts_rows(self, artifact_id: str) -> list[tuple[str, str]]:
        """(entry_id, indexed text) of the full-text index for one memory (verifier)."""
        ...

    async def artifact_ids(self) -> list[str]:
        """Every artifact with a head (verifier)."""
        ...

    async def all_entry_version_rows(self, artifact_id: str) -> list[EntryVersionRow]:
        """Every entry version of one memory (verifier)."""
        ...

    async def all_source_ids(self) -> list[str]: ...

    async def source_link_rows(self, artifact_id: str) -> list[SourceLinkRow]:
        """Every source linked to one memory, by source id (verifier)."""
        ...

    async def memory_label_history(self, artifact_id: str) -> list[MemoryLabelRow]:
        """Every label ever set on one memory, by label version (export)."""
        ...

    async def access_token_rows(self) -> list[AccessTokenRow]:
        """Every token, revoked and expired ones included, oldest first."""
        ...
