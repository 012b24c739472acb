"""What every part of a SQLite transaction runs its statements through, on one connection."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

import sqlean

from ..sql_reads import PortableReads
from .connection import BoundConnection, begun
from .statements import Db, T, fetch, in_chunks, placeholders

POINT_READ_KEYS = 100  # more keys than this: a read that may run long, on the thread


class TransactionBase(PortableReads):
    """Read and write primitives on one connection's thread.

    A thread hop costs more than a point read (bench/search_cache.py), so the transaction's
    BEGIN rides along with its first call, writes that return nothing are queued without
    waiting (the connection thread runs calls in order, and `flush()` before COMMIT surfaces
    any error they raised), and a reader's point reads run without a hop when they can
    (`BoundConnection.run_point`).
    """

    def __init__(self, conn: BoundConnection, begin: str) -> None:
        self._conn = conn
        self._begin = begin
        self.begun = False
        self._pending: list[asyncio.Future[Any]] = []

    def _next_begin(self) -> str | None:
        """BEGIN for the transaction's first call, None for the others."""
        if self.begun:
            return None
        self.begun = True
        return self._begin

    def _with_begin(self, fn: Callable[[Db], T]) -> Callable[[Db], T]:
        return begun(fn, self._next_begin())

    async def _run(self, fn: Callable[[Db], T]) -> T:
        return await self._conn.run(self._with_begin(fn))

    def _queue(self, fn: Callable[[Db], Any]) -> None:
        def call(db: Db) -> None:
            result = fn(db)
            if isinstance(result, sqlean.Cursor):
                result.close()  # cursors never leave the connection's thread

        self._pending.append(self._conn.submit(self._with_begin(call)))

    async def flush(self) -> None:
        pending, self._pending = self._pending, []
        for future in pending:
            await self._conn.wait(future)

    async def settle(self) -> None:
        """Wait for queued work without raising (the caller is already rolling back)."""
        pending, self._pending = self._pending, []
        await asyncio.gather(*pending, return_exceptions=True)

    async def _all(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return await self._run(lambda db: fetch(db, sql, params))

    async def _all_chunked(self, sql: str, items: Sequence[Any], *prefix: Any) -> list[Any]:
        """Run `sql` (with one `{marks}` placeholder list, after the `prefix` parameters) over
        chunks of items in one hop."""

        def go(db: Db) -> list[Any]:
            out: list[Any] = []
            for chunk in in_chunks(items):
                statement = sql.format(marks=placeholders(len(chunk)))
                out.extend(db.execute(statement, (*prefix, *chunk)).fetchall())
            return out

        return await self._run(go)

    async def _point(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return await self._conn.run_point(lambda db: fetch(db, sql, params), self._next_begin())

    async def _point_chunked(self, sql: str, items: Sequence[Any]) -> list[Any]:
        if len(items) > POINT_READ_KEYS:
            return await self._all_chunked(sql, items)
        statement = sql.format(marks=placeholders(len(items)))
        return await self._conn.run_point(
            lambda db: fetch(db, statement, items), self._next_begin()
        )
