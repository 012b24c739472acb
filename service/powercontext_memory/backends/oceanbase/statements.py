"""The statements of one OceanBase transaction on one pooled connection: BEGIN rides with the
first call, and an optimistic read runs its first statement alone (autocommit)."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from ..port import SnapshotMovedError
from ..sql_reads import PortableReads
from .probe import ProbeResult
from .schema import HEADS_BY_ENTRY
from .wire import driver_sql

_CHUNK = 500


def marks(n: int) -> str:
    return ",".join(["?"] * n)


def chunks(items: Sequence[Any]) -> list[Sequence[Any]]:
    return [items[i : i + _CHUNK] for i in range(0, len(items), _CHUNK)]


class ConnectionOwner(Protocol):
    """What a transaction needs of its storage (OceanBaseStorage)."""

    vector_dimension: int | None
    probe: ProbeResult

    def within(
        self, conn: Any = None, what: str = "did not answer"
    ) -> AbstractAsyncContextManager[None]: ...


class OceanBaseStatements(PortableReads):
    """Read and write primitives on one pooled connection; BEGIN rides with the first call."""

    def __init__(
        self, storage: ConnectionOwner, conn: Any, begin: str, *, optimistic: bool = False
    ) -> None:
        self._storage = storage
        self._conn = conn
        self._begin = begin
        self.begun = False
        self._optimistic = optimistic
        # An optimistic read's first statement, run alone: (sql, params, rows) until it begins.
        self._alone: tuple[str, tuple[Any, ...], list[tuple[Any, ...]]] | None = None

    async def _cursor(self) -> Any:
        cur = self._conn.cursor()
        if not self.begun:
            self.begun = True
            async with self._storage.within(self._conn):
                await cur.execute(self._begin)
            if self._alone is not None:
                await self._confirm_alone(cur)
        return cur

    async def _confirm_alone(self, cur: Any) -> None:
        """The statement run alone answers the same inside the snapshot, so everything read
        belongs to it; else a commit came in between (SnapshotMovedError)."""
        assert self._alone is not None
        sql, params, rows = self._alone
        async with self._storage.within(self._conn):
            await cur.execute(driver_sql(sql), params)
            again = list(await cur.fetchall())
        if again != rows:
            raise SnapshotMovedError("a commit landed between an optimistic read's statements")

    async def _all(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        if self._optimistic and not self.begun and self._alone is None:
            # Autocommit: the statement is its own snapshot, and no ROLLBACK is owed for it.
            async with self._conn.cursor() as cur, self._storage.within(self._conn):
                await cur.execute(driver_sql(sql), tuple(params))
                rows = list(await cur.fetchall())
            self._alone = (sql, tuple(params), rows)
            return rows
        async with await self._cursor() as cur, self._storage.within(self._conn):
            await cur.execute(driver_sql(sql), tuple(params))
            return list(await cur.fetchall())

    async def _exec(self, sql: str, params: Sequence[Any] = ()) -> int:
        async with await self._cursor() as cur, self._storage.within(self._conn):
            return int(await cur.execute(driver_sql(sql), tuple(params)))

    async def _all_chunked(self, sql: str, items: Sequence[Any], *prefix: Any) -> list[Any]:
        out: list[Any] = []
        for chunk in chunks(items):
            out.extend(await self._all(sql.format(marks=marks(len(chunk))), (*prefix, *chunk)))
        return out

    def _heads_hint(self, heads: str, joined: str = "") -> str:
        """Through the (memory, entry) index, a joined table by key per row. The engine's
        statistics trail a growing table (they are gathered in a nightly window): planned
        with a young database's, a read of one memory's heads scanned every memory's rows,
        and so did PrepareContext's rules (bench/context.py), a filtered search's eligible
        rows and a memory's vector rows."""
        hint = f"INDEX({heads} {HEADS_BY_ENTRY})"
        if joined:
            hint = f"LEADING({heads} {joined}) USE_NL({joined}) {hint}"
        return f"/*+ {hint} */ "
