"""SQLite point reads run on the caller's thread only when that keeps every guarantee: the
connection's queued calls stay in order, and a read that meets a lock never waits on the event
loop (it gets SQLITE_BUSY at once there and is run again on the connection's thread)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import sqlean

from powercontext_memory.backends.sqlite import SQLiteStorage


@pytest.fixture
async def storage(tmp_path: Path) -> AsyncIterator[SQLiteStorage]:
    opened = await SQLiteStorage.open(tmp_path / "memory.sqlite3", readers=1)
    try:
        yield opened
    finally:
        await opened.close()


async def test_a_point_read_on_a_free_reader_runs_without_a_hop(storage: SQLiteStorage) -> None:
    async with storage.read() as tx:
        assert await tx.head_revisions(["none"]) == {}
        ran_on = await tx._conn.run_point(lambda db: threading.get_ident(), None)
    assert ran_on == threading.get_ident()


async def test_a_point_read_waits_for_work_queued_before_it(storage: SQLiteStorage) -> None:
    async with storage.read() as tx:
        conn = tx._conn

        def slow(db: sqlean.Connection) -> None:
            time.sleep(0.2)
            db.execute("CREATE TEMP TABLE queued_first (x)")

        queued = conn.submit(slow)
        ran_on, tables = await conn.run_point(
            lambda db: (
                threading.get_ident(),
                db.execute("SELECT name FROM sqlite_temp_master").fetchall(),
            ),
            None,
        )
        await queued
    assert ran_on != threading.get_ident()  # on the connection's thread, after `slow`
    assert tables == [("queued_first",)]


async def test_a_busy_point_read_is_run_again_on_the_connections_thread(
    storage: SQLiteStorage,
) -> None:
    loop_thread = threading.get_ident()
    tried_on: list[int] = []

    def read(db: sqlean.Connection) -> list[tuple[int]]:
        tried_on.append(threading.get_ident())
        if threading.get_ident() == loop_thread:
            busy = sqlean.OperationalError("database is locked")
            busy.sqlite_errorcode = 5  # SQLITE_BUSY, as a reader meets it during WAL recovery
            raise busy
        assert db.in_transaction  # begun again there: a snapshot for the reads that follow
        time.sleep(0.05)  # a lock wait, on the connection's thread
        return db.execute("SELECT 1").fetchall()

    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    async with storage.read() as tx:
        ticking = asyncio.create_task(ticker())
        await asyncio.sleep(0)
        before = ticks
        assert await tx._conn.run_point(read, tx._next_begin()) == [(1,)]
        during = ticks - before
        ticking.cancel()
    assert tried_on[0] == loop_thread and tried_on[1] != loop_thread
    assert during > 0  # the loop kept running while the read waited on the thread
    # busy_timeout is restored for calls on the thread: they may wait for locks again
    async with storage.read() as tx:
        [[busy_ms]] = await tx._all("PRAGMA busy_timeout")
    assert busy_ms > 0


async def test_other_errors_of_a_point_read_are_raised_as_they_are(
    storage: SQLiteStorage,
) -> None:
    async with storage.read() as tx:
        with pytest.raises(sqlean.OperationalError, match="no_such_table"):
            await tx._point("SELECT * FROM no_such_table")
