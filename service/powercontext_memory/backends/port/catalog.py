"""The memories a database holds, as listed, and the labels people give them.

Listing reads heads and the revision rows they name (immutable), so a page is exact for the
snapshot it was read in. Labels sit outside the revision history: every label ever set is a
row of its own, numbered per memory; a set inserts the next number and fails on a taken one,
so concurrent sets are decided by the database, not by the last writer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class MemoryHeadRow:
    """A memory's head as listed: its revision row's time and lineage, and revision 1's time."""

    artifact_id: str
    revision: int
    committed_at_ms: int
    lineage: str  # canonical JSON of Lineage
    created_at_ms: int


@dataclass(frozen=True, slots=True)
class MemoryLabelRow:
    memory_artifact_id: str
    label_version: int  # 1 for the first label set, then one more per set
    label: str  # "" when this version cleared the label
    set_at_ms: int


class CatalogReads(Protocol):
    async def memory_head_rows(
        self, after: str, limit: int, within: Sequence[str] | None
    ) -> list[MemoryHeadRow]:
        """Memories with an id after `after` ("" from the start), in id order, at most
        `limit`; with `within`, only those ids."""
        ...

    async def memory_label_rows(self, artifact_ids: Sequence[str]) -> list[MemoryLabelRow]:
        """The newest label row of each of these memories that has one (any order)."""
        ...


class CatalogWrites(Protocol):
    async def insert_memory_label(self, row: MemoryLabelRow) -> bool:
        """False (nothing written) when that memory already has this label version."""
        ...
