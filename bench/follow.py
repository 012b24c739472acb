"""Follow delivery across processes: how soon a follow stream receives a revision that another
process committed on the same database.

Two setups on each backend the bench runs: `serve --workers 2` (the follower's connection on
one worker, the writer's on the other, told apart by the access log) and two separate servers
on one database (the follower on one, the writer on the other). Each runs with commit signals
on (the default) and off (POWERCONTEXT_COMMIT_SIGNALS=off: the head watcher's poll alone, as
before the signals); the writer on the follower's own server is measured once, for reference.
A sample is the time from the writer receiving the commit's answer to the follower receiving
that revision (0 when the follower had it first); the note adds the figures from the start of
the writer's Remember call, which include the commit's own latency. Commits are spaced by a
random pause of up to one poll interval, so they fall anywhere in the poll's cycle. Targets
with signals on: p50 <= 20 ms, p99 <= 100 ms.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import grpc

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_memory.notifier import HEAD_POLL_INTERVAL
from powercontext_memory.serving.config import ServeConfig
from powercontext_memory.serving.follow_wakeups import ENV_COMMIT_SIGNALS
from powercontext_memory.serving.startup import serving_port

from . import backends
from .report import Figure, figure, percentile

TARGET_P50_MS = 20.0
TARGET_P99_MS = 100.0
DELIVERY_TIMEOUT = 10.0  # seconds; only so that a lost revision ends the bench
ACCESS_LINE = re.compile(r"powercontext_memory\.access worker=(\d+)/pid=\d+ \[([^\]]+)\]")


@contextlib.contextmanager
def _serving(
    database: str, *extra: str, signals: bool, stderr: Path | None = None
) -> Iterator[int]:
    """`serve` in its own process (its stderr to a file when given); its port."""
    env = {**os.environ, ENV_COMMIT_SIGNALS: "on" if signals else "off"}
    config = ServeConfig(database=database, listen="127.0.0.1:0", embedding="none")
    command = [sys.executable, "-m", "powercontext_memory", *config.argv(), *extra]
    with contextlib.ExitStack() as files:
        errors = files.enter_context(stderr.open("wb")) if stderr is not None else None
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=errors, text=True, env=env
        )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        port = serving_port(line)
        if port is None:
            raise RuntimeError(f"server did not start: {line!r}")
        yield port
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)


@contextlib.asynccontextmanager
async def _stub(port: int) -> AsyncIterator[pb_grpc.MemoryServiceStub]:
    """A stub on a TCP connection of its own (with --workers, the kernel picks its worker)."""
    options = [("grpc.use_local_subchannel_pool", 1)]
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=options) as channel:
        yield pb_grpc.MemoryServiceStub(channel)


async def _worker_of(stub: pb_grpc.MemoryServiceStub, log: Path) -> int:
    call = stub.GetCapabilities(pb.GetCapabilitiesRequest())
    await call
    request_id = dict(await call.trailing_metadata())["x-request-id"]
    deadline = time.monotonic() + DELIVERY_TIMEOUT
    while time.monotonic() < deadline:
        found = {rid: int(w) for w, rid in ACCESS_LINE.findall(log.read_text(errors="replace"))}
        if request_id in found:
            return found[request_id]
        await asyncio.sleep(0.02)
    raise RuntimeError(f"no access line for request {request_id}")


async def _on_two_workers(
    port: int, log: Path, stack: contextlib.AsyncExitStack
) -> tuple[pb_grpc.MemoryServiceStub, pb_grpc.MemoryServiceStub]:
    """Stubs whose connections reached worker 0 and worker 1."""
    by_worker: dict[int, pb_grpc.MemoryServiceStub] = {}
    for _ in range(100):
        stub = await stack.enter_async_context(_stub(port))
        by_worker.setdefault(await _worker_of(stub, log), stub)
        if len(by_worker) == 2:
            return by_worker[0], by_worker[1]
    raise RuntimeError("no new connection reached the second worker")


async def _deliveries(
    writer: pb_grpc.MemoryServiceStub,
    follower: pb_grpc.MemoryServiceStub,
    commits: int,
    rng: random.Random,
) -> tuple[list[float], list[float]]:
    """(commit answered -> follower received it, Remember called -> follower received it),
    in ms."""
    memory = (
        await writer.Remember(
            pb.RememberRequest(entries=[types.EntryInput(kind="fact", text="base")])
        )
    ).memory
    call = follower.Changes(pb.ChangesRequest(memory=memory, follow=True))
    received: dict[int, float] = {}
    arrived = asyncio.Condition()

    async def read() -> None:
        async for message in call:
            if message.HasField("revision"):
                async with arrived:
                    received[message.revision.memory_ref.revision] = time.perf_counter()
                    arrived.notify_all()

    async def delivered(revision: int) -> float:
        async with arrived:
            await asyncio.wait_for(arrived.wait_for(lambda: revision in received), DELIVERY_TIMEOUT)
        return received[revision]

    reader = asyncio.create_task(read())
    after_commit: list[float] = []
    after_call: list[float] = []
    try:
        await delivered(memory.revision)
        # The first commit is not counted: the follower's watcher may still be taking its
        # first look at the head, which any commit before it rides along with.
        for k in range(commits + 1):
            await asyncio.sleep(rng.uniform(0, HEAD_POLL_INTERVAL))
            request = pb.RememberRequest(
                memory=memory, entries=[types.EntryInput(kind="fact", text=f"note {k}")]
            )
            started = time.perf_counter()
            memory = (await writer.Remember(request)).memory
            acknowledged = time.perf_counter()
            arrival = await delivered(memory.revision)
            if k:
                after_commit.append(max(0.0, arrival - acknowledged) * 1000)
                after_call.append((arrival - started) * 1000)
    finally:
        call.cancel()
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
            await reader
    return after_commit, after_call


def _figure(name: str, after_commit: list[float], after_call: list[float], signals: bool) -> Figure:
    p99 = percentile(after_commit, 0.99)
    called = (
        f"from the call p50 {percentile(after_call, 0.5):.1f} ms, "
        f"p99 {percentile(after_call, 0.99):.1f} ms"
    )
    if not signals:
        return figure(name, after_commit, None, f"p99 {p99:.0f} ms; {called}")
    mark = "" if p99 <= TARGET_P99_MS else " (over)"
    note = f"p99 {p99:.1f} ms{mark}, target {TARGET_P99_MS:.0f}; {called}"
    return figure(name, after_commit, TARGET_P50_MS, note)


async def _workers(database: str, tmp: Path, commits: int, signals: bool) -> Figure:
    log = tmp / f"workers-{'on' if signals else 'off'}.log"
    extra = ("--workers", "2", "--access-log")
    with _serving(database, *extra, signals=signals, stderr=log) as port:
        async with contextlib.AsyncExitStack() as stack:
            follower, writer = await _on_two_workers(port, log, stack)
            after_commit, after_call = await _deliveries(
                writer, follower, commits, random.Random(7)
            )
    suffix = "" if signals else ", signals off"
    return _figure(f"follow: commit via other worker{suffix}", after_commit, after_call, signals)


async def _two_servers(database: str, commits: int, signals: bool) -> list[Figure]:
    figures = []
    with (
        _serving(database, signals=signals) as first,
        _serving(database, signals=signals) as second,
    ):
        async with _stub(first) as follower, _stub(second) as writer:
            after_commit, after_call = await _deliveries(
                writer, follower, commits, random.Random(8)
            )
            suffix = "" if signals else ", signals off"
            name = f"follow: commit via other server{suffix}"
            figures.append(_figure(name, after_commit, after_call, signals))
            if signals:  # the same server: what other processes' followers now match
                after_commit, after_call = await _deliveries(
                    follower, follower, commits, random.Random(9)
                )
                name = "follow: commit via the same server"
                figures.append(_figure(name, after_commit, after_call, signals))
    return figures


async def run_follow(backend: str, server: str | None, commits: int) -> list[Figure]:
    """The follow delivery figures of `backend`, signals on, then off (before)."""
    with tempfile.TemporaryDirectory(prefix="pcmem-bench-follow-") as tmp:
        async with backends.database(backend, Path(tmp), server, "pcm_follow") as location:
            workers = [await _workers(location, Path(tmp), commits, on) for on in (True, False)]
            other, same = await _two_servers(location, commits, True)
            (other_before,) = await _two_servers(location, commits, False)
    return [*workers, other, other_before, same]
