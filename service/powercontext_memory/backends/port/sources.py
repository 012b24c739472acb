"""Sources (the evidence entries cite) and the links that tie each source to its memories.

A source is immutable once inserted; links are only ever added, each keeping its first time,
so a memory that could see a source at some revision can see it at every later one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from .rows import SourceLinkRow, SourceRow


class SourceReads(Protocol):
    """Sources by id, and which of them the caller's memories are linked to."""

    async def source_rows(self, source_ids: Sequence[str]) -> list[SourceRow]: ...

    async def source_links(
        self, source_ids: Sequence[str], artifact_ids: Sequence[str]
    ) -> dict[str, int]:
        """Those of `source_ids` linked to any of `artifact_ids` (memory_sources), each with
        the earliest recorded_at_ms among those links."""
        ...


class SourceWrites(Protocol):
    """Sources and links, written by the commit (or PutSource) that needs them."""

    async def insert_source(self, row: SourceRow) -> bool:
        """False when a source with this id already exists (sources are immutable)."""
        ...

    async def insert_source_links(self, rows: Sequence[SourceLinkRow]) -> None:
        """Link sources to memories; a pair already linked keeps its row (and its time)."""
        ...
