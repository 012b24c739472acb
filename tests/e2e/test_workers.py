"""`serve --workers N`: several server processes on one port (SO_REUSEPORT), end to end.

Each new TCP connection reaches one worker and stays there. Which one answered a call is read
from the access log: its lines carry `worker=I/pid=P` and the request id that every call
returns (x-request-id), so nothing in the API exists for the test's sake.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import subprocess
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types

from ..oceanbase_server import fresh_database
from ..robustness.wire import head_ref, history
from ..serving import SERVER_COMMAND, ServerProcess, server_env
from .requests import remember

WORKERS = 2
WRITERS = 8
COMMITS_PER_WRITER = 3
WAIT = 20.0
ACCESS_LINE = re.compile(r"powercontext_memory\.access worker=(\d+)/pid=(\d+) \[([^\]]+)\]")


class AccessLog:
    """The server's stderr (every worker's), read as it grows."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def served_by(self) -> dict[str, tuple[int, int]]:
        """request id -> (worker index, pid), for every access line so far."""
        found = ACCESS_LINE.findall(self.path.read_text(errors="replace"))
        return {request: (int(worker), int(pid)) for worker, pid, request in found}

    async def worker_of(self, request_id: str) -> tuple[int, int]:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            by_request = self.served_by()
            if request_id in by_request:
                return by_request[request_id]
            await asyncio.sleep(0.02)
        raise AssertionError(f"no access line for request {request_id}")


def _request_id(metadata: object) -> str:
    return dict(metadata or ())["x-request-id"]  # type: ignore[call-overload]


@contextlib.asynccontextmanager
async def _fresh_channel(port: int) -> AsyncIterator[grpc.aio.Channel]:
    """A channel with a TCP connection of its own (not shared with this process's others), so
    the kernel picks a worker for it."""
    options = [("grpc.use_local_subchannel_pool", 1)]
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=options) as channel:
        yield channel


async def _probe(stub: pb_grpc.MemoryServiceStub, log: AccessLog) -> int:
    """The worker this stub's connection reached."""
    call = stub.GetCapabilities(pb.GetCapabilitiesRequest())
    await call
    worker, _ = await log.worker_of(_request_id(await call.trailing_metadata()))
    return worker


@dataclass
class Writer:
    """Adds notes on whatever the head is, re-reading it after each ABORTED; keeps the
    request id of every acknowledged commit."""

    stub: pb_grpc.MemoryServiceStub
    artifact_id: str
    acks: dict[int, str] = field(default_factory=dict)  # revision -> request id
    entries: list[str] = field(default_factory=list)

    async def run(self, n: int, start: asyncio.Barrier) -> None:
        await start.wait()
        for k in range(COMMITS_PER_WRITER):
            while True:
                read = pb.GetMemoryRequest(memory=head_ref(self.artifact_id))
                head = (await self.stub.GetMemory(read)).memory
                call = self.stub.Remember(remember(head, f"writer {n} note {k}"))
                try:
                    response = await call
                except grpc.aio.AioRpcError as error:
                    assert error.code() == grpc.StatusCode.ABORTED, error
                    continue
                self.acks[response.memory.revision] = _request_id(await call.trailing_metadata())
                self.entries.append(response.results[0].entry_id)
                break


async def _follow(
    stub: pb_grpc.MemoryServiceStub, memory: types.ArtifactRef, last: int, log: AccessLog
) -> tuple[list[int], int]:
    """(revisions a follow stream saw until `last`, the worker that served the stream)."""
    call = stub.Changes(pb.ChangesRequest(memory=memory, follow=True), timeout=WAIT * 3)
    request_id = _request_id(await call.initial_metadata())
    seen = []
    async for message in call:
        if message.HasField("revision"):
            seen.append(message.revision.memory_ref.revision)
            if seen[-1] == last:
                break
    call.cancel()
    worker, _ = await log.worker_of(request_id)  # a stream's access line comes at its end
    return seen, worker


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def _writers_on_every_worker(
    port: int, log: AccessLog, stack: contextlib.AsyncExitStack
) -> list[pb_grpc.MemoryServiceStub]:
    """WRITERS stubs, each on its own connection, at least two on every worker."""
    by_worker: dict[int, list[pb_grpc.MemoryServiceStub]] = {}
    for _ in range(100):
        stub = pb_grpc.MemoryServiceStub(await stack.enter_async_context(_fresh_channel(port)))
        by_worker.setdefault(await _probe(stub, log), []).append(stub)
        counts = [len(by_worker.get(w, [])) for w in range(WORKERS)]
        if sum(counts) >= WRITERS and min(counts) >= 2:
            break
    assert sorted(by_worker) == list(range(WORKERS)), "new connections never reached a worker"
    # Two from each worker first, then the rest: every worker keeps some writers.
    chosen = [stub for stubs in by_worker.values() for stub in stubs[:2]]
    rest = [stub for stubs in by_worker.values() for stub in stubs[2:]]
    return (chosen + rest)[:WRITERS]


async def _racing_writers_and_a_follower(port: int, log: AccessLog) -> set[int]:
    """Eight writers through the shared port race on one memory while a follow stream on one
    connection watches: the history is gapless, no acknowledged commit is lost, and the follower
    sees commits made through the other workers. The pids that served the writers."""
    async with contextlib.AsyncExitStack() as stack:
        first = pb_grpc.MemoryServiceStub(await stack.enter_async_context(_fresh_channel(port)))
        base = (await first.Remember(remember(None, "base entry"))).memory
        stubs = await _writers_on_every_worker(port, log, stack)
        writers = [Writer(stub, base.artifact_id) for stub in stubs]
        last = 1 + WRITERS * COMMITS_PER_WRITER
        follower = asyncio.create_task(_follow(first, base, last, log))
        start = asyncio.Barrier(WRITERS)
        await asyncio.wait_for(
            asyncio.gather(*(w.run(n, start) for n, w in enumerate(writers))), WAIT * 2
        )
        seen, follower_worker = await asyncio.wait_for(follower, WAIT)
        revisions = await history(first, base.artifact_id)
        final = await first.GetMemory(pb.GetMemoryRequest(memory=head_ref(base.artifact_id)))

    assert [r.memory_ref.revision for r in revisions] == list(range(1, last + 1))
    acks = {revision: rid for w in writers for revision, rid in w.acks.items()}
    assert sorted(acks) == list(range(2, last + 1))  # each commit acknowledged exactly once
    by_revision = {r.memory_ref.revision: {c.entry_id for c in r.changes} for r in revisions}
    for writer in writers:
        for (revision, _), entry_id in zip(
            sorted(writer.acks.items()), writer.entries, strict=True
        ):
            assert entry_id in by_revision[revision]
    active = {e.entry_id for e in final.content.manifest.entries}
    assert {e for w in writers for e in w.entries} <= active
    assert final.active_entries == 1 + WRITERS * COMMITS_PER_WRITER

    # The follow stream saw every commit, in order, including those of the other worker.
    assert seen == list(range(1, last + 1))
    served = [await log.worker_of(rid) for rid in acks.values()]
    assert {worker for worker, _ in served} == set(range(WORKERS))
    assert any(worker != follower_worker for worker, _ in served)
    return {pid for _, pid in served}


def _serve_fails(*args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [SERVER_COMMAND, "serve", *args],
        cwd="/",
        env=server_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0, done.stdout + done.stderr
    assert "serving" not in done.stdout
    return done


async def test_workers_share_one_port_and_one_history(tmp_path: Path) -> None:
    log = AccessLog(tmp_path / "server.log")
    with log.path.open("wb") as stderr:
        server = ServerProcess(
            tmp_path / "memory.sqlite3", "--workers", "2", "--access-log", stderr=stderr
        )
    try:
        assert server.served.line.rstrip().endswith("; 2 workers)")
        pids = await _racing_writers_and_a_follower(server.port, log)
        assert len(pids) == WORKERS and server.proc.pid not in pids
        # The supervisor holds the port: another set of workers cannot join it (and, as
        # before, a single server never binds a port in use).
        taken = f"127.0.0.1:{server.port}"
        database = str(tmp_path / "other.sqlite3")
        failed = _serve_fails("--listen", taken, "--database", database, "--workers", "2")
        assert f"cannot listen on {taken}" in failed.stderr
    except BaseException:
        server.kill()
        raise
    assert server.stop() == 0  # SIGTERM: every worker stops gracefully
    assert not any(_alive(pid) for pid in pids)
    assert log.path.read_text().count("stopped powercontext.memory.v1.MemoryService") == WORKERS


async def test_a_worker_that_cannot_start_fails_the_serve(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    failed = _serve_fails(
        "--listen", "127.0.0.1:0", "--database", str(blocker / "memory.sqlite3"), "--workers", "2"
    )
    assert "worker 0 exited with code 1 before serving" in failed.stderr
    # The worker's own reason is there too, not only the supervisor's summary.
    assert failed.stderr.count("error:") >= 2, failed.stderr
    # A bad flag fails before any worker starts.
    bad = _serve_fails("--workers", "0")
    assert "--workers: must be >= 1" in bad.stderr


async def test_a_worker_that_dies_stops_the_others(tmp_path: Path) -> None:
    log = AccessLog(tmp_path / "server.log")
    with log.path.open("wb") as stderr:
        server = ServerProcess(
            tmp_path / "memory.sqlite3", "--workers", "2", "--access-log", stderr=stderr
        )
    try:
        pids: dict[int, int] = {}
        async with contextlib.AsyncExitStack() as stack:
            for _ in range(100):
                if len(pids) == WORKERS:
                    break
                channel = await stack.enter_async_context(_fresh_channel(server.port))
                stub = pb_grpc.MemoryServiceStub(channel)
                call = stub.GetCapabilities(pb.GetCapabilitiesRequest())
                await call
                worker, pid = await log.worker_of(_request_id(await call.trailing_metadata()))
                pids[worker] = pid
        os.kill(pids[1], signal.SIGKILL)
        code = server.proc.wait(timeout=WAIT)
    finally:
        server.kill()
    assert code == 1  # not restarted: the whole server ends, for its supervisor to restart
    assert f"worker 1 (pid {pids[1]}) exited with code -9" in log.path.read_text()
    assert not _alive(pids[0])


@pytest.fixture
async def oceanbase_database(oceanbase_server: str) -> AsyncIterator[str]:
    async with fresh_database(oceanbase_server) as dsn:
        yield dsn


async def test_workers_on_oceanbase(oceanbase_database: str, tmp_path: Path) -> None:
    log = AccessLog(tmp_path / "server.log")
    with log.path.open("wb") as stderr:
        server = ServerProcess(oceanbase_database, "--workers", "2", "--access-log", stderr=stderr)
    try:
        await _racing_writers_and_a_follower(server.port, log)
    except BaseException:
        server.kill()
        raise
    assert server.stop() == 0


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
    return found


async def test_ctrl_c_is_the_supervisors_to_handle(tmp_path: Path) -> None:
    """Ctrl-C signals the whole process group: a worker ignores it (so it cannot look like a
    crash) and the supervisor stops every worker gracefully."""
    server = ServerProcess(tmp_path / "memory.sqlite3", "--workers", "2")
    try:
        workers = _children(server.proc.pid)
        assert len(workers) == WORKERS
        os.kill(workers[1], signal.SIGINT)
        async with _fresh_channel(server.port) as channel:  # still serving, both workers
            await pb_grpc.MemoryServiceStub(channel).GetCapabilities(pb.GetCapabilitiesRequest())
        assert all(_alive(pid) for pid in workers)
        server.proc.send_signal(signal.SIGINT)
        code = server.proc.wait(timeout=WAIT)
    finally:
        server.kill()
    assert code == 0
    assert not any(_alive(pid) for pid in workers)
