"""`powercontext-memory serve` as a real process: startup line, health, signals."""

from __future__ import annotations

import re
import select
import signal
import subprocess
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from ..serving import SERVER_COMMAND, server_env

STARTUP_TIMEOUT = 60.0
EXIT_TIMEOUT = 10.0
Launch = Callable[..., "subprocess.Popen[str]"]
SERVING_LINE = re.compile(
    r"^serving powercontext\.memory\.v1\.MemoryService on (?P<host>[^ ]+):(?P<port>\d+) "
    r"\(sqlite: (?P<database>.+?); vectors: (?P<vectors>.+)\)$"
)


def _first_line(proc: subprocess.Popen[str]) -> str:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], STARTUP_TIMEOUT)
    assert ready, "server printed nothing"
    line = proc.stdout.readline()
    assert line, f"server exited early: {proc.wait()}"
    return line.rstrip("\n")


@pytest.fixture
def launch(tmp_path: Path) -> Iterator[Launch]:
    procs: list[subprocess.Popen[str]] = []

    def start(args: list[str], env: Mapping[str, str] | None = None) -> subprocess.Popen[str]:
        proc = subprocess.Popen(
            [SERVER_COMMAND, *args],
            cwd=tmp_path,
            env=server_env(env),
            stdout=subprocess.PIPE,
            text=True,
        )
        procs.append(proc)
        return proc

    yield start
    for proc in procs:  # never leave a server behind when an assertion failed
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def _check_serving(port: int) -> None:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        health = health_pb2_grpc.HealthStub(channel)
        response = health.Check(health_pb2.HealthCheckRequest(service=""), timeout=10)
        assert response.status == health_pb2.HealthCheckResponse.SERVING


def test_serve_with_flags_stops_on_sigterm(launch: Launch, tmp_path: Path) -> None:
    database = tmp_path / "nested" / "memory.sqlite3"
    proc = launch(["serve", "--listen", "127.0.0.1:0", "--database", str(database)])
    match = SERVING_LINE.match(_first_line(proc))
    assert match, "unexpected startup line"
    assert match["host"] == "127.0.0.1"
    assert match["database"] == str(database)
    port = int(match["port"])
    assert port > 0

    _check_serving(port)
    assert database.exists()

    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=EXIT_TIMEOUT) == 0


def test_serve_from_environment_stops_on_sigint(launch: Launch, tmp_path: Path) -> None:
    database = tmp_path / "env.sqlite3"
    proc = launch(
        ["serve"],
        {
            "POWERCONTEXT_LISTEN": "127.0.0.1:0",
            "POWERCONTEXT_DATABASE": str(database),
            "POWERCONTEXT_PROGRESS_INTERVAL": "0.5",
        },
    )
    match = SERVING_LINE.match(_first_line(proc))
    assert match and match["database"] == str(database)
    _check_serving(int(match["port"]))

    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=EXIT_TIMEOUT) == 0


def test_rejects_a_bad_progress_interval(launch: Launch, tmp_path: Path) -> None:
    proc = launch(["serve", "--database", str(tmp_path / "x.sqlite3"), "--progress-interval", "0"])
    assert proc.wait(timeout=EXIT_TIMEOUT) == 2  # argparse usage error
