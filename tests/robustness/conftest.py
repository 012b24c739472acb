"""Robustness fixtures: a fresh database on each backend, served by real server processes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from ..oceanbase_server import fresh_database

BACKENDS = ["sqlite", "oceanbase"]


@pytest.fixture(params=BACKENDS)
async def database(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """What `serve --database` takes: a fresh SQLite file, or a throw-away seekdb database."""
    if request.param == "sqlite":
        yield str(tmp_path / "memory.sqlite3")
        return
    server: str = request.getfixturevalue("oceanbase_server")
    async with fresh_database(server) as dsn:
        yield dsn
