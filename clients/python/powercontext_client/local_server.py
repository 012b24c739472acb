"""Zero-config local mode: the user's own server, started on demand.

When nothing names an endpoint and nothing answers at the default address (endpoints.py), the
hooks, the MCP bridge and the CLI use a server of the user's own:

    powercontext-memory serve --listen 127.0.0.1:0 --database STATE/memory.sqlite3
        --address-file STATE/local-server/address --idle-exit IDLE_EXIT_SECONDS

(STATE: the user's state directory, state.py). It picks a free loopback port and writes it to
the address file; it stops after IDLE_EXIT_SECONDS ($POWERCONTEXT_LOCAL_IDLE_EXIT) without a
call and removes the file. The first client that finds no answering server starts one, under
an exclusive lock and a "starting" record (its pid), so hooks firing at once start one server,
not several; the others wait for the address file. Its output goes to
STATE/local-server/server.log.
POWERCONTEXT_LOCAL_SERVER=off turns the mode off; an explicit endpoint never uses it.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Final

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from .state import state_dir

ENV_LOCAL_SERVER: Final = "POWERCONTEXT_LOCAL_SERVER"
ENV_IDLE_EXIT: Final = "POWERCONTEXT_LOCAL_IDLE_EXIT"  # seconds; tests shorten it
IDLE_EXIT_SECONDS: Final = 1800
# A start older than this that never wrote its address failed: the next client tries again.
START_SECONDS: Final = 60.0
PROBE_SECONDS: Final = 0.5
POLL_SECONDS: Final = 0.05


def enabled(environ: Mapping[str, str] | None = None) -> bool:
    value = (os.environ if environ is None else environ).get(ENV_LOCAL_SERVER, "")
    return value.strip().lower() not in ("0", "off", "false", "no")


def home() -> Path:
    return state_dir() / "local-server"


def database() -> Path:
    return state_dir() / "memory.sqlite3"


def answering(address: str, timeout: float = PROBE_SECONDS) -> bool:
    """Whether a gRPC health service answers SERVING at `address` (plaintext)."""
    try:
        with grpc.insecure_channel(address) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            reply = stub.Check(health_pb2.HealthCheckRequest(), timeout=timeout)
    except grpc.RpcError:
        return False
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


def current() -> str | None:
    """The address of the running local server, or None."""
    try:
        address = (home() / "address").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return address if address and answering(address) else None


def ensure(wait: float) -> str | None:
    """The running local server's address; starts one when none runs (or is starting), and
    waits at most `wait` seconds for it to answer (None when it does not in time)."""
    found = current()
    if found is not None or wait < 0 or not installed():
        return found
    deadline = time.monotonic() + wait
    with _locked(wait) as held:
        if held:
            found = current()
            if found is not None:
                return found
            if not _starting():
                _start()
    while time.monotonic() < deadline:
        found = current()
        if found is not None:
            return found
        time.sleep(POLL_SECONDS)
    return None


@contextlib.contextmanager
def _locked(wait: float) -> Iterator[bool]:
    """The start lock, waited for at most `wait` seconds (False: not held)."""
    home().mkdir(parents=True, exist_ok=True)
    with open(home() / "start.lock", "a+b") as handle:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    yield False
                    return
                time.sleep(POLL_SECONDS)
        try:
            yield True
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _starting() -> bool:
    """A start under way: its process lives and began less than START_SECONDS ago."""
    try:
        record = json.loads((home() / "starting").read_text(encoding="utf-8"))
        pid, at = int(record["pid"]), float(record["at"])
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return time.time() - at <= START_SECONDS and _running(pid)


def _running(pid: int) -> bool:
    """The process exists and has not exited (an exited one nobody reaped yet is a zombie)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no /proc here: trust the signal test
    return stat.rpartition(")")[2].split()[:1] != ["Z"]


def installed() -> bool:
    """Whether this environment has the server to start (the client installs without it)."""
    return importlib.util.find_spec("powercontext_memory") is not None


def command() -> list[str]:
    return [
        sys.executable,
        "-m",
        "powercontext_memory",
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--database",
        str(database()),
        "--address-file",
        str(home() / "address"),
        "--idle-exit",
        os.environ.get(ENV_IDLE_EXIT) or str(IDLE_EXIT_SECONDS),
    ]


def _start() -> None:
    """Start the server in a session of its own: it outlives the hook that starts it."""
    with open(home() / "server.log", "ab") as log:
        process = subprocess.Popen(
            command(),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
            close_fds=True,
            cwd=state_dir(),
        )
    record = json.dumps({"pid": process.pid, "at": time.time()})
    (home() / "starting").write_text(record, encoding="utf-8")
