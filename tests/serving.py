"""Run `powercontext-memory serve` as a real process for a test, and always stop it.

The commands are the console scripts the project installs next to this interpreter, run from
outside the checkout with no PYTHONPATH: exactly what a user of the installed package runs.
"""

from __future__ import annotations

import contextlib
import os
import queue
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from powercontext_memory.serving.config import ServeConfig
from powercontext_memory.serving.startup import serving_port

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = Path(sys.executable).parent
SERVER_COMMAND = str(SCRIPTS / "powercontext-memory")
CLIENT_COMMAND = str(SCRIPTS / "powercontext")
STARTUP_TIMEOUT = 60.0
EXIT_TIMEOUT = 20.0
LINE_TIMEOUT = 60.0


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
        config = ServeConfig(database=str(database), listen="127.0.0.1:0", embedding="none")
        self.proc = subprocess.Popen(
            [server_command, *config.argv(), *args],
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
            port = serving_port(line)
            assert port, f"unexpected startup line {line!r} (exit code {self.proc.poll()})"
        except BaseException:
            self.kill()
            raise
        self.served = Served(port, line)

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


class Lines:
    """The lines a child process writes on one pipe, read by a thread as they come: a test
    waits for the one it expects with a deadline, and fails at once when the pipe closes."""

    def __init__(self, pipe: IO[str]) -> None:
        self.seen: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, args=(pipe,), daemon=True).start()

    def _read(self, pipe: IO[str]) -> None:
        with pipe:  # closed here once the child closed its end (or exited)
            for line in pipe:
                self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def wait_for(self, text: str, timeout: float = LINE_TIMEOUT) -> str:
        """The next line containing `text`; the lines before it are skipped, and every line
        read is kept in `seen`."""
        until = time.monotonic() + timeout
        while (line := self._next(until, f"a line with {text!r}")) is not None:
            if text in line:
                return line
        raise AssertionError(f"the pipe closed before a line with {text!r}: {self.seen}")

    def next_line(self, timeout: float = LINE_TIMEOUT) -> str:
        """The next line, whatever it is."""
        line = self._next(time.monotonic() + timeout, "a line")
        if line is None:
            raise AssertionError(f"the pipe closed before another line: {self.seen}")
        return line

    def rest(self, timeout: float = LINE_TIMEOUT) -> list[str]:
        """The lines still to come until the child closes the pipe (as it exits)."""
        until = time.monotonic() + timeout
        start = len(self.seen)
        while self._next(until, "the pipe to close") is not None:
            pass
        return self.seen[start:]

    def _next(self, until: float, waiting_for: str) -> str | None:
        """The next line (kept in `seen`), None once the pipe is closed."""
        try:
            line = self._queue.get(timeout=max(0.0, until - time.monotonic()))
        except queue.Empty:
            raise AssertionError(f"timed out waiting for {waiting_for}: {self.seen}") from None
        if line is None:
            self._queue.put(None)  # closed for every later wait too
            return None
        self.seen.append(line)
        return line
