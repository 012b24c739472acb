"""`powercontext doctor`: each class of finding provoked for real (a stopped server, a server
that wants a token, a memory recorded for another server, hooks missing or incomplete, an MCP
entry missing), with its exit code and fix, and a clean bill once everything is in place."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from powercontext_client.runtime.findings import AUTH, HOOKS, MCP, MEMORY, SERVER, TRUST

from ..serving import CLIENT_COMMAND, Served, serve_process, server_env

BIN = str(Path(CLIENT_COMMAND).parent)


@dataclass
class Desk:
    repo: Path
    home: Path
    env: dict[str, str]

    def run(
        self, *args: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [CLIENT_COMMAND, *args],
            cwd=self.repo,
            env={**self.env, **(env or {})},
            capture_output=True,
            text=True,
            timeout=120,
        )

    def doctor(self, *hosts: str, env: dict[str, str] | None = None) -> tuple[int, str]:
        done = self.run("doctor", *hosts, env=env)
        return done.returncode, done.stdout + done.stderr


@pytest.fixture
def desk(tmp_path: Path) -> Desk:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "AGENTS.md").write_text("# Rules\n\n- Never edit generated/ by hand.\n")
    env = server_env(
        {
            "HOME": str(tmp_path),
            "POWERCONTEXT_RUNTIME_HOME": str(tmp_path / "state"),
            "CODEX_HOME": str(tmp_path / ".codex"),
            # The hosts' own CLIs are not here: only ours (the version check says so).
            "PATH": f"{BIN}:/usr/bin:/bin",
        }
    )
    return Desk(repo, tmp_path, env)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    with serve_process(tmp_path / "memory.sqlite3") as running:
        yield running


def test_a_stopped_server_then_everything_in_place(desk: Desk, served: Served) -> None:
    assert desk.run("setup", "claude", "--endpoint", "127.0.0.1:1").returncode == 0
    code, out = desk.doctor("claude")
    assert code == SERVER, out
    assert "FAIL server: nothing answers at 127.0.0.1:1 (recorded for this repository)" in out
    assert "fix: start it" in out
    # Pointed at the running server, with a bootstrapped memory: nothing fails.
    endpoint = f"127.0.0.1:{served.port}"
    assert desk.run("setup", "claude", "--endpoint", endpoint).returncode == 0
    assert desk.run("bootstrap").returncode == 0
    code, out = desk.doctor("claude")
    assert code == 0, out
    assert f"ok   server: {endpoint} (recorded for this repository) answers" in out
    assert "ok   memory: mem_art_" in out
    assert "ok   claude hooks:" in out and "ok   claude mcp:" in out and "answers with" in out
    assert "ok   claude version: claude is not on PATH here" in out


def test_a_memory_recorded_for_another_server(desk: Desk, served: Served, tmp_path: Path) -> None:
    endpoint = f"127.0.0.1:{served.port}"
    assert desk.run("setup", "claude", "--endpoint", endpoint).returncode == 0
    state = tmp_path / "state" / "runtime.json"
    state.parent.mkdir(parents=True, exist_ok=True)
    recorded = {"memory_id": "mem_art_" + "e" * 32, "endpoint": endpoint}
    state.write_text(json.dumps({"format": 1, "repos": {str(desk.repo): recorded}}))
    code, out = desk.doctor("claude")
    assert code == MEMORY, out
    assert f"FAIL memory: mem_art_{'e' * 32}, recorded for {desk.repo}, is not on {endpoint}" in out


def test_a_server_that_wants_a_token(desk: Desk, tmp_path: Path) -> None:
    database = tmp_path / "auth.sqlite3"
    token = subprocess.run(
        [str(Path(BIN) / "powercontext-memory"), "tokens", "create", "--database", str(database),
         "--name", "dev", "--scope", "write"],
        capture_output=True, text=True, env=desk.env, timeout=60, check=True,
    ).stdout.strip()  # fmt: skip
    with serve_process(database, "--auth", "tokens") as running:
        endpoint = f"127.0.0.1:{running.port}"
        assert desk.run("setup", "claude", "--endpoint", endpoint).returncode == 0
        code, out = desk.doctor("claude")
        assert code == AUTH, out
        assert "FAIL auth:" in out and "POWERCONTEXT_TOKEN" in out
        code, out = desk.doctor("claude", env={"POWERCONTEXT_TOKEN": token})
        assert code == 0, out


def test_hooks_missing_incomplete_or_not_on_path_and_a_missing_mcp_entry(
    desk: Desk, served: Served
) -> None:
    endpoint = f"127.0.0.1:{served.port}"
    code, out = desk.doctor("claude", env={"POWERCONTEXT_ENDPOINT": endpoint})
    assert code == HOOKS, out
    assert "FAIL claude hooks: none of our hooks is installed" in out
    assert "fix: run `powercontext setup claude`" in out
    assert desk.run("setup", "claude", "--endpoint", endpoint).returncode == 0
    settings = desk.repo / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    del data["hooks"]["Stop"]
    settings.write_text(json.dumps(data))
    code, out = desk.doctor("claude")
    assert code == HOOKS and "(missing Stop)" in out, out
    assert desk.run("setup", "claude").returncode == 0  # setup mends it
    assert desk.doctor("claude")[0] == 0
    code, out = desk.doctor("claude", env={"PATH": "/usr/bin:/bin"})
    assert code == HOOKS and "which is not on this PATH" in out, out
    (desk.repo / ".mcp.json").write_text(json.dumps({"mcpServers": {}}))
    code, out = desk.doctor("claude")
    assert code == MCP and "has no powercontext server" in out, out


def test_codex_without_setup_and_unknown_hosts(desk: Desk, served: Served) -> None:
    endpoint = f"127.0.0.1:{served.port}"
    code, out = desk.doctor("codex", env={"POWERCONTEXT_ENDPOINT": endpoint})
    assert code == HOOKS, out
    assert "FAIL codex hooks: none of our hooks is installed" in out
    assert desk.run("doctor", "vim").returncode == 2
    assert os.environ.get("POWERCONTEXT_LOCAL_SERVER") == "off"  # nothing started behind us


def test_an_untested_host_version_is_a_warning_not_a_failure(desk: Desk, served: Served) -> None:
    # A stand-in `claude` that reports a version the suite never ran (the real CLIs are
    # checked in tests/hosts).
    bin_dir = desk.home / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "claude"
    fake.write_text("#!/bin/sh\necho '9.9.9 (Claude Code)'\n")
    fake.chmod(0o755)
    assert desk.run("setup", "claude", "--endpoint", f"127.0.0.1:{served.port}").returncode == 0
    code, out = desk.doctor("claude", env={"PATH": f"{bin_dir}:{desk.env['PATH']}"})
    assert code == 0, out
    assert "warn claude version: claude 9.9.9 is not among the tested versions" in out


def test_with_no_host_named_it_checks_the_hosts_set_up_here(desk: Desk, served: Served) -> None:
    endpoint = f"127.0.0.1:{served.port}"
    code, out = desk.doctor(env={"POWERCONTEXT_ENDPOINT": endpoint})
    assert code == HOOKS, out
    assert f"FAIL hooks: no host is set up for {desk.repo}" in out
    assert "fix: run `powercontext setup claude` (or codex, gemini)" in out
    assert desk.run("setup", "gemini", "--endpoint", endpoint).returncode == 0
    code, out = desk.doctor()
    checked = {
        line.split()[1]
        for line in out.splitlines()
        if line.split()[:1] in (["ok"], ["warn"], ["FAIL"])
    }
    assert checked == {"server:", "memory:", "gemini"}, out
    # Gemini has not trusted the folder yet (tests/hosts trusts it through Gemini's own dialog).
    assert code == TRUST and "FAIL gemini trust: Gemini does not trust" in out, out
