"""The request log: each caller's write request ids with the outcome they got (idempotency).

A record is inserted by the transaction of the write it records, so a retried request finds
either nothing (the write never committed) or exactly the revision it made; records expire."""

from __future__ import annotations

from typing import Protocol

from .rows import WriteRequestRow


class RequestLogReads(Protocol):
    """The recorded outcome of one request id."""

    async def write_request_row(self, caller_key: str, request_id: str) -> WriteRequestRow | None:
        """The recorded outcome of this caller's request id, however old (pruning removes)."""
        ...


class RequestLogWrites(Protocol):
    """Recording inside the write, and pruning of expired records."""

    async def insert_write_request(self, row: WriteRequestRow) -> bool:
        """False when (caller_key, request_id) is already recorded; the row is not changed.

        A concurrent transaction recording the same key makes this wait for it to end (the
        unique key), so two writers of one id never both succeed.
        """
        ...

    async def delete_write_requests(self, created_before_ms: int, limit: int) -> int:
        """Delete up to `limit` records created before `created_before_ms`, oldest first."""
        ...
