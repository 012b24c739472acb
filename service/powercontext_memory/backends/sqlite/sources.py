"""Sources and their links to memories."""

from __future__ import annotations

from collections.abc import Sequence

from ..port import SourceLinkRow, SourceRow, values
from ..sql_reads import SOURCE_COLUMNS, SOURCE_LINK_COLUMNS
from .statements import Db
from .transaction_base import TransactionBase


class SQLiteSources(TransactionBase):
    async def insert_source(self, row: SourceRow) -> bool:
        def go(db: Db) -> bool:
            cur = db.execute(
                f"INSERT OR IGNORE INTO sources ({SOURCE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                values(row),
            )
            return cur.rowcount == 1

        return await self._run(go)

    async def insert_source_links(self, rows: Sequence[SourceLinkRow]) -> None:
        if rows:
            self._queue(
                lambda db: db.executemany(
                    f"INSERT OR IGNORE INTO memory_sources ({SOURCE_LINK_COLUMNS}) "
                    "VALUES (?, ?, ?)",
                    [values(r) for r in rows],
                )
            )
