"""OUR server for a scenario: `powercontext-memory serve` on a free (so never the default
50051) port, logging every call (`--access-log --log-format json`) to a file the tests read;
and the hung server of the fail-open tests: a listener that accepts and never answers.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..serving import ServerProcess

SERVICE = "/powercontext.memory.v1.MemoryService/"


@dataclass(frozen=True)
class Call:
    method: str  # e.g. "Search"
    code: str  # e.g. "OK"


class OurServer:
    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.log_path = directory / "access.jsonl"
        self._log: IO[bytes] = self.log_path.open("ab")
        self._process = ServerProcess(
            directory / "memory.sqlite3",
            "--access-log",
            "--log-format",
            "json",
            stderr=self._log,
        )
        self.port = self._process.port
        self.endpoint = f"127.0.0.1:{self.port}"

    def calls(self) -> list[Call]:
        """Every call the server finished, in order (health checks included)."""
        found = []
        for line in self.log_path.read_text().splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue  # a line from elsewhere (a warning printed as text)
            method = str(record.get("method", ""))
            if record.get("logger") == "powercontext_memory.access" and method:
                found.append(Call(method.removeprefix(SERVICE), str(record.get("code"))))
        return found

    def stop(self) -> None:
        if self._process.proc.poll() is None:
            code = self._process.stop()
            assert code == 0, f"our server exited with {code}"
        self._log.close()


@contextlib.contextmanager
def our_server(directory: Path) -> Iterator[OurServer]:
    server = OurServer(directory)
    try:
        yield server
    finally:
        server.stop()


@contextlib.contextmanager
def hung_server(port: int) -> Iterator[None]:
    """On 127.0.0.1:`port`: accepts every connection and never says a byte (not even the
    HTTP/2 preface), the way a wedged server looks to a client."""
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    listener.settimeout(0.1)
    held: list[socket.socket] = []
    done = threading.Event()

    def accept() -> None:
        while not done.is_set():
            with contextlib.suppress(OSError):
                held.append(listener.accept()[0])

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        for conn in held:
            conn.close()
        listener.close()
