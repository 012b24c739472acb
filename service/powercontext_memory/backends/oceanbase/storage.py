"""OceanBaseStorage: the storage adapter over one OceanBase database, its two connection pools,
and the read and write transactions it hands out."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from asyncmy.errors import MySQLError

from ...domain.errors import UnavailableError
from ..timeouts import bounded
from . import schema
from .connections import connection_errors_as_unavailable, reader_pool, writer_pool
from .probe import ProbeResult, probe
from .transaction import OceanBaseTransaction
from .wire import OceanBaseDsn


class OceanBaseStorage:
    """StorageAdapter over one OceanBase database."""

    name = "oceanbase"
    native_vector_search = True  # HNSW in the engine; see vectors.py
    driver_errors: tuple[type[Exception], ...] = (MySQLError, ConnectionError)

    def __init__(self, dsn: OceanBaseDsn, timeout: float | None = None) -> None:
        self.dsn = dsn
        self.location = dsn.display
        self.timeout = timeout
        self._readers: Any = None
        self._writers: Any = None
        self.vector_dimension: int | None = None
        self.probe = ProbeResult()

    @classmethod
    async def open(
        cls,
        dsn: str | OceanBaseDsn,
        *,
        readers: int = 4,
        writers: int = 2,
        timeout: float | None = None,
    ) -> OceanBaseStorage:
        """`timeout` bounds every later call (and connection wait) in seconds; a connection
        whose call timed out is closed, never reused. None: unbounded."""
        parsed = dsn if isinstance(dsn, OceanBaseDsn) else OceanBaseDsn.parse(dsn)
        storage = cls(parsed, timeout)
        storage._writers = await writer_pool(parsed, writers)
        storage._readers = await reader_pool(parsed, readers)
        try:
            await storage._setup()
        except BaseException:
            await storage.close()
            raise
        return storage

    async def _setup(self) -> None:
        async with self._writers.acquire() as conn, conn.cursor() as cur:
            self.vector_dimension = await schema.prepare(cur)
            self.probe = await probe(cur, self.vector_dimension)

    def within(
        self, conn: Any = None, what: str = "did not answer"
    ) -> AbstractAsyncContextManager[None]:
        """Within the timeout; on expiry `conn` (mid-protocol by then) is closed, so the pool
        drops it instead of handing it out again."""
        return bounded(
            self.timeout, self.location, what=what, on_timeout=conn.close if conn else None
        )

    @asynccontextmanager
    async def _connection(self, pool: Any) -> AsyncIterator[Any]:
        async with contextlib.AsyncExitStack() as stack:
            async with self.within(what="gave no connection"):
                conn = await stack.enter_async_context(pool.acquire())
            yield conn

    async def _rollback(self, conn: Any) -> None:
        with contextlib.suppress(MySQLError, OSError, UnavailableError):
            async with self.within(conn):
                await conn.rollback()

    @asynccontextmanager
    async def read(self, *, optimistic: bool = False) -> AsyncIterator[OceanBaseTransaction]:
        """A consistent snapshot; `optimistic` as in StorageAdapter.read. A warm search reads
        only its heads: one round trip alone, where BEGIN, the read and ROLLBACK were three,
        each a loopback send and wake-up (bench/throughput.py reports server CPU per search)."""
        with connection_errors_as_unavailable(self.location):
            async with self._connection(self._readers) as conn:
                tx = OceanBaseTransaction(
                    self, conn, "START TRANSACTION WITH CONSISTENT SNAPSHOT", optimistic=optimistic
                )
                try:
                    yield tx
                finally:
                    if tx.begun:
                        await self._rollback(conn)

    @asynccontextmanager
    async def write(self) -> AsyncIterator[OceanBaseTransaction]:
        with connection_errors_as_unavailable(self.location):
            async with self._connection(self._writers) as conn:
                tx = OceanBaseTransaction(self, conn, "BEGIN")
                try:
                    yield tx
                except BaseException:
                    if tx.begun:
                        await self._rollback(conn)
                    raise
                if tx.begun:
                    async with self.within(conn):
                        await conn.commit()

    @property
    def engine_version(self) -> str:
        return self.probe.engine_version

    @property
    def fts_problem(self) -> str:
        return self.probe.fts_problem

    @property
    def vector_problem(self) -> str:
        return self.probe.vector_problem

    async def close(self) -> None:
        for pool in (self._readers, self._writers):
            if pool is not None:
                pool.close()
                await pool.wait_closed()
        self._readers = self._writers = None
