"""Run `powercontext-memory serve` as a real process for a test, and always stop it.

The commands are the console scripts the project installs next to this interpreter, run from
outside the checkout with no PYTHONPATH: exactly what a user of the installed package runs.
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = Path(sys.executable).parent
SERVER_COMMAND = str(SCRIPTS / "powercontext-memory")
CLIENT_COMMAND = str(SCRIPTS / "powercontext")
STARTUP_TIMEOUT = 60.0
EXIT_TIMEOUT = 20.0
SERVING_LINE = re.compile(r"^serving powercontext\.memory\.v1\.MemoryService on [^ ]+:(\d+) ")


@dataclass(frozen=True)
class Served:
    port: int
    line: str  # the startup line, e.g. to check which vectors it serves


def server_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This environment minus POWERCONTEXT_*, PYTHONPATH and proxies, plus `extra`."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("POWERCONTEXT_") and k != "PYTHONPATH" and "proxy" not in k.lower()
    }
    return {**env, **(extra or {})}


@contextlib.contextmanager
def serve_process(
    database: str | Path,
    *args: str,
    env: Mapping[str, str] | None = None,
    server_command: str = SERVER_COMMAND,
) -> Iterator[Served]:
    """`server_command serve` on a free port (the last --listen in `args` wins)."""
    command = [server_command, "serve", "--listen", "127.0.0.1:0"]
    proc = subprocess.Popen(
        [*command, "--database", str(database), *args],
        cwd=Path(database).parent if not str(database).startswith("oceanbase:") else "/",
        env=server_env(env),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], STARTUP_TIMEOUT)
        assert ready, "server printed nothing"
        line = proc.stdout.readline()
        match = SERVING_LINE.match(line)
        assert match, f"unexpected startup line {line!r} (exit code {proc.poll()})"
        yield Served(int(match[1]), line)
    finally:  # stop it whatever happened, and never leave it behind
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=EXIT_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            code = None
        assert proc.stdout is not None
        proc.stdout.close()
    assert code == 0, f"server exited with {code}"
