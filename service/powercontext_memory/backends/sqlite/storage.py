"""SQLiteStorage: opens the writer, the readers and the checkpointer; hands out transactions."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import sqlean

from ..timeouts import bounded
from .configuration import DEFAULT_BUSY_MS, configure
from .connection import BoundConnection
from .schema import setup_writer
from .statements import execute, roll_back_if_open
from .transaction import SQLiteTransaction

CHECKPOINT_INTERVAL = 0.5  # seconds between WAL checkpoints while writes keep coming


class SQLiteStorage:
    """StorageAdapter over one SQLite file."""

    name = "sqlite"
    native_vector_search = False  # vec0 is brute force; NumPy over cached vectors is faster
    driver_errors: tuple[type[Exception], ...] = (sqlean.Error,)
    engine_version = sqlean.sqlite_version
    # FTS5 and vec0 are part of this build; opening fails outright without them.
    fts_problem = ""
    vector_problem = ""

    def __init__(
        self, path: str | os.PathLike[str], readers: int = 4, timeout: float | None = None
    ) -> None:
        self.location = str(path)
        self.timeout = timeout
        self._writer = BoundConnection(self.location)
        self._readers: list[BoundConnection] = [
            BoundConnection(self.location, point_reads=True) for _ in range(readers)
        ]
        self._idle: asyncio.Queue[BoundConnection] = asyncio.Queue()
        self._checkpointer = BoundConnection(self.location)
        self._dirty = asyncio.Event()
        self._checkpoint_task: asyncio.Task[None] | None = None

    @classmethod
    async def open(
        cls, path: str | os.PathLike[str], readers: int = 4, timeout: float | None = None
    ) -> SQLiteStorage:
        """`timeout` bounds every later call (and lock wait) in seconds; None: unbounded."""
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        storage = cls(path, readers, timeout)
        busy_ms = DEFAULT_BUSY_MS if timeout is None else int(timeout * 1000)
        await storage._writer.open(functools.partial(setup_writer, busy_ms=busy_ms), busy_ms)
        for reader in storage._readers:
            await reader.open(functools.partial(configure, busy_ms=busy_ms), busy_ms)
            storage._idle.put_nowait(reader)
        await storage._checkpointer.open(configure)
        for conn in (storage._writer, *storage._readers):
            conn.timeout = timeout
        storage._checkpoint_task = asyncio.create_task(storage._checkpoint_loop())
        return storage

    def read(self, *, optimistic: bool = False) -> _Snapshot:
        """A snapshot: BEGIN rides along with the first query; ROLLBACK is queued, not awaited.
        So a read of one statement is one hop already, and `optimistic` changes nothing."""
        return _Snapshot(self)

    @asynccontextmanager
    async def write(self) -> AsyncIterator[SQLiteTransaction]:
        """BEGIN IMMEDIATE; COMMIT on clean exit, ROLLBACK on any exception."""
        conn = self._writer
        tx = SQLiteTransaction(conn, "BEGIN IMMEDIATE")
        try:
            yield tx
            await tx.flush()
        except BaseException:
            await tx.settle()
            if tx.begun:
                await conn.run(roll_back_if_open)
            raise
        if tx.begun:
            await conn.run(execute, "COMMIT")
            self._dirty.set()

    async def _checkpoint_loop(self) -> None:
        """Checkpoint the WAL off the commit path (the writer's autocheckpoint is off)."""
        while True:
            await self._dirty.wait()
            self._dirty.clear()
            await self._checkpointer.run(execute, "PRAGMA wal_checkpoint(PASSIVE)")
            await asyncio.sleep(CHECKPOINT_INTERVAL)

    async def close(self) -> None:
        if self._checkpoint_task is not None:
            self._checkpoint_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._checkpoint_task
        await self._writer.run(execute, "PRAGMA wal_checkpoint(TRUNCATE)")
        await self._writer.close()
        for reader in self._readers:
            await reader.close()
        await self._checkpointer.close()


class _Snapshot:
    """A read transaction on a free reader (waiting for one within the timeout), given back
    when the block ends. A class rather than a generator-based context manager: every search
    enters one."""

    __slots__ = ("_storage", "_conn", "_tx")

    def __init__(self, storage: SQLiteStorage) -> None:
        self._storage = storage

    async def __aenter__(self) -> SQLiteTransaction:
        storage = self._storage
        try:
            conn = storage._idle.get_nowait()  # the common case: no timer to arm and cancel
        except asyncio.QueueEmpty:
            async with bounded(storage.timeout, storage.location, what="had no free reader"):
                conn = await storage._idle.get()
        self._conn = conn
        self._tx = SQLiteTransaction(conn, "BEGIN")
        return self._tx

    async def __aexit__(self, *exc: object) -> None:
        if self._tx.begun:
            self._conn.end_read()
        self._storage._idle.put_nowait(self._conn)
