"""A JSON-RPC 2.0 peer over a child process's stdio, one JSON object per line: how `doctor`
asks `powercontext mcp` for its tools and `codex app-server` for its hooks' trust."""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any


class RpcFailed(RuntimeError):
    pass


class StdioPeer:
    def __init__(
        self,
        command: Sequence[str],
        *,
        cwd: Path,
        env: Mapping[str, str] | None = None,
        timeout: float = 20.0,
    ) -> None:
        self.timeout = timeout
        self._process = subprocess.Popen(
            list(command),
            cwd=cwd,
            env=dict(os.environ if env is None else env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self._ids = 0
        self._buffer = b""

    def __enter__(self) -> StdioPeer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._process.stdin is not None and not self._process.stdin.closed:
            self._process.stdin.close()
        try:
            self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        if self._process.stdout is not None:
            self._process.stdout.close()

    def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = dict(params)
        self._send(message)

    def call(self, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
        self._ids += 1
        request_id = self._ids
        self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": dict(params)})
        deadline = time.monotonic() + self.timeout
        while True:
            message = self._read(deadline)
            if message.get("id") != request_id or "method" in message:
                continue  # a notification, or a request of the peer's own
            if "error" in message:
                raise RpcFailed(f"{method}: {message['error']}")
            result = message.get("result")
            return result if isinstance(result, dict) else {}

    def _send(self, message: Mapping[str, Any]) -> None:
        stdin = self._process.stdin
        if stdin is None or self._process.poll() is not None:
            raise RpcFailed(f"the process exited ({self._process.returncode})")
        stdin.write(json.dumps(message).encode() + b"\n")
        stdin.flush()

    def _read(self, deadline: float) -> dict[str, Any]:
        """The next JSON object the peer writes (lines that are not JSON are skipped)."""
        while True:
            line = self._line(deadline)
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict):
                return message

    def _line(self, deadline: float) -> bytes:
        stdout = self._process.stdout
        assert stdout is not None
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([stdout], [], [], left)[0]:
                raise RpcFailed(f"no answer within {self.timeout:g} s")
            chunk = os.read(stdout.fileno(), 65536)
            if not chunk:
                raise RpcFailed(f"the process exited ({self._process.poll()})")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line
