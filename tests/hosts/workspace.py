"""A throwaway user and repository: what a developer has right before starting an agent.

`prepare` makes the whole workspace: the demo repository (demo_repo.py), bootstrapped
(`powercontext bootstrap`) and set up for the host (`powercontext setup claude|codex|gemini
--endpoint 127.0.0.1:PORT`), both run in the repository as typed.

`User` is an isolated HOME (with the XDG directories, CODEX_HOME and the runtime manifest at
the places they default to under it, so a process that gets only HOME — Codex gives MCP
servers a whitelisted environment — finds the same files) and the environment every process
of the scenario runs with: this checkout's `.venv/bin` first on PATH, as after `pip install`,
and nothing from the developer running the suite (no POWERCONTEXT_*, proxies or API keys).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..serving import SCRIPTS
from .demo_repo import make_repo
from .memory_view import Entry, active_entries, head_revision

PROBE = Path(__file__).resolve().parent / "probe"
# Passed through from the machine: what a shell needs, nothing that names a server or a key.
KEPT = ("LANG", "LC_ALL", "TERM", "TZ", "USER", "LOGNAME", "SHELL", "TMPDIR")


@dataclass
class User:
    home: Path
    env: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        state = self.home / ".local" / "state"
        for path in (self.home / ".config", self.home / ".cache", state, self.codex_home):
            path.mkdir(parents=True, exist_ok=True)
        self.env = {
            **{k: os.environ[k] for k in KEPT if k in os.environ},
            "HOME": str(self.home),
            "PATH": os.pathsep.join([str(SCRIPTS), os.environ.get("PATH", "/usr/bin:/bin")]),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "XDG_DATA_HOME": str(self.home / ".local" / "share"),
            "XDG_STATE_HOME": str(state),
            "CODEX_HOME": str(self.codex_home),
            "POWERCONTEXT_RUNTIME_HOME": str(state / "powercontext"),
            # The hook probe (probe/sitecustomize.py): the hosts hand it down to the hooks.
            "PYTHONPATH": str(PROBE),
            "POWERCONTEXT_HOOK_PROBE": str(self.probe_log),
        }

    @property
    def codex_home(self) -> Path:
        return self.home / ".codex"

    @property
    def probe_log(self) -> Path:
        return self.home / "hook-runs.jsonl"

    def powercontext(self, *args: str, cwd: Path) -> str:
        """`powercontext ARGS` in `cwd`, as the user types it; its stdout."""
        done = subprocess.run(
            ["powercontext", *args],
            cwd=cwd,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done.stdout

    def manifest(self) -> dict[str, Any]:
        path = Path(self.env["POWERCONTEXT_RUNTIME_HOME"]) / "runtime.json"
        return json.loads(path.read_text()) if path.exists() else {"repos": {}}

    def stop_stray_local_server(self) -> str:
        """The client's zero-config local server (local_server.py) must never start here:
        setup named our server. If one did, stop it (this scenario started it) and say so."""
        starting = Path(self.env["POWERCONTEXT_RUNTIME_HOME"]) / "local-server" / "starting"
        if not starting.exists():
            return ""
        pid = int(json.loads(starting.read_text())["pid"])
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        return f"a local server (pid {pid}) was started under {self.home}"

    def memory_id(self, repo: Path) -> str:
        recorded = self.manifest()["repos"].get(str(repo.resolve()), {})
        return str(recorded.get("memory_id", ""))


@dataclass
class Workspace:
    user: User
    repo: Path
    endpoint: str
    memory_id: str
    _logs: Iterator[int] = field(default_factory=itertools.count)

    def probe_log(self) -> Path:
        """A new file for the hook runs of one session."""
        return self.user.home / f"hook-runs-{next(self._logs)}.jsonl"

    def head(self) -> int:
        return head_revision(self.endpoint, self.memory_id)

    def installed_hooks(self, settings: str) -> set[str]:
        """The events whose hooks setup wrote into the repository's `settings` file."""
        return set(json.loads((self.repo / settings).read_text())["hooks"])

    def entries(self) -> list[Entry]:
        """The memory's active entries, as they are now."""
        return active_entries(self.endpoint, self.memory_id)


@contextlib.contextmanager
def prepared(directory: Path, endpoint: str, host: str) -> Iterator[Workspace]:
    """`prepare`, and afterwards the check that no process of the scenario fell back to a
    server of its own."""
    workspace = prepare(directory, endpoint, host)
    try:
        yield workspace
    finally:
        stray = workspace.user.stop_stray_local_server()
    assert not stray, stray


def prepare(directory: Path, endpoint: str, host: str) -> Workspace:
    """bootstrap, then setup HOST, as steps 1 and 2 of docs/agents.md."""
    user = User(directory / "home")
    repo = make_repo(directory / "repo")
    user.powercontext("--endpoint", endpoint, "bootstrap", cwd=repo)
    memory_id = user.memory_id(repo)
    assert memory_id, user.manifest()
    user.powercontext("setup", host, "--endpoint", endpoint, cwd=repo)
    return Workspace(user, repo, endpoint, memory_id)
