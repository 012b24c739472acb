"""The OceanBase engine for tests: a real seekdb server, one throw-away database per test.

`make test` starts seekdb with scripts/seekdb.py and passes its DSN in
POWERCONTEXT_TEST_OCEANBASE_DSN. A bare `pytest` run starts (and stops) one itself with the
same script. Without the engine the tests fail; they are never skipped.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

import asyncmy

from powercontext_memory.backends.oceanbase.wire import OceanBaseDsn
from scripts import seekdb


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


@contextmanager
def fresh_database_blocking(server_dsn: str) -> Iterator[str]:
    """fresh_database for fixtures that run outside an event loop (module-scoped ones)."""
    dsn, name = OceanBaseDsn.parse(server_dsn), _new_name()
    asyncio.run(_execute(dsn, _create(name)))
    try:
        yield dsn.with_database(name).url
    finally:
        asyncio.run(_execute(dsn, _drop(name)))
