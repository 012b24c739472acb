"""The wheels as a user (or the Dockerfile) installs them: build the server's and the client's,
install them into a clean virtual environment with the lock as constraints and no extras, then
serve and call from that venv only. The client's wheel also goes alone into a venv of its own,
which must hold none of the server's dependencies and still call the server.

Nothing here runs from the checkout: the venvs come from the base interpreter (not this .venv
with its editable installs), PYTHONPATH and POWERCONTEXT_* are dropped and every command runs in
a temporary directory. Building and installing reuse the pip cache.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import zipfile
from collections.abc import Mapping
from pathlib import Path

import pytest

from ..serving import Served, serve_process, server_env

ROOT = Path(__file__).resolve().parents[2]
CLIENT_PROJECT = ROOT / "clients" / "python"
LOCK = ROOT / "requirements.txt"  # constraints: the same versions `make` installs
# Imported by the server only: none may come with the client's wheel.
SERVER_ONLY_MODULES = (
    "powercontext_memory",
    "numpy",
    "sqlite_vec",
    "sqlean",
    "prometheus_client",
    "threadpoolctl",
    "grpc_reflection",
)
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
# The Python client of the client-only venv: remember, then find it again.
CLIENT_ONLY = """
import sys
from powercontext_client import Client, new_entry

with Client(sys.argv[1]) as client:
    memory = client.remember(None, [new_entry("fact", "The client installs on its own.")]).memory
    hits = client.search("installs on its own", [memory]).hits
print(memory.revision, [hit.text for hit in hits])
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


def _new_venv(home: Path) -> Path:
    """A fresh venv of the base interpreter at `home`; its pip."""
    base_python = getattr(sys, "_base_executable", sys.executable)
    home.mkdir(parents=True, exist_ok=True)
    _run([base_python, "-m", "venv", str(home)], home, _pip_env())
    return home / "bin" / "pip"


def _names(wheel: Path) -> set[str]:
    """The wheel's files, without its .dist-info."""
    return {n for n in zipfile.ZipFile(wheel).namelist() if ".dist-info/" not in n}


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """`pip wheel --no-deps` of the server and the client: the Dockerfile's build stage."""
    out = tmp_path_factory.mktemp("dist")
    pip = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out)]
    _run([*pip, str(ROOT), str(CLIENT_PROJECT)], out, _pip_env(), PIP_TIMEOUT)
    (server,) = out.glob("powercontext_memory-*.whl")
    (client,) = out.glob("powercontext_client-*.whl")
    return server, client


@pytest.fixture(scope="module")
def wheel(wheels: tuple[Path, Path]) -> Path:
    return wheels[0]


@pytest.fixture(scope="module")
def client_wheel(wheels: tuple[Path, Path]) -> Path:
    return wheels[1]


@pytest.fixture(scope="module")
def venv(wheels: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Both wheels in a fresh venv (the server imports the client's generated code): base
    dependencies only."""
    home = tmp_path_factory.mktemp("venv")
    pip = _new_venv(home)
    install = [str(pip), "install", *map(str, wheels), "-c", str(LOCK)]
    _run(install, home, _pip_env(), PIP_TIMEOUT)
    return home


@pytest.fixture(scope="module")
def client_venv(client_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The client's wheel alone in a fresh venv: what a user who only calls a server installs."""
    home = tmp_path_factory.mktemp("client-venv")
    pip = _new_venv(home)
    install = [str(pip), "install", str(client_wheel), "-c", str(LOCK)]
    _run(install, home, _pip_env(), PIP_TIMEOUT)
    return home


def _serving(venv: Path, database: Path) -> contextlib.AbstractContextManager[Served]:
    """`serve` from the venv on a free port; SIGTERM must end it with exit code 0."""
    return serve_process(database, server_command=str(venv / "bin" / "powercontext-memory"))


def test_wheel_ships_the_data_files(wheel: Path, client_wheel: Path) -> None:
    names = _names(wheel)
    assert "powercontext_memory/embedding/data/all-MiniLM-L6-v2.tokenizer.json" in names
    assert "powercontext_memory/backends/sqlite/schema.sql" in names
    assert "powercontext_memory/backends/oceanbase/schema.sql" in names
    assert "powercontext/memory/v1/memory_service_pb2.py" in _names(client_wheel)


def test_server_and_client_wheels_ship_each_file_once(wheel: Path, client_wheel: Path) -> None:
    server, client = _names(wheel), _names(client_wheel)
    assert {n.split("/")[0] for n in server} == {"powercontext_memory"}
    assert {n.split("/")[0] for n in client} == {"powercontext", "powercontext_client"}
    generated = ROOT / "generated"
    on_disk = {
        p.relative_to(generated).as_posix()
        for p in generated.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert {n for n in client if n.startswith("powercontext/")} == on_disk
    assert not any("__pycache__" in n for n in server | client)


def test_client_sdist_builds_the_same_wheel(client_wheel: Path, tmp_path: Path) -> None:
    # From the sdist, generated/ is no longer two folders up: the sdist must carry it.
    pip = _new_venv(tmp_path / "hatch")
    _run([str(pip), "install", "-q", "hatchling"], tmp_path, _pip_env(), PIP_TIMEOUT)
    hatchling, sdists, out = tmp_path / "hatch/bin/hatchling", tmp_path / "sdist", tmp_path / "out"
    build = [str(hatchling), "build", "-t", "sdist", "-d", str(sdists)]
    _run(build, CLIENT_PROJECT, _pip_env(), PIP_TIMEOUT)
    (sdist,) = sdists.glob("powercontext_client-*.tar.gz")
    # The same hatchling builds the wheel: a second isolated build env would only cost time.
    from_sdist = [str(pip), "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out)]
    _run([*from_sdist, str(sdist)], tmp_path, _pip_env(), PIP_TIMEOUT)
    (rebuilt,) = out.glob("powercontext_client-*.whl")
    assert _names(rebuilt) == _names(client_wheel)


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


def test_client_wheel_installs_without_the_server_or_its_dependencies(
    client_venv: Path, tmp_path: Path
) -> None:
    python = str(client_venv / "bin" / "python")
    probe = "import importlib.util as u, sys; print([m for m in sys.argv[1:] if u.find_spec(m)])"
    found = _run([python, "-c", probe, *SERVER_ONLY_MODULES], tmp_path, server_env()).stdout
    assert found.strip() == "[]"
    # The probe does see what the client needs.
    assert _run([python, "-c", probe, "grpc"], tmp_path, server_env()).stdout.strip() == "['grpc']"
    assert (client_venv / "bin" / "powercontext").exists()
    assert not (client_venv / "bin" / "powercontext-memory").exists()


def test_client_only_install_remembers_and_searches_on_a_server(
    venv: Path, client_venv: Path, tmp_path: Path
) -> None:
    cli, python = str(client_venv / "bin" / "powercontext"), str(client_venv / "bin" / "python")
    with _serving(venv, tmp_path / "m.sqlite3") as served:
        endpoint = f"127.0.0.1:{served.port}"
        base = [cli, "--endpoint", endpoint, "-o", "json"]
        created = _run(
            [*base, "create", "Builds use uv.", "--kind", "fact"], tmp_path, server_env()
        )
        memory = json.loads(created.stdout)["memory"]["artifact_id"]
        revised = [*base, "remember", memory, "Reviews need make check.", "--kind", "preference"]
        assert json.loads(_run(revised, tmp_path, server_env()).stdout)["changed"] is True
        search = [*base, "search", "make check", "-m", memory]
        hits = json.loads(_run(search, tmp_path, server_env()).stdout)["hits"]
        assert [hit["text"] for hit in hits] == ["Reviews need make check."]
        client = _run([python, "-c", CLIENT_ONLY, endpoint], tmp_path, server_env())
        assert client.stdout.strip() == "1 ['The client installs on its own.']"
    # The server is gone: the same search fails with an exit code and a message, no traceback.
    down = subprocess.run(
        search, cwd=tmp_path, env=server_env(), capture_output=True, text=True, timeout=60
    )
    assert down.returncode != 0, down.stdout
    assert down.stderr.strip() and "Traceback" not in down.stderr, down.stderr
