"""The wheel as a user (or the Dockerfile) installs it: build it, install it into a clean virtual
environment with the lock as constraints and no extras, then serve and call from that venv only.

Nothing here runs from the checkout: the venv comes from the base interpreter (not this .venv
with its editable install), PYTHONPATH and POWERCONTEXT_* are dropped and every command runs in a
temporary directory. Building and installing reuse the pip cache (about 15 s when it is warm).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import zipfile
from collections.abc import Mapping
from pathlib import Path

import pytest

from ..serving import Served, serve_process, server_env

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "requirements.txt"  # constraints: the same versions `make` installs
PIP_TIMEOUT = 600.0
# A client that imports only what the wheel and its dependencies installed.
CLIENT = """
import sys
import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from powercontext.memory.v1 import memory_service_pb2 as pb, memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types

with grpc.insecure_channel(sys.argv[1]) as channel:
    health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
    entry = types.EntryInput(kind="fact", text="installed from the wheel")
    request = pb.RememberRequest(entries=[entry])
    reply = pb_grpc.MemoryServiceStub(channel).Remember(request, timeout=10)
status = health_pb2.HealthCheckResponse.ServingStatus.Name(health.status)
print(status, reply.memory.revision, reply.changed)
"""
WHERE = """
import sys
import powercontext_memory, powercontext_client
from powercontext.memory.v1 import memory_service_pb2
for module in (powercontext_memory, powercontext_client, memory_service_pb2):
    print(module.__file__)
print(*sys.path, sep="\\n")
"""


def _pip_env() -> dict[str, str]:
    """This environment minus PYTHONPATH and POWERCONTEXT_*; pip keeps its config and proxies."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    return {k: v for k, v in env.items() if not k.startswith("POWERCONTEXT_")}


def _run(
    args: list[str], cwd: Path, env: Mapping[str, str], timeout: float = 60.0
) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    output = f"{result.stdout}\n{result.stderr}"
    assert result.returncode == 0, f"{args} exited {result.returncode}:\n{output}"
    return result


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`pip wheel --no-deps` of the checkout, the same command as the Dockerfile's build stage."""
    out = tmp_path_factory.mktemp("dist")
    pip = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)]
    _run(pip, out, _pip_env(), PIP_TIMEOUT)
    (built,) = out.glob("powercontext_memory-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv of the base interpreter with the wheel installed: base dependencies only."""
    home = tmp_path_factory.mktemp("venv")
    base_python = getattr(sys, "_base_executable", sys.executable)
    _run([base_python, "-m", "venv", str(home)], home, _pip_env())
    pip = str(home / "bin" / "pip")
    _run([pip, "install", str(wheel), "-c", str(LOCK)], home, _pip_env(), PIP_TIMEOUT)
    return home


def _serving(venv: Path, database: Path) -> contextlib.AbstractContextManager[Served]:
    """`serve` from the venv on a free port; SIGTERM must end it with exit code 0."""
    return serve_process(database, server_command=str(venv / "bin" / "powercontext-memory"))


def test_wheel_ships_the_data_files(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "powercontext_memory/embedding/data/all-MiniLM-L6-v2.tokenizer.json" in names
    assert "powercontext_memory/backends/sqlite_schema.sql" in names
    assert "powercontext_memory/backends/oceanbase_schema.sql" in names
    assert "powercontext/memory/v1/memory_service_pb2.py" in names


def test_installed_modules_come_from_the_venv_not_the_checkout(venv: Path, tmp_path: Path) -> None:
    out = _run([str(venv / "bin" / "python"), "-c", WHERE], tmp_path, server_env()).stdout
    files, path = out.splitlines()[:3], out.splitlines()[3:]
    site = (venv / "lib").resolve()
    assert all(Path(f).resolve().is_relative_to(site) for f in files), files
    assert not any(entry.startswith(str(ROOT)) for entry in path), path


def test_installed_server_starts_without_the_extras(venv: Path, tmp_path: Path) -> None:
    # No onnxruntime, asyncmy or opentelemetry: the base install must still serve.
    python = str(venv / "bin" / "python")
    probe = "import importlib.util as u; print([m for m in ('onnxruntime', 'asyncmy', "
    probe += "'opentelemetry') if u.find_spec(m)])"
    assert _run([python, "-c", probe], tmp_path, server_env()).stdout.strip() == "[]"
    with _serving(venv, tmp_path / "m.sqlite3") as served:
        reply = _run([python, "-c", CLIENT, f"127.0.0.1:{served.port}"], tmp_path, server_env())
    assert reply.stdout.split() == ["SERVING", "1", "True"]


def test_installed_client_cli_runs_and_checks_health(venv: Path, tmp_path: Path) -> None:
    # The container's HEALTHCHECK is exactly this command.
    client = str(venv / "bin" / "powercontext")
    assert "health" in _run([client, "--help"], tmp_path, server_env()).stdout
    with _serving(venv, tmp_path / "m.sqlite3") as served:
        env = server_env({"POWERCONTEXT_ENDPOINT": f"127.0.0.1:{served.port}"})
        _run([client, "health", "--timeout", "3"], tmp_path, env)
    down = subprocess.run(
        [client, "health", "--timeout", "3"], cwd=tmp_path, env=env, capture_output=True, timeout=30
    )
    assert down.returncode != 0, "health must fail once the server is gone"
