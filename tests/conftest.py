"""Session-wide fixtures shared by every test directory."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

# Clients in this process never start the user's local server (its own tests opt in).
os.environ["POWERCONTEXT_LOCAL_SERVER"] = "off"

from .oceanbase_server import running_seekdb


@pytest.fixture(scope="session")
def oceanbase_server() -> Iterator[str]:
    """DSN of a running seekdb server (see tests/oceanbase_server.py)."""
    with running_seekdb() as dsn:
        yield dsn
