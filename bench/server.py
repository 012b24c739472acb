"""The server under test, started as its own process as deployed, shared by every scenario that
measures over real gRPC."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Server:
    port: int
    pid: int


@contextlib.contextmanager
def server_process(database: str, *extra: str) -> Iterator[Server]:
    """`serve` in its own process, as deployed; stops it with SIGTERM."""
    command = [
        sys.executable,
        "-m",
        "powercontext_memory",
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--database",
        database,
        *extra,
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.startswith("serving"):
            raise RuntimeError(f"server did not start: {line!r}")
        yield Server(int(line.split(" on ")[1].split()[0].rsplit(":", 1)[1]), process.pid)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
