"""`powercontext mcp` over stdio leaves promptly and cleanly when its host interrupts it: SIGINT
(Ctrl-C) exits 130 and SIGTERM exits 0, at once, without a traceback — even though the SDK's
stdin reader is blocked waiting for the next request."""

from __future__ import annotations

import json
import select
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from ..serving import CLIENT_COMMAND, server_env

pytest.importorskip("mcp")

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "signal-test", "version": "0"},
    },
}
START_TIMEOUT = 60.0
EXIT_BOUND = 5.0  # generous for a loaded machine: it exits in milliseconds


@pytest.mark.parametrize(("signal_number", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 0)])
def test_the_stdio_bridge_exits_at_once_on_a_signal(
    tmp_path: Path, signal_number: signal.Signals, code: int
) -> None:
    with socket.socket() as held:  # no server is needed to answer initialize
        held.bind(("127.0.0.1", 0))
        endpoint = f"127.0.0.1:{held.getsockname()[1]}"
        bridge = subprocess.Popen(
            [CLIENT_COMMAND, "--endpoint", endpoint, "mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=server_env(),
            cwd=tmp_path,
        )
        try:
            assert bridge.stdin is not None and bridge.stdout is not None
            bridge.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
            bridge.stdin.flush()
            ready, _, _ = select.select([bridge.stdout], [], [], START_TIMEOUT)
            assert ready, "no answer to initialize"
            answer = json.loads(bridge.stdout.readline())
            assert answer["result"]["serverInfo"]["name"] == "powercontext"
            # Serving and idle, its stdin still open: the host interrupts it.
            started = time.monotonic()
            bridge.send_signal(signal_number)
            assert bridge.wait(timeout=EXIT_BOUND) == code
            assert time.monotonic() - started < EXIT_BOUND
            assert bridge.stderr is not None
            assert b"Traceback" not in bridge.stderr.read()
        finally:
            if bridge.poll() is None:
                bridge.kill()
                bridge.wait()
            for pipe in (bridge.stdin, bridge.stdout, bridge.stderr):
                if pipe is not None:
                    pipe.close()
