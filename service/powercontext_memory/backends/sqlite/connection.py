"""A sqlite connection bound to one thread: calls queued in order, bounded by the timeout."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import sqlean

from ..timeouts import bounded, timed_out
from .configuration import DEFAULT_BUSY_MS
from .statements import Db, T, execute, roll_back_if_open

# A timed-out call is interrupted this long after the lock wait (busy_timeout) would have
# ended on its own, so a plain lock wait gets SQLite's own clean SQLITE_BUSY.
INTERRUPT_GRACE = 1.0
SQLITE_BUSY = 5


class BoundConnection:
    """A sqlite connection living on one dedicated thread.

    With a `timeout` (the server's database timeout), lock waits end after it (busy_timeout:
    SQLITE_BUSY becomes UNAVAILABLE DATABASE_TIMEOUT), and a call still running a moment
    later is interrupted (sqlite3_interrupt) and answered the same way.

    A reader (`point_reads`) may also run a point read on the caller's thread (`run_point`):
    a hop to its thread and back costs more than the read (bench/search_cache.py's cold
    searches show it in the server's CPU). Only while nothing is queued on the thread (so
    calls keep their order), and with no lock wait: such a read gets SQLITE_BUSY at once, and
    is run again on the thread, where it may wait.
    """

    def __init__(self, path: str, *, point_reads: bool = False) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite")
        self._path = path
        self._db: Db | None = None
        self.timeout: float | None = None
        self._point_reads = point_reads
        self._busy_ms = DEFAULT_BUSY_MS
        self._waits_on_locks = True  # busy_timeout as configured, not 0
        self._last: Future[Any] | None = None  # the newest call queued on the thread

    async def open(self, setup: Callable[[Db], None], busy_ms: int = DEFAULT_BUSY_MS) -> None:
        def _open() -> None:
            db = sqlean.connect(self._path, isolation_level=None, check_same_thread=False)
            setup(db)
            self._db = db

        self._busy_ms = busy_ms
        await self.run(lambda _db: None, _opening=_open)

    async def run(
        self, fn: Callable[..., T], *args: Any, _opening: Callable[[], None] | None = None
    ) -> T:
        def call() -> T:
            if _opening is not None:
                _opening()
            assert self._db is not None
            return fn(self._db, *args)

        return await self.wait(self._submit(call))

    def _submit(self, call: Callable[[], T]) -> asyncio.Future[T]:
        if not self._waits_on_locks:  # back from point reads: lock waits as configured
            self._waits_on_locks = True
            busy_ms, inner = self._busy_ms, call

            def call() -> T:
                assert self._db is not None
                execute(self._db, f"PRAGMA busy_timeout = {busy_ms}")
                return inner()

        self._last = self._executor.submit(call)
        return asyncio.wrap_future(self._last)

    def _can_run_here(self) -> bool:
        return (
            self._point_reads and self._db is not None and (self._last is None or self._last.done())
        )

    async def run_point(self, fn: Callable[[Db], T], begin: str | None) -> T:
        """`fn` (after `begin`, when given): here when the connection is free, else queued."""
        if self._can_run_here():
            db = self._db
            assert db is not None
            if self._waits_on_locks:
                execute(db, "PRAGMA busy_timeout = 0")
                self._waits_on_locks = False
            try:
                if begin is not None:
                    execute(db, begin)
                return fn(db)
            except sqlean.OperationalError as error:
                if (getattr(error, "sqlite_errorcode", 0) or 0) & 0xFF != SQLITE_BUSY:
                    raise
                if begin is not None and db.in_transaction:
                    execute(db, "ROLLBACK")  # no snapshot was taken: begin again there
        return await self.run(begun(fn, begin))

    def end_read(self) -> None:
        """End a read transaction: here when the connection is free, else queued."""
        if self._can_run_here():
            assert self._db is not None
            roll_back_if_open(self._db)
        else:
            self._submit(functools.partial(roll_back_if_open, self._db))

    async def wait(self, work: Awaitable[T]) -> T:
        """The result of work queued on this connection, within the timeout."""
        seconds = None if self.timeout is None else self.timeout + INTERRUPT_GRACE

        def interrupt() -> None:
            if self._db is not None:
                self._db.interrupt()  # thread-safe: the running statement stops

        try:
            async with bounded(seconds, self._path, on_timeout=interrupt):
                return await work
        except sqlean.OperationalError as error:
            if self.timeout is None or getattr(error, "sqlite_errorcode", None) != SQLITE_BUSY:
                raise
            raise timed_out(
                self._path, self.timeout, "stayed locked by another connection"
            ) from error

    def submit(self, fn: Callable[..., T], *args: Any) -> asyncio.Future[T]:
        """Queue work without waiting: the thread runs calls in order, so later calls see it."""
        assert self._db is not None
        db = self._db
        return self._submit(lambda: fn(db, *args))

    async def close(self) -> None:
        if self._db is not None:
            await self.run(lambda db: db.close())
            self._db = None
        self._executor.shutdown(wait=True)


def begun(fn: Callable[[Db], T], begin: str | None) -> Callable[[Db], T]:
    """`fn` preceded by `begin` on the same hop, or `fn` itself when there is none."""
    if begin is None:
        return fn

    def call(db: Db) -> T:
        execute(db, begin)
        return fn(db)

    return call
