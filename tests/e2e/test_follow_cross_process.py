"""Follow streams are woken by commits that another process makes on the same database.

Every server here polls the followed heads only once an hour (POWERCONTEXT_HEAD_POLL_INTERVAL),
so within the tests' deadlines only a commit signal from the committing process can bring a
revision committed elsewhere: each test fails when the signal does not work. Before each
cross-process commit, the follower's watcher has already read the heads once (a commit through
the follower's own server, which wakes it locally, is delivered first), so its first poll
cannot be what delivers the commit either.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_memory.serving.config import ServeConfig
from powercontext_memory.serving.follow_wakeups import (
    ENV_COMMIT_SIGNALS,
    ENV_HEAD_POLL_INTERVAL,
    signal_directory,
)

from ..oceanbase_server import fresh_database
from ..serving import SERVER_COMMAND, ServerProcess, serve_process, server_env
from .requests import remember
from .test_workers import AccessLog

WAIT = 30.0  # seconds: only a bound on waiting for what must happen (the poll is an hour)
HOURLY_POLL = {ENV_HEAD_POLL_INTERVAL: "3600"}


def _sockets(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.sock")) if directory.exists() else []


@contextlib.asynccontextmanager
async def _stub(port: int) -> AsyncIterator[pb_grpc.MemoryServiceStub]:
    """A stub on a TCP connection of its own, so that with --workers the kernel picks a
    worker for it."""
    options = [("grpc.use_local_subchannel_pool", 1)]
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=options) as channel:
        yield pb_grpc.MemoryServiceStub(channel)


class Follower:
    """A follow stream on one memory, read one revision at a time."""

    def __init__(self, stub: pb_grpc.MemoryServiceStub, memory: types.ArtifactRef) -> None:
        self.call = stub.Changes(pb.ChangesRequest(memory=memory, follow=True), timeout=WAIT * 4)

    async def next_revision(self) -> int:
        async def read() -> int:
            while True:
                message = await self.call.read()
                assert message is not grpc.aio.EOF, "the follow stream ended"
                if message.HasField("revision"):
                    return int(message.revision.memory_ref.revision)

        return await asyncio.wait_for(read(), WAIT)


async def _commit(
    stub: pb_grpc.MemoryServiceStub, memory: types.ArtifactRef | None, text: str
) -> tuple[types.ArtifactRef, str]:
    """Add a note on `memory` (the head); the new head and the call's request id."""
    call = stub.Remember(remember(memory, text))
    response = await call
    assert response.changed
    return response.memory, str(dict(await call.trailing_metadata())["x-request-id"])


async def _followed_across(first: int, second: int) -> None:
    """A follower on each server receives, in order, every commit made through the other."""
    async with _stub(first) as a, _stub(second) as b:
        memory, _ = await _commit(a, None, "base")
        follow_a, follow_b = Follower(a, memory), Follower(b, memory)
        assert await follow_a.next_revision() == 1
        assert await follow_b.next_revision() == 1
        memory, _ = await _commit(a, memory, "through a: a's watcher has read the heads")
        assert await follow_a.next_revision() == 2
        assert await follow_b.next_revision() == 2  # b's first poll, or a's signal
        for k in range(4):
            memory, _ = await _commit(b if k % 2 == 0 else a, memory, f"note {k}")
            assert await follow_a.next_revision() == memory.revision
            assert await follow_b.next_revision() == memory.revision
        for follower in (follow_a, follow_b):
            follower.call.cancel()


async def test_two_servers_on_one_sqlite_file_wake_each_others_followers(tmp_path: Path) -> None:
    database = tmp_path / "memory.sqlite3"
    directory = tmp_path / "memory.sqlite3.signals"
    assert signal_directory(str(database)) == directory
    with (
        serve_process(database, env=HOURLY_POLL) as first,
        serve_process(database, env=HOURLY_POLL) as second,
    ):
        assert len(_sockets(directory)) == 2
        assert directory.stat().st_mode & 0o777 == 0o700
        await _followed_across(first.port, second.port)
    assert not directory.exists()  # the last server to stop removed it


async def test_workers_wake_each_others_followers(tmp_path: Path) -> None:
    """`serve --workers 2`: commits through connections that reached the other worker reach a
    follower whose connection reached the first."""
    log = AccessLog(tmp_path / "server.log")
    with log.path.open("wb") as stderr:
        server = ServerProcess(
            tmp_path / "memory.sqlite3",
            "--workers",
            "2",
            "--access-log",
            env=HOURLY_POLL,
            stderr=stderr,
        )
    try:
        assert len(_sockets(tmp_path / "memory.sqlite3.signals")) == 2  # not the supervisor
        async with _stub(server.port) as stub:
            memory, _ = await _commit(stub, None, "base")
            follower = Follower(stub, memory)
            assert await follower.next_revision() == 1
            memory, request_id = await _commit(stub, memory, "through the follower's worker")
            assert await follower.next_revision() == 2
            follower_worker, _ = await log.worker_of(request_id)  # one connection, one worker
            elsewhere = 0
            for attempt in range(100):
                if elsewhere == 2:
                    break
                async with _stub(server.port) as writer:
                    memory, request_id = await _commit(writer, memory, f"note {attempt}")
                    assert await follower.next_revision() == memory.revision
                    worker, _ = await log.worker_of(request_id)
                    elsewhere += worker != follower_worker
            assert elsewhere == 2, "no new connection reached the other worker"
            follower.call.cancel()
    except BaseException:
        server.kill()
        raise
    assert server.stop() == 0
    assert not (tmp_path / "memory.sqlite3.signals").exists()


async def test_a_killed_servers_socket_is_removed_and_never_fails_a_write(
    tmp_path: Path,
) -> None:
    database = tmp_path / "memory.sqlite3"
    directory = tmp_path / "memory.sqlite3.signals"
    with (
        serve_process(database, env=HOURLY_POLL) as first,
        serve_process(database, env=HOURLY_POLL) as second,
    ):
        live = set(_sockets(directory))
        killed = ServerProcess(database, env=HOURLY_POLL)
        killed.kill()  # SIGKILL: its socket file stays behind, bound by nobody
        (stale,) = set(_sockets(directory)) - live
        async with _stub(first.port) as a, _stub(second.port) as b:
            memory, _ = await _commit(a, None, "base")
            follower = Follower(a, memory)
            assert await follower.next_revision() == 1
            memory, _ = await _commit(a, memory, "through a")
            assert await follower.next_revision() == 2
            assert not stale.exists()  # a's signal found it dead and removed it
            memory, _ = await _commit(b, memory, "through b")
            assert await follower.next_revision() == 3
            follower.call.cancel()
        assert set(_sockets(directory)) == live


async def test_signals_off_bind_nothing(tmp_path: Path) -> None:
    database = tmp_path / "memory.sqlite3"
    with serve_process(database, env={ENV_COMMIT_SIGNALS: "off"}) as served:
        async with _stub(served.port) as stub:
            await _commit(stub, None, "base")
        assert not (tmp_path / "memory.sqlite3.signals").exists()


def test_a_bad_poll_interval_fails_the_serve(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            SERVER_COMMAND,
            *ServeConfig(
                database=str(tmp_path / "m.sqlite3"), listen="127.0.0.1:0", embedding="none"
            ).argv(),
        ],
        env=server_env({ENV_HEAD_POLL_INTERVAL: "soon"}),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert f"error: {ENV_HEAD_POLL_INTERVAL}: not a number: 'soon'" in done.stderr
    assert "serving" not in done.stdout


@pytest.fixture
async def oceanbase_database(oceanbase_server: str) -> AsyncIterator[str]:
    async with fresh_database(oceanbase_server) as dsn:
        yield dsn


async def test_two_servers_on_one_oceanbase_database(oceanbase_database: str) -> None:
    directory = signal_directory(oceanbase_database)
    assert directory is not None
    with (
        serve_process(oceanbase_database, env=HOURLY_POLL) as first,
        serve_process(oceanbase_database, env=HOURLY_POLL) as second,
    ):
        assert len(_sockets(directory)) == 2
        await _followed_across(first.port, second.port)
    assert not directory.exists()
