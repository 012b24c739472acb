"""Idempotent writes: the outcome recorded per request id, and its pruning."""

from __future__ import annotations

from ..port import WriteRequestRow, values
from ..sql_reads import WRITE_REQUEST_COLUMNS
from .statements import Db
from .transaction_base import TransactionBase


class SQLiteRequestLog(TransactionBase):
    async def insert_write_request(self, row: WriteRequestRow) -> bool:
        def go(db: Db) -> bool:
            cur = db.execute(
                f"INSERT OR IGNORE INTO write_requests ({WRITE_REQUEST_COLUMNS}) "
                "VALUES (?, ?, ?, ?, ?)",
                values(row),
            )
            try:
                return cur.rowcount == 1
            finally:
                cur.close()

        return await self._run(go)

    async def delete_write_requests(self, created_before_ms: int, limit: int) -> int:
        def go(db: Db) -> int:
            cur = db.execute(
                "DELETE FROM write_requests WHERE rowid IN (SELECT rowid FROM write_requests "
                "WHERE created_at_ms < ? ORDER BY created_at_ms LIMIT ?)",
                (created_before_ms, limit),
            )
            try:
                return int(cur.rowcount)
            finally:
                cur.close()

        return await self._run(go)
