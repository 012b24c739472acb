"""The request log on OceanBase: the outcome of each write that carried a request id."""

from __future__ import annotations

from ..port import WriteRequestRow, values
from ..sql_reads import WRITE_REQUEST_COLUMNS
from .statements import OceanBaseStatements


class RequestLogStatements(OceanBaseStatements):
    async def insert_write_request(self, row: WriteRequestRow) -> bool:
        """INSERT IGNORE waits on the row lock of a concurrent transaction recording the same
        key, then ignores the row if that one committed."""
        affected = await self._exec(
            f"INSERT IGNORE INTO write_requests ({WRITE_REQUEST_COLUMNS}) VALUES (?, ?, ?, ?, ?)",
            values(row),
        )
        return affected == 1

    async def delete_write_requests(self, created_before_ms: int, limit: int) -> int:
        return await self._exec(
            "DELETE FROM write_requests WHERE created_at_ms < ? ORDER BY created_at_ms LIMIT ?",
            (created_before_ms, limit),
        )
