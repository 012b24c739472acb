"""The OceanBase engine for tests: a real seekdb server, one empty database per test.

`make test` starts seekdb with scripts/seekdb.py and passes its DSN in
POWERCONTEXT_TEST_OCEANBASE_DSN. A bare `pytest` run starts (and stops) one itself with the
same script. Without the engine the tests fail; they are never skipped.

Creating our schema and dropping it again costs seekdb seconds of DDL per test, most of the
OceanBase half's time; so `empty_database` hands out databases again once their rows are
deleted, when their tables are still exactly what opening a service makes (or none at all).
A test that changed the schema (a dropped column, a vector column) leaves a database that is
dropped. `fresh_database` is for tests that need a database no test has used.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

import asyncmy
import asyncmy.errors

from powercontext_memory.app import open_service
from powercontext_memory.backends.oceanbase.wire import OceanBaseDsn
from scripts import seekdb

# A database's tables, columns (in order) and indexes; hidden columns (named "__…", the
# full-text index's own, numbered per database) are left out so that two databases compare.
Shape = tuple[tuple[object, ...], ...]
COLUMNS = (
    "SELECT table_name, ordinal_position, column_name, column_type, is_nullable, "
    "column_default FROM information_schema.columns WHERE table_schema = %s "
    "AND column_name NOT LIKE '\\_\\_%%' ORDER BY 1, 2"
)
INDEXES = (
    "SELECT table_name, index_name, index_type, non_unique, seq_in_index, column_name "
    "FROM information_schema.statistics WHERE table_schema = %s ORDER BY 1, 2, 5"
)


@contextmanager
def running_seekdb() -> Iterator[str]:
    """The DSN of the test engine: the one `make test` started, or one started here."""
    given = os.environ.get(seekdb.DSN_ENV)
    if given:
        yield given
        return
    with seekdb.temporary_server() as dsn:
        yield dsn


async def _connect(dsn: OceanBaseDsn) -> asyncmy.Connection:
    return await asyncmy.connect(
        host=dsn.host, port=dsn.port, user=dsn.user, password=dsn.password, autocommit=True
    )


async def _execute(dsn: OceanBaseDsn, sql: str) -> None:
    conn = await _connect(dsn)
    try:
        async with conn.cursor() as cur:
            await cur.execute(sql)
    finally:
        conn.close()


def _create(name: str) -> str:
    return f"CREATE DATABASE {name} DEFAULT CHARSET utf8mb4 COLLATE utf8mb4_bin"


def _drop(name: str) -> str:
    return f"DROP DATABASE IF EXISTS {name}"


def _new_name() -> str:
    return f"pcm_{uuid.uuid4().hex[:16]}"


@asynccontextmanager
async def fresh_database(server_dsn: str) -> AsyncIterator[str]:
    """A new, empty database on the server; dropped afterwards. Yields its DSN."""
    dsn, name = OceanBaseDsn.parse(server_dsn), _new_name()
    await _execute(dsn, _create(name))
    try:
        yield dsn.with_database(name).url
    finally:
        await _execute(dsn, _drop(name))


class _Reusable:
    """Per server: the shape a service's open gives a database, and the emptied databases."""

    def __init__(self) -> None:
        self.shape: Shape | None = None
        self.emptied: list[str] = []


_REUSABLE: dict[str, _Reusable] = {}
NO_TABLES: Shape = (("indexes",),)  # what _shape answers for a database no service opened


async def _shape(dsn: OceanBaseDsn, name: str) -> Shape:
    conn = await _connect(dsn)
    try:
        async with conn.cursor() as cur:
            await cur.execute(COLUMNS, (name,))
            columns = await cur.fetchall()
            await cur.execute(INDEXES, (name,))
            indexes = [
                (table, index, kind, unique, seq, "" if column.startswith("__") else column)
                for table, index, kind, unique, seq, column in await cur.fetchall()
            ]
        return (*(tuple(c) for c in columns), ("indexes",), *indexes)
    finally:
        conn.close()


async def _empty(dsn: OceanBaseDsn, name: str) -> None:
    """Delete every row of every table (schema_meta too: the next open starts as on a new one)."""
    conn = await _connect(dsn)
    try:
        async with conn.cursor() as cur:
            await cur.execute(f"USE {name}")
            await cur.execute("SET foreign_key_checks = 0")  # rows go in any order
            await cur.execute("SHOW TABLES")
            for (table,) in await cur.fetchall():
                await cur.execute(f"DELETE FROM `{table}`")
    finally:
        conn.close()


async def _opened_shape(dsn: OceanBaseDsn, reusable: _Reusable) -> str:
    """A new database opened once by a service: its shape is what reuse compares against."""
    name = _new_name()
    await _execute(dsn, _create(name))
    service = await open_service(dsn.with_database(name).url)
    await service.close()
    reusable.shape = await _shape(dsn, name)
    await _empty(dsn, name)
    return name


@asynccontextmanager
async def empty_database(server_dsn: str) -> AsyncIterator[str]:
    """A database without rows (and either no tables or a service's); yields its DSN."""
    dsn = OceanBaseDsn.parse(server_dsn)
    reusable = _REUSABLE.setdefault(server_dsn, _Reusable())
    if reusable.emptied:
        name = reusable.emptied.pop()
    elif reusable.shape is None:
        name = await _opened_shape(dsn, reusable)
    else:
        name = _new_name()
        await _execute(dsn, _create(name))
    try:
        yield dsn.with_database(name).url
    finally:
        await _give_back(dsn, name, reusable)


async def _give_back(dsn: OceanBaseDsn, name: str, reusable: _Reusable) -> None:
    try:
        if await _shape(dsn, name) in (reusable.shape, NO_TABLES):
            await _empty(dsn, name)
            reusable.emptied.append(name)
            return
    except asyncmy.errors.MySQLError:  # rows held by a connection the test left open, say
        pass
    await _execute(dsn, _drop(name))


@contextmanager
def fresh_database_blocking(server_dsn: str) -> Iterator[str]:
    """fresh_database for fixtures that run outside an event loop (module-scoped ones)."""
    dsn, name = OceanBaseDsn.parse(server_dsn), _new_name()
    asyncio.run(_execute(dsn, _create(name)))
    try:
        yield dsn.with_database(name).url
    finally:
        asyncio.run(_execute(dsn, _drop(name)))
