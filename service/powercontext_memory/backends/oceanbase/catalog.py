"""Memory labels on OceanBase: a set is an insert that a taken version number turns away."""

from __future__ import annotations

from ..port import MemoryLabelRow, columns, values
from .statements import OceanBaseStatements

_INSERT = f"INSERT IGNORE INTO memory_labels ({columns(MemoryLabelRow)}) VALUES (?, ?, ?, ?)"


class CatalogStatements(OceanBaseStatements):
    async def insert_memory_label(self, row: MemoryLabelRow) -> bool:
        return await self._exec(_INSERT, values(row)) == 1
