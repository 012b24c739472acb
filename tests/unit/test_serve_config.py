"""ServeConfig is the one configuration of a server: the command line parses into it, and
`argv()` turns it back into the command line that starts the same server in a process."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from powercontext_memory.cli import build_parser
from powercontext_memory.serving.config import ServeConfig
from powercontext_memory.serving.startup import serving_line, serving_port


@pytest.fixture(autouse=True)
def _no_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """serve's options default to POWERCONTEXT_* variables: none may leak into these checks."""
    for name in list(os.environ):
        if name.startswith("POWERCONTEXT_"):
            monkeypatch.delenv(name)


def parsed(argv: list[str]) -> ServeConfig:
    return ServeConfig.from_args(build_parser().parse_args(argv))


def test_the_command_line_defaults_are_the_configuration_defaults() -> None:
    assert parsed(["serve"]) == ServeConfig()


def test_a_default_configuration_names_only_its_address_and_database() -> None:
    config = ServeConfig(database="memory.sqlite3", listen="127.0.0.1:0")
    assert config.argv() == ["serve", "--listen", "127.0.0.1:0", "--database", "memory.sqlite3"]


def test_every_field_survives_the_trip_through_a_command_line(tmp_path: Path) -> None:
    config = ServeConfig(
        database=str(tmp_path / "m.sqlite3"),
        listen="127.0.0.1:0",
        progress_interval=0.25,
        workers=2,
        embedding="http",
        embedding_url="http://127.0.0.1:9/v1",
        embedding_model="m",
        embedding_dimension=8,
        model_cache=None,
        extractor_url="http://127.0.0.1:9/v1",
        extractor_model="x",
        metrics_listen="127.0.0.1:0",
        log_format="json",
        access_log=True,
        otel=True,
        auth="tokens",
        insecure=True,
        reflection="off",
        tls_cert="cert.pem",
        tls_key="key.pem",
        tls_client_ca="ca.pem",
        database_timeout=3.5,
        max_streams=9,
        max_streams_per_caller=3,
        idle_exit=30.0,
        address_file=str(tmp_path / "address"),
    )
    assert parsed(config.argv()) == config
    assert "--model-cache" in config.argv()  # None (in the heap) is said explicitly: "off"


def test_a_value_the_server_refuses_is_refused_from_a_configuration_too() -> None:
    with pytest.raises(SystemExit):
        parsed(ServeConfig(auth="sometimes").argv())


def test_the_startup_line_gives_its_port_and_nothing_else_does() -> None:
    line = serving_line("127.0.0.1:43210", "sqlite: m.sqlite3; vectors: off")
    assert serving_port(line + "\n") == 43210
    assert serving_port("error: address already in use\n") is None
    assert serving_port(line.replace("memory.v1.MemoryService", "other.v1.Service")) is None
