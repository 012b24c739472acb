"""Clients fail fast and say why, against real server processes and real channels.

A call to an endpoint where nothing listens fails within about a second (the connect window)
with Unavailable naming the endpoint and the refused connection, never at its deadline; a read
that starts while the server is down and finds it back within the window succeeds; and
`powercontext changes --follow` says on stderr when it lost the server and when it is back.
"""

from __future__ import annotations

import asyncio
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc
import pytest

from powercontext_client import (
    AsyncClient,
    Backoff,
    Client,
    ClientConfig,
    Unavailable,
    new_entry,
    ref,
)
from powercontext_client.config import DEFAULT_CONNECT_TIMEOUT
from powercontext_client.reconnects import FollowEvent

from ..serving import CLIENT_COMMAND, Lines, ServerProcess, server_env

# Generous bounds for a loaded machine: a few times the default connect window.
CALL_BOUND = 3.0
CLI_BOUND = 4.0  # the CLI's interpreter start and imports come on top
# A short connect window, to check that every kind of call keeps to its window (the default
# window is checked once, on one call).
SHORT_WINDOW = 0.25
# A window long enough for a server process to be started again inside it.
RESTART_WINDOW = 60.0
PROGRESS = ("--progress-interval", "0.2")
WAIT = 60.0
# A follower ends within a moment of SIGINT; one that ignores it fails here, not at WAIT.
EXIT_BOUND = 10.0
EXIT_UNAVAILABLE = 7
EXIT_INTERRUPTED = 130


@pytest.fixture
def refused() -> Iterator[str]:
    """An endpoint that refuses connections: a port bound but never listening, held for the
    whole test so that nothing else can take it meanwhile."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        yield f"127.0.0.1:{held.getsockname()[1]}"


def fails_fast(call: Callable[[], Any]) -> tuple[Unavailable, float]:
    started = time.monotonic()
    with pytest.raises(Unavailable) as caught:
        call()
    elapsed = time.monotonic() - started
    assert elapsed < CALL_BOUND, f"took {elapsed:.2f} s"
    return caught.value, elapsed


def test_reads_writes_and_follow_fail_fast_naming_the_endpoint(refused: str) -> None:
    config = ClientConfig(endpoint=refused, connect_timeout=SHORT_WINDOW)
    with Client(config=config) as client:
        calls: dict[str, Callable[[], Any]] = {
            "read": lambda: client.get_memory("mem_art_x"),
            "write": lambda: client.remember(None, [new_entry("fact", "lost")]),
            "changes": lambda: client.changes(ref("mem_art_x", 1)),
            "follow": lambda: next(iter(client.follow("mem_art_x"))),
        }
        for name, call in calls.items():
            error, elapsed = fails_fast(call)
            assert error.code == grpc.StatusCode.UNAVAILABLE, name
            assert error.message == f"cannot reach {refused}: connection refused", name
            # Tried again for the whole window: a restarting server would have been found.
            assert elapsed >= SHORT_WINDOW * 0.9, (name, elapsed)
    with Client(refused) as client:
        error, elapsed = fails_fast(lambda: client.get_memory("mem_art_x"))
        assert error.message == f"cannot reach {refused}: connection refused"
        assert elapsed >= DEFAULT_CONNECT_TIMEOUT * 0.9, elapsed  # the default window
        health, elapsed = fails_fast(client.health)  # a probe: no window
        assert "connection refused" in health.message and elapsed < DEFAULT_CONNECT_TIMEOUT


async def test_the_async_client_and_a_window_of_zero(refused: str) -> None:
    config = ClientConfig(endpoint=refused, connect_timeout=0)
    async with AsyncClient(config=config) as client:
        started = time.monotonic()
        with pytest.raises(Unavailable, match=f"cannot reach {refused}: connection refused"):
            await client.get_memory("mem_art_x")
        with pytest.raises(Unavailable, match="refused"):
            await client.remember(None, [new_entry("fact", "lost")])
        assert time.monotonic() - started < DEFAULT_CONNECT_TIMEOUT


def test_the_cli_exits_unavailable_naming_the_endpoint_and_the_cause(
    refused: str, tmp_path: Path
) -> None:
    memory = "mem_art_" + "0" * 32
    short = {"POWERCONTEXT_CONNECT_TIMEOUT": str(SHORT_WINDOW)}
    for command, window in [
        (["get", memory], None),
        (["create", "lost"], short),
        (["changes", memory, "--follow"], short),
    ]:
        started = time.monotonic()
        done = subprocess.run(
            [CLIENT_COMMAND, "--endpoint", refused, *command],
            capture_output=True,
            text=True,
            env=server_env(window),
            cwd=tmp_path,
            timeout=WAIT,
        )
        elapsed = time.monotonic() - started
        assert done.returncode == EXIT_UNAVAILABLE, (command, done.stderr)
        expected = f"error: UNAVAILABLE (UNAVAILABLE): cannot reach {refused}: connection refused"
        assert done.stderr.splitlines() == [expected], command
        assert elapsed < CLI_BOUND, (command, elapsed)
        if window is None:  # the default window, tried to its end
            assert elapsed >= DEFAULT_CONNECT_TIMEOUT * 0.9, (command, elapsed)


def test_a_read_finds_a_server_back_within_the_connect_window(tmp_path: Path) -> None:
    database = tmp_path / "memory.sqlite3"
    server = ServerProcess(database)
    endpoint = f"127.0.0.1:{server.port}"
    try:
        with Client(endpoint) as writer:
            memory = writer.remember(None, [new_entry("fact", "still here")]).memory
        assert server.stop() == 0
        config = ClientConfig(endpoint=endpoint, connect_timeout=RESTART_WINDOW)
        # Tries close together: the read is sent again soon after the server is back.
        backoff = Backoff(maximum=SHORT_WINDOW)
        with Client(config=config, backoff=backoff) as client, ThreadPoolExecutor(1) as pool:
            read = pool.submit(client.get_memory, memory.artifact_id)
            time.sleep(0.5)
            assert not read.done(), "the read gave up while the server was down"
            server = ServerProcess(database, "--listen", endpoint)
            head = read.result(timeout=WAIT)
        assert head.memory.revision == 1
    finally:
        server.stop()


def test_cli_follow_says_when_it_reconnects_and_when_it_resumes(tmp_path: Path) -> None:
    database = tmp_path / "memory.sqlite3"
    server = ServerProcess(database, *PROGRESS)
    endpoint = f"127.0.0.1:{server.port}"
    follower: subprocess.Popen[str] | None = None
    try:
        with Client(endpoint) as client:
            memory_id = client.remember(None, [new_entry("fact", "r1")]).memory.artifact_id
        follower = subprocess.Popen(
            [CLIENT_COMMAND, "--endpoint", endpoint, "changes", memory_id, "--follow"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=server_env(),
            cwd=tmp_path,
        )
        assert follower.stdout is not None and follower.stderr is not None
        out, err = Lines(follower.stdout), Lines(follower.stderr)
        out.wait_for(f"{memory_id}@1 ")
        assert server.stop() == 0
        lost = err.wait_for("reconnecting")
        assert endpoint in lost and "SHUTTING_DOWN" in lost and "after revision 1" in lost
        server = ServerProcess(database, *PROGRESS, "--listen", endpoint)
        back = err.wait_for("reconnected")
        assert back == f"follow: reconnected to {endpoint}; resuming after revision 1"
        with Client(endpoint) as client:
            client.remember(ref(memory_id, 1), [new_entry("fact", "r2")])
        out.wait_for(f"{memory_id}@2 ")
        follower.send_signal(signal.SIGINT)
        assert follower.wait(timeout=EXIT_BOUND) == EXIT_INTERRUPTED
        err.rest()  # up to its exit
        assert not any("Traceback" in line for line in err.seen)
    finally:
        if follower is not None and follower.poll() is None:
            follower.kill()
            follower.wait()
        server.stop()


async def test_follow_tells_on_reconnect_what_happened(tmp_path: Path) -> None:
    database = tmp_path / "memory.sqlite3"
    server = ServerProcess(database, *PROGRESS)
    endpoint = f"127.0.0.1:{server.port}"
    events: list[FollowEvent] = []
    try:
        async with AsyncClient(endpoint) as client:
            created = await client.remember(None, [new_entry("fact", "r1")])
            memory_id = created.memory.artifact_id
            follow = client.follow(memory_id, on_reconnect=events.append)
            first = await asyncio.wait_for(anext(follow), WAIT)
            assert first.memory_ref.revision == 1
            server.kill()  # a crash: the connection just drops
            server = ServerProcess(database, *PROGRESS, "--listen", endpoint)
            await client.remember(ref(memory_id, 1), [new_entry("fact", "r2")])
            second = await asyncio.wait_for(anext(follow), WAIT)
            await follow.aclose()  # type: ignore[attr-defined]
        assert second.memory_ref.revision == 2
        lost, back = events
        assert (lost.state, lost.since, lost.endpoint) == ("reconnecting", 1, endpoint)
        assert isinstance(lost.error, Unavailable)
        assert (back.state, back.since, back.error) == ("resumed", 1, None)
    finally:
        server.stop()


def test_the_connect_window_comes_from_the_environment() -> None:
    configured = ClientConfig.from_env({"POWERCONTEXT_CONNECT_TIMEOUT": "0.25"})
    assert configured.connect_timeout == 0.25
    assert ClientConfig.from_env({}).connect_timeout == DEFAULT_CONNECT_TIMEOUT
    with pytest.raises(ValueError, match="connect_timeout"):
        ClientConfig(connect_timeout=-1)
