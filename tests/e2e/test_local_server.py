"""Zero-config local mode, for real: with no endpoint configured and nothing at the default
address, the CLI, the hooks and the MCP bridge start the user's own server (one, however many
clients race), reuse it, and it stops after its idle time. An explicit endpoint never starts
one. Each test has a state directory of its own and stops the server it started.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from powercontext_client import local_server
from powercontext_client.config import DEFAULT_ENDPOINT

from ..serving import CLIENT_COMMAND, server_env


@dataclass
class Local:
    state: Path
    env: dict[str, str]

    @property
    def home(self) -> Path:
        return self.state / "local-server"

    def run(
        self, *args: str, cwd: Path | None = None, stdin: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [CLIENT_COMMAND, *args],
            cwd=cwd or self.state,
            env=self.env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
        )

    def address(self) -> str:
        return (self.home / "address").read_text().strip()

    def servers_started(self) -> int:
        log = self.home / "server.log"
        lines = log.read_text().splitlines() if log.exists() else []
        return sum(line.startswith("serving powercontext") for line in lines)  # serve's own line

    def pid(self) -> int:
        return int(json.loads((self.home / "starting").read_text())["pid"])


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped by its session) counts as gone.
    status = Path(f"/proc/{pid}/status")
    return not (status.exists() and "\nState:\tZ" in status.read_text())


@pytest.fixture
def local(tmp_path: Path) -> Iterator[Local]:
    if local_server.answering(DEFAULT_ENDPOINT):
        raise AssertionError(f"a server answers at {DEFAULT_ENDPOINT}: local mode cannot be shown")
    state = tmp_path / "state"
    state.mkdir()
    env = server_env(
        {
            "POWERCONTEXT_RUNTIME_HOME": str(state),
            "POWERCONTEXT_LOCAL_SERVER": "on",
            "POWERCONTEXT_LOCAL_IDLE_EXIT": "30",
            "HOME": str(tmp_path),
        }
    )
    found = Local(state, env)
    try:
        yield found
    finally:
        starting = found.home / "starting"
        if starting.exists():
            pid = found.pid()
            if _alive(pid):
                os.kill(pid, signal.SIGTERM)
                deadline = time.monotonic() + 10
                while _alive(pid) and time.monotonic() < deadline:
                    time.sleep(0.05)


def test_a_command_starts_the_users_server_and_the_next_reuses_it(local: Local) -> None:
    created = local.run("-o", "json", "create", "Releases are cut on Fridays.")
    assert created.returncode == 0, created.stderr
    memory = json.loads(created.stdout)["memory"]["artifact_id"]
    address = local.address()
    assert address.startswith("127.0.0.1:") and address != DEFAULT_ENDPOINT
    found = local.run("search", "releases", "-m", memory)
    assert found.returncode == 0 and "Fridays" in found.stdout, found.stderr
    assert local.servers_started() == 1 and local.address() == address
    assert (local.state / "memory.sqlite3").exists()  # the user's default database
    assert local.run("health").stdout.strip() == "SERVING"  # health finds it, never starts one


def test_clients_racing_on_a_fresh_machine_start_one_server(local: Local) -> None:
    with ThreadPoolExecutor(6) as pool:
        done = list(pool.map(lambda _: local.run("capabilities"), range(6)))
    assert [d.returncode for d in done] == [0] * 6, [d.stderr for d in done]
    assert local.servers_started() == 1


def test_the_server_stops_after_its_idle_time(local: Local) -> None:
    local.env["POWERCONTEXT_LOCAL_IDLE_EXIT"] = "1"
    assert local.run("capabilities").returncode == 0
    pid = local.pid()
    deadline = time.monotonic() + 15
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(pid)
    assert not (local.home / "address").exists()  # it removed its own address
    again = local.run("capabilities")  # and the next command starts another
    assert again.returncode == 0, again.stderr
    assert local.servers_started() == 2


def test_an_explicit_endpoint_never_starts_one(local: Local) -> None:
    local.env["POWERCONTEXT_CONNECT_TIMEOUT"] = "0.2"  # nothing listens on port 1: fail soon
    refused = local.run("--endpoint", "127.0.0.1:1", "capabilities", "--timeout", "3")
    assert refused.returncode == 7  # UNAVAILABLE
    local.env["POWERCONTEXT_ENDPOINT"] = "127.0.0.1:1"
    assert local.run("capabilities", "--timeout", "3").returncode == 7
    local.env["POWERCONTEXT_ENDPOINT"] = ""
    local.env["POWERCONTEXT_LOCAL_SERVER"] = "off"
    assert local.run("capabilities", "--timeout", "3").returncode == 7
    assert not local.home.exists() or local.servers_started() == 0


def test_hooks_start_it_without_blocking_and_record_the_memory_as_local(
    local: Local, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "AGENTS.md").write_text("# Rules\n\n- Never edit generated/ by hand.\n")
    payload = json.dumps(
        {"hook_event_name": "UserPromptSubmit", "session_id": "s1", "cwd": str(repo),
         "prompt": "Remember that we use ruff for linting."}
    )  # fmt: skip
    started = time.monotonic()
    hook = local.run("hook", "claude", cwd=repo, stdin=payload)
    took = time.monotonic() - started
    assert hook.returncode == 0 and took < 4.0, (took, hook.stderr)
    deadline = time.monotonic() + 30  # the server may still be starting: the hook failed open
    while not (local.home / "address").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    again = local.run("hook", "claude", cwd=repo, stdin=payload)
    assert again.returncode == 0, again.stderr
    manifest = json.loads((local.state / "runtime.json").read_text())
    assert manifest["repos"][str(repo)]["endpoint"] == "local"  # not a port: it changes
    boot = local.run("bootstrap", cwd=repo)
    assert boot.returncode == 0, boot.stderr
    memory = manifest["repos"][str(repo)]["memory_id"]
    listed = local.run("list", memory, "--text")
    assert "ruff" in listed.stdout and "generated/" in listed.stdout, listed.stderr
    assert local.servers_started() == 1
