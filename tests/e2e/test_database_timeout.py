"""A stuck database answers UNAVAILABLE (DATABASE_TIMEOUT) within the server's bound, and the
service recovers once the database does: a frozen OceanBase (its process stopped with
SIGSTOP) and a SQLite file whose write lock another process holds.

The OceanBase test stops a seekdb of its own, started here: never the shared test server.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_client.errors import error_info
from powercontext_memory.app import open_service
from powercontext_memory.transport.server import RunningServer, start_server
from scripts import seekdb

from ..oceanbase_server import fresh_database

TIMEOUT = 1.0  # the server's --database-timeout in these tests
DEADLINE = 30.0  # the client's: reached only if the server hung instead of answering


@contextlib.asynccontextmanager
async def serving(
    database: str | Path, timeout: float = TIMEOUT
) -> AsyncIterator[pb_grpc.MemoryServiceStub]:
    service = await open_service(database, database_timeout=timeout)
    running: RunningServer = await start_server(service, "127.0.0.1:0")
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            yield pb_grpc.MemoryServiceStub(channel)
    finally:
        await running.stop(grace=1.0)


def remember(memory: types.ArtifactRef | None, text: str) -> pb.RememberRequest:
    request = pb.RememberRequest(entries=[types.EntryInput(kind="fact", text=text)])
    if memory is not None:
        request.memory.CopyFrom(memory)
    return request


async def timed_out(call: object) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    assert caught.value.code() == grpc.StatusCode.UNAVAILABLE, caught.value.details()
    assert error_info(caught.value) == ("DATABASE_TIMEOUT", {"timeoutSeconds": f"{TIMEOUT:g}"})


async def stopped(pid: int) -> None:
    """Wait until the kernel reports the process stopped (state T), so the calls that follow
    meet a frozen engine; a bounded wait, not a timing assertion."""
    for _ in range(500):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        if fields[0] in ("T", "t"):
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"seekdb {pid} did not stop: state {fields[0]}")


async def test_a_frozen_oceanbase_answers_unavailable_then_recovers(tmp_path: Path) -> None:
    base = tmp_path / "seekdb"
    server_dsn = await asyncio.to_thread(seekdb.start, base)
    pid = int(json.loads(seekdb._state_file(base).read_text())["pid"])
    try:
        async with fresh_database(server_dsn) as dsn, serving(dsn) as stub:
            first = await stub.Remember(remember(None, "before the freeze"), timeout=DEADLINE)
            head = types.ArtifactRef(artifact_id=first.memory.artifact_id)
            os.kill(pid, signal.SIGSTOP)
            await stopped(pid)
            try:
                await timed_out(stub.GetMemory(pb.GetMemoryRequest(memory=head), timeout=DEADLINE))
                await timed_out(stub.Remember(remember(first.memory, "frozen"), timeout=DEADLINE))
            finally:
                os.kill(pid, signal.SIGCONT)
            # The connections that timed out were dropped; the service answers again.
            view = await stub.GetMemory(pb.GetMemoryRequest(memory=head), timeout=DEADLINE)
            assert view.memory == first.memory
            after = await stub.Remember(remember(first.memory, "after"), timeout=DEADLINE)
            assert after.memory.revision == 2
    finally:
        os.kill(pid, signal.SIGCONT)  # whatever happened, never leave it stopped
        await asyncio.to_thread(seekdb.stop, base)


LOCK_HOLDER = """
import sys, sqlean
db = sqlean.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.read()
db.execute("ROLLBACK")
"""


@contextlib.asynccontextmanager
async def write_lock_held(database: Path) -> AsyncIterator[None]:
    """Another process holds the database's write lock for the block."""
    holder = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        LOCK_HOLDER,
        str(database),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    assert holder.stdin is not None and holder.stdout is not None
    try:
        assert await holder.stdout.readline() == b"locked\n"
        yield
    finally:
        holder.stdin.close()
        await holder.wait()


async def test_a_sqlite_file_locked_by_another_process_answers_unavailable(
    tmp_path: Path,
) -> None:
    database = tmp_path / "memory.sqlite3"
    async with serving(database) as stub:
        first = await stub.Remember(remember(None, "before the lock"), timeout=DEADLINE)
        async with write_lock_held(database):
            await timed_out(stub.Remember(remember(first.memory, "locked"), timeout=DEADLINE))
            view = await stub.GetMemory(pb.GetMemoryRequest(memory=first.memory))
            assert view.memory == first.memory  # readers never wait for the writer (WAL)
        after = await stub.Remember(remember(first.memory, "after"), timeout=DEADLINE)
        assert after.memory.revision == 2


async def test_a_clients_deadline_cancels_the_write_it_gave_up_on(tmp_path: Path) -> None:
    """The server's bound is long here: the client's own deadline ends the call first, and the
    write it was waiting for is abandoned, not committed once the lock is free."""
    database = tmp_path / "memory.sqlite3"
    async with serving(database, timeout=DEADLINE) as stub:
        first = await stub.Remember(remember(None, "before the lock"), timeout=DEADLINE)
        async with write_lock_held(database):
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.Remember(remember(first.memory, "abandoned"), timeout=1.0)
            assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        after = await stub.Remember(remember(first.memory, "after"), timeout=DEADLINE)
        assert after.memory.revision == 2  # the abandoned write never became revision 2
        history = stub.Changes(pb.ChangesRequest(memory=after.memory, since_revision=0))
        assert [m.revision.memory_ref.revision async for m in history] == [1, 2]
