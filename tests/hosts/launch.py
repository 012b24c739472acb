"""What starting any pinned host has in common: asking its version, the hook probe pointed at a
log of the session's own, one headless turn run to its end, the record of what a host process
did; and `powercontext doctor`, which starts the host the user's PATH finds."""

from __future__ import annotations

import json
import os
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from .hook_runs import HookRun, read_runs
from .pins import NODE_BIN, Pin

TURN_TIMEOUT = 90.0
VERSION_TIMEOUT = 60.0
DOCTOR_TIMEOUT = 120.0


@dataclass
class HostRun:
    """One host process: its JSON output, the hooks it ran, how long it took, how it ended."""

    events: list[dict[str, Any]] = field(default_factory=list)  # the JSON lines, in order
    hook_runs: list[HookRun] = field(default_factory=list)
    seconds: float = 0.0
    returncode: int | None = None
    stderr: str = ""


Run = TypeVar("Run", bound=HostRun)


def hook_runs_of(runs: list[Run]) -> list[HookRun]:
    """The hooks a session of several processes ran, process after process."""
    return [hook for run in runs for hook in run.hook_runs]


def ask_version(pin: Pin, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`<host> --version`; each host words its answer its own way."""
    return subprocess.run(
        [*pin.command(), "--version"],
        env=env,
        capture_output=True,
        text=True,
        timeout=VERSION_TIMEOUT,
    )


def probed(env: dict[str, str], probe_log: Path) -> dict[str, str]:
    """`env` with the hook probe writing to `probe_log`: a log per session, so a test reads
    only the hooks of the session it ran."""
    return {**env, "POWERCONTEXT_HOOK_PROBE": str(probe_log)}


def headless_turn(
    run: Run, command: list[str], repo: Path, env: dict[str, str], probe_log: Path
) -> Run:
    """`command` in `repo` to its end, filling `run`: a one-turn process that prints JSON lines
    (Codex's `exec --json`, Gemini CLI's `-p … --output-format stream-json`)."""
    started = time.monotonic()
    try:
        done = subprocess.run(
            command,
            cwd=repo,
            env=probed(env, probe_log),
            stdin=subprocess.DEVNULL,  # else the host waits for more prompt on stdin
            capture_output=True,
            text=True,
            timeout=TURN_TIMEOUT,
        )
    finally:
        run.seconds = time.monotonic() - started
        run.hook_runs = read_runs(probe_log)
    run.returncode, run.stderr = done.returncode, done.stderr
    run.events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return run


def doctor(pin: Pin, env: dict[str, str], repo: Path) -> subprocess.CompletedProcess[str]:
    """`powercontext doctor <host>` in `repo`, with the pinned host's command first on PATH:
    doctor asks the host itself, the one a user's shell would start."""
    on_path = {**env, "PATH": f"{NODE_BIN}{os.pathsep}{env['PATH']}"}
    return subprocess.run(
        ["powercontext", "doctor", pin.setup_name],
        cwd=repo,
        env=on_path,
        capture_output=True,
        text=True,
        timeout=DOCTOR_TIMEOUT,
    )
