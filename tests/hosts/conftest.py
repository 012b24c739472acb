"""Fixtures of the real-host suite: the pinned hosts installed, the mock model and OUR server.

One server and one mock serve a whole module; each test scripts the mock afresh. OUR server
listens on a free port — never the default 127.0.0.1:50051 — so a call that reaches it proves
that the endpoint given to `powercontext setup` was followed. The workspaces (workspace.py) are
made by the host modules' own fixtures.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .mock_models import MockModels
from .our_server import OurServer, our_server
from .pins import NODE_MODULES


@pytest.fixture(scope="session", autouse=True)
def hosts_installed() -> None:
    if not NODE_MODULES.is_dir():
        pytest.fail(
            "the pinned hosts are not installed: make tests/hosts/npm/node_modules/.npm-ci "
            "(make test does it)"
        )


@pytest.fixture(scope="module")
def models() -> Iterator[MockModels]:
    with MockModels() as running:
        yield running


@pytest.fixture
def model(models: MockModels) -> MockModels:
    """The module's mock, with no script and no recorded request."""
    models.reset()
    return models


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OurServer]:
    with our_server(tmp_path_factory.mktemp("server")) as running:
        yield running
