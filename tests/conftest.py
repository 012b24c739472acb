"""Session-wide fixtures shared by every test directory."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .oceanbase_server import running_seekdb


@pytest.fixture(scope="session")
def oceanbase_server() -> Iterator[str]:
    """DSN of a running seekdb server (see tests/oceanbase_server.py)."""
    with running_seekdb() as dsn:
        yield dsn
