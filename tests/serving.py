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
from typing import IO

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
    """This environment minus POWERCONTEXT_*, PYTHONPATH and proxies, plus `extra`. A client
    never starts the user's local server here (POWERCONTEXT_LOCAL_SERVER=off) unless `extra`
    asks for it: the tests of that mode do, in a state directory of their own."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("POWERCONTEXT_") and k != "PYTHONPATH" and "proxy" not in k.lower()
    }
    return {**env, "POWERCONTEXT_LOCAL_SERVER": "off", **(extra or {})}


class ServerProcess:
    """`server_command serve` as a child process, once it printed its startup line.

    `serve_process` stops it gracefully; the robustness suites also `kill()` it (SIGKILL, no
    shutdown at all) and start another on the same database.
    """

    def __init__(
        self,
        database: str | Path,
        *args: str,
        env: Mapping[str, str] | None = None,
        server_command: str = SERVER_COMMAND,
        stderr: IO[bytes] | int | None = None,
    ) -> None:
        # Full text only unless a test asks for a model (a later --embedding in `args` wins):
        # serve's default (auto) would load the multilingual model into every test server.
        command = [server_command, "serve", "--listen", "127.0.0.1:0", "--embedding", "none"]
        self.proc = subprocess.Popen(
            [*command, "--database", str(database), *args],
            cwd=Path(database).parent if not str(database).startswith("oceanbase:") else "/",
            env=server_env(env),
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
        try:
            assert self.proc.stdout is not None
            ready, _, _ = select.select([self.proc.stdout], [], [], STARTUP_TIMEOUT)
            assert ready, "server printed nothing"
            line = self.proc.stdout.readline()
            match = SERVING_LINE.match(line)
            assert match, f"unexpected startup line {line!r} (exit code {self.proc.poll()})"
        except BaseException:
            self.kill()
            raise
        self.served = Served(int(match[1]), line)

    @property
    def port(self) -> int:
        return self.served.port

    def kill(self) -> None:
        """SIGKILL: no shutdown, no flush, exactly a crash."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self._close()

    def stop(self) -> int | None:
        """SIGTERM and wait; its exit code (None when it had to be killed)."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            code: int | None = self.proc.wait(timeout=EXIT_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            code = None
        self._close()
        return code

    def _close(self) -> None:
        if self.proc.stdout is not None:
            self.proc.stdout.close()


@contextlib.contextmanager
def serve_process(
    database: str | Path,
    *args: str,
    env: Mapping[str, str] | None = None,
    server_command: str = SERVER_COMMAND,
) -> Iterator[Served]:
    """`server_command serve` on a free port (the last --listen in `args` wins)."""
    server = ServerProcess(database, *args, env=env, server_command=server_command)
    try:
        yield server.served
    finally:  # stop it whatever happened, and never leave it behind
        code = server.stop()
    assert code == 0, f"server exited with {code}"


def run_admin(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    """`powercontext-memory ARGS` to completion from the repository root (text output, unless
    `stdin` bytes are given: then bytes both ways)."""
    return subprocess.run(
        [SERVER_COMMAND, *args],
        capture_output=True,
        text=stdin is None,
        input=stdin,
        env=server_env(),
        cwd=ROOT,
        timeout=120,
    )
