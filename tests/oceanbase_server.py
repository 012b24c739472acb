"""The OceanBase engine for tests: a real seekdb server, one throw-away database per test.

`make test` starts seekdb with scripts/seekdb.py and passes its DSN in
POWERCONTEXT_TEST_OCEANBASE_DSN. A bare `pytest` run starts (and stops) one itself with the
same script. Without the engine the tests fail; they are never skipped.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

import asyncmy

from powercontext_memory.backends.oceanbase_wire import OceanBaseDsn
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


@asynccontextmanager
async def fresh_database(server_dsn: str) -> AsyncIterator[str]:
    """A new, empty database on the server; dropped afterwards. Yields its DSN."""
    dsn = OceanBaseDsn.parse(server_dsn)
    name = f"pcm_{uuid.uuid4().hex[:16]}"
    conn = await asyncmy.connect(
        host=dsn.host, port=dsn.port, user=dsn.user, password=dsn.password, autocommit=True
    )
    try:
        async with conn.cursor() as cur:
            await cur.execute(f"CREATE DATABASE {name} DEFAULT CHARSET utf8mb4 COLLATE utf8mb4_bin")
        try:
            yield dsn.with_database(name).url
        finally:
            async with conn.cursor() as cur:
                await cur.execute(f"DROP DATABASE IF EXISTS {name}")
    finally:
        conn.close()
