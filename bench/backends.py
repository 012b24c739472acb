"""Where the bench's databases live: a SQLite file, or a database on a seekdb server that the
bench starts itself with scripts/seekdb.py (the same engine the tests use)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import asyncmy

from powercontext_memory.backends.oceanbase.wire import OceanBaseDsn
from scripts import seekdb

BACKENDS = ("sqlite", "oceanbase")


def seekdb_server() -> contextlib.AbstractContextManager[str]:
    """A fresh seekdb on 127.0.0.1 for this bench run; its DSN."""
    return seekdb.temporary_server()


@contextlib.asynccontextmanager
async def database(backend: str, tmp: Path, server: str | None, name: str) -> AsyncIterator[str]:
    """The `--database` value of a new, empty database of this backend."""
    if backend == "sqlite":
        yield str(tmp / f"{name}.sqlite3")
        return
    assert server is not None
    dsn = OceanBaseDsn.parse(server)
    conn = await asyncmy.connect(
        host=dsn.host, port=dsn.port, user=dsn.user, password=dsn.password, autocommit=True
    )
    try:
        async with conn.cursor() as cur:
            await cur.execute(f"CREATE DATABASE {name} DEFAULT CHARSET utf8mb4 COLLATE utf8mb4_bin")
        yield dsn.with_database(name).url
        async with conn.cursor() as cur:
            await cur.execute(f"DROP DATABASE IF EXISTS {name}")
    finally:
        conn.close()
