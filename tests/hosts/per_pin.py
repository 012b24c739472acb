"""The module fixture of a host's tests: for each pinned version of the host, a workspace set up
for it with OUR server's endpoint (workspace.py) and the host started there, shared by the
module's tests of that version."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pytest

from .mock_models import MockModels
from .our_server import OurServer
from .pins import Pin, versions
from .workspace import Workspace, prepared

Host = TypeVar("Host")


def host_per_pin(pins: list[Pin], start: Callable[[Pin, Workspace, MockModels], Host]) -> Any:
    """The fixture, parametrized over `pins`, yielding `start(pin, workspace, models)`; a test
    module assigns it to the name its tests ask for."""

    @pytest.fixture(scope="module", params=pins, ids=versions(pins))
    def host(
        request: pytest.FixtureRequest,
        tmp_path_factory: pytest.TempPathFactory,
        server: OurServer,
        models: MockModels,
    ) -> Iterator[Host]:
        pin: Pin = request.param
        directory = tmp_path_factory.mktemp(f"{pin.setup_name}-{pin.version}")
        with prepared(directory, server.endpoint, pin.setup_name) as workspace:
            yield start(pin, workspace, models)

    return host
