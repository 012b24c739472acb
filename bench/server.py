"""The server under test, started as its own process as deployed, shared by every scenario that
measures over real gRPC."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from powercontext_memory.serving.config import ServeConfig
from powercontext_memory.serving.startup import serving_port


@dataclass(frozen=True)
class Server:
    port: int
    pid: int


@contextlib.contextmanager
def server_process(
    database: str, *extra: str, env: Mapping[str, str] | None = None, cwd: Path | None = None
) -> Iterator[Server]:
    """`serve` in its own process, as deployed; stops it with SIGTERM."""
    config = ServeConfig(database=database, listen="127.0.0.1:0")
    command = [sys.executable, "-m", "powercontext_memory", *config.argv(), *extra]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env, cwd=cwd)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        port = serving_port(line)
        if port is None:
            raise RuntimeError(f"server did not start: {line!r}")
        yield Server(port, process.pid)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
