"""Sources on OceanBase: a source row, and its links to the memories that may read it."""

from __future__ import annotations

from collections.abc import Sequence

from ..port import SourceLinkRow, SourceRow, values
from ..sql_reads import SOURCE_COLUMNS, SOURCE_LINK_COLUMNS
from .statements import OceanBaseStatements, chunks


class SourceStatements(OceanBaseStatements):
    async def insert_source(self, row: SourceRow) -> bool:
        affected = await self._exec(
            f"INSERT IGNORE INTO sources ({SOURCE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            values(row),
        )
        return affected == 1

    async def insert_source_links(self, rows: Sequence[SourceLinkRow]) -> None:
        for chunk in chunks(list(rows)):
            await self._exec(
                f"INSERT IGNORE INTO memory_sources ({SOURCE_LINK_COLUMNS}) VALUES "
                + ", ".join(["(?, ?, ?)"] * len(chunk)),
                [v for r in chunk for v in values(r)],
            )
