"""The zero-config local server is started only where the server is installed: a client
installed alone (powercontext-client) answers at once instead of waiting for a start that
cannot work."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from powercontext_client import local_server
from powercontext_client.state import ENV_HOME


def test_this_environment_has_the_server() -> None:
    assert local_server.installed()


def test_without_the_server_nothing_is_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_HOME, str(tmp_path))
    real = importlib.util.find_spec

    def without_server(name: str, *args: object) -> object:
        return None if name == "powercontext_memory" else real(name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(importlib.util, "find_spec", without_server)
    assert not local_server.installed()
    assert local_server.ensure(wait=30.0) is None
    assert not (tmp_path / "local-server").exists()  # no lock, no log, no process started
