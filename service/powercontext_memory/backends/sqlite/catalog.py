"""Memory labels on SQLite: a set is an insert that a taken version number turns away."""

from __future__ import annotations

from ..port import MemoryLabelRow, columns, values
from .statements import Db
from .transaction_base import TransactionBase

_INSERT = f"INSERT OR IGNORE INTO memory_labels ({columns(MemoryLabelRow)}) VALUES (?, ?, ?, ?)"


class SQLiteCatalog(TransactionBase):
    async def insert_memory_label(self, row: MemoryLabelRow) -> bool:
        def go(db: Db) -> bool:
            cur = db.execute(_INSERT, values(row))
            try:
                return cur.rowcount == 1
            finally:
                cur.close()

        return await self._run(go)
