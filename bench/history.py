"""History replay under load: many `Changes since 0` streams must not starve other calls.

A `serve` process on SQLite holds one memory of N revisions (default 1,500) where revision k
holds k entries (one entry appended per commit). Then S clients (default 100, one channel
each, in a process of their own) replay the whole history at once while another client runs
GetMemory (head) and Search in a loop; the figures are that client's latencies while the
replays run (and the slowest GetMemory while the streams open, all reading their first page at
once), the replays' own durations, and the server's RSS growth (peak during the replays minus
the RSS before). Targets: GetMemory/Search p99 <= 100 ms, RSS growth <= 200 MB; the
figures before and after the compact changes columns, paged history and turns are kept in
docs/performance.md ("History replay under load").
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import grpc

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_memory.transport.server import MAX_MESSAGE_BYTES

from .corpus import Corpus
from .report import Figure, figure, percentile
from .server import server_process

TARGET_P99_MS = 100.0
TARGET_RSS_GROWTH_MB = 200.0
OPENING = "opening"  # the replay process's first line, as its streams start
OPENING_SECONDS = 2.0  # how long after that the streams count as opening (first pages read)
CALL_TIMEOUT = 300.0  # seconds; only so that a stalled server ends the bench instead of hanging
_OPTIONS = [("grpc.max_receive_message_length", MAX_MESSAGE_BYTES)]


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def _grow(
    stub: pb_grpc.MemoryServiceStub, corpus: Corpus, revisions: int
) -> types.ArtifactRef:
    """Revision k holds k entries: one entry appended per commit."""
    memory: types.ArtifactRef | None = None
    for _ in range(revisions):
        request = pb.RememberRequest(
            entries=[types.EntryInput(kind="fact", text=corpus.sentence())],
            mode=pb.REMEMBER_MODE_APPEND,
        )
        if memory is not None:
            request.memory.CopyFrom(memory)
        memory = (await stub.Remember(request)).memory
    assert memory is not None
    return memory


async def _replay(port: int, memory: types.ArtifactRef, expected: int) -> float:
    """One client reading the whole history; its duration in ms."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=_OPTIONS) as channel:
        stub = pb_grpc.MemoryServiceStub(channel)
        started = time.perf_counter()
        call = stub.Changes(
            pb.ChangesRequest(memory=memory, since_revision=0), timeout=CALL_TIMEOUT
        )
        received = 0
        async for message in call:
            received += message.HasField("revision")
        if received != expected:
            raise RuntimeError(f"a replay received {received} revisions, not {expected}")
        return (time.perf_counter() - started) * 1000


async def _replays(port: int, memory: types.ArtifactRef, streams: int) -> list[float]:
    print(OPENING, flush=True)  # the parent notes when the streams open
    return list(
        await asyncio.gather(*(_replay(port, memory, memory.revision) for _ in range(streams)))
    )


async def _replays_elsewhere(
    port: int, memory: types.ArtifactRef, streams: int, opening: Callable[[], None]
) -> list[float]:
    """The replays from a process of their own, as other clients are: reading 150,000
    messages keeps a Python client's event loop busy, and in this process it would delay
    the replies the interactive figures wait for. `opening` is called as they start."""
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bench.history",
        "--replay",
        str(port),
        memory.artifact_id,
        str(memory.revision),
        str(streams),
        stdout=asyncio.subprocess.PIPE,
    )
    assert child.stdout is not None
    if (await child.stdout.readline()).decode().strip() == OPENING:
        opening()
    out, _ = await child.communicate()
    if child.returncode != 0:
        raise RuntimeError(f"the replay clients failed (exit code {child.returncode})")
    return [float(d) for d in json.loads(out)]


async def _interactive(
    stub: pb_grpc.MemoryServiceStub,
    memory: types.ArtifactRef,
    queries: list[str],
    done: asyncio.Event,
    get_ms: list[float],
    search_ms: list[float],
    get_started: list[float] | None = None,
) -> None:
    """GetMemory at head and a Search, in turn, until the replays are done (`get_started`:
    when each GetMemory was sent, perf_counter seconds)."""
    head = types.ArtifactRef(artifact_id=memory.artifact_id)
    i = 0
    while not done.is_set():
        started = time.perf_counter()
        await stub.GetMemory(pb.GetMemoryRequest(memory=head), timeout=CALL_TIMEOUT)
        get_ms.append((time.perf_counter() - started) * 1000)
        if get_started is not None:
            get_started.append(started)
        query = queries[i % len(queries)]
        i += 1
        started = time.perf_counter()
        await stub.Search(
            pb.SearchRequest(query=query, memories=[memory], limit=8), timeout=CALL_TIMEOUT
        )
        search_ms.append((time.perf_counter() - started) * 1000)


async def _peak_rss(pid: int, done: asyncio.Event) -> float:
    peak = rss_mb(pid)
    while not done.is_set():
        peak = max(peak, rss_mb(pid))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(done.wait(), 0.02)
    return max(peak, rss_mb(pid))


def _p99_figure(name: str, samples: list[float], note: str) -> Figure:
    p99 = percentile(samples, 0.99)
    return figure(name, samples, TARGET_P99_MS, f"p99 {p99:.1f} ms, target on p99; {note}", "p99")


async def run_history(revisions: int, streams: int) -> list[Figure]:
    corpus = Corpus(random.Random(20261202))
    with (
        tempfile.TemporaryDirectory(prefix="pcmem-bench-history-") as tmp,
        server_process(str(Path(tmp) / "history.sqlite3")) as served,
    ):
        async with grpc.aio.insecure_channel(
            f"127.0.0.1:{served.port}", options=_OPTIONS
        ) as channel:
            stub = pb_grpc.MemoryServiceStub(channel)
            started = time.perf_counter()
            memory = await _grow(stub, corpus, revisions)
            grow_s = time.perf_counter() - started
            queries = corpus.queries(50)
            idle_get: list[float] = []
            idle_search: list[float] = []
            quiet = asyncio.Event()
            quiet_task = asyncio.create_task(
                _interactive(stub, memory, queries, quiet, idle_get, idle_search)
            )
            await asyncio.sleep(2.0)  # warm caches; the figures without load
            quiet.set()
            await quiet_task
            before = rss_mb(served.pid)

            done = asyncio.Event()
            get_ms: list[float] = []
            get_started: list[float] = []
            search_ms: list[float] = []
            sampler = asyncio.create_task(_peak_rss(served.pid, done))
            loop_task = asyncio.create_task(
                _interactive(stub, memory, queries, done, get_ms, search_ms, get_started)
            )
            replays_started = time.perf_counter()
            cpu_before = cpu_seconds(served.pid)
            opened: list[float] = []
            try:
                durations = await _replays_elsewhere(
                    served.port, memory, streams, lambda: opened.append(time.perf_counter())
                )
            finally:
                done.set()
            replays_s = time.perf_counter() - replays_started
            cpu_s = cpu_seconds(served.pid) - cpu_before
            await loop_task
            peak = await sampler
    growth = peak - before
    opening = _slowest_while_opening(opened[0] if opened else float("nan"), get_started, get_ms)
    rss_mark = "" if growth <= TARGET_RSS_GROWTH_MB else " (OVER TARGET)"
    return [
        _p99_figure(
            f"GetMemory during {streams} history replays",
            get_ms,
            f"idle p50 {percentile(idle_get, 0.5):.1f} ms; slowest while the streams open "
            f"{opening:.1f} ms, at all {max(get_ms):.1f} ms",
        ),
        _p99_figure(
            f"Search during {streams} history replays",
            search_ms,
            f"idle p50 {percentile(idle_search, 0.5):.1f} ms",
        ),
        figure(
            f"  {streams} x Changes since 0 ({revisions:,} revisions)",
            list(durations),
            None,
            f"all done in {replays_s:.1f} s (server CPU {cpu_s:.1f} s); "
            f"server RSS {before:.0f} -> {peak:.0f} MB "
            f"(+{growth:.0f} <= {TARGET_RSS_GROWTH_MB:g}{rss_mark}); grown in {grow_s:.0f} s",
        ),
    ]


def _slowest_while_opening(opened: float, started: list[float], get_ms: list[float]) -> float:
    """The slowest GetMemory answered after the streams began to open and sent within
    OPENING_SECONDS of it: a caller arriving while all the streams read their first page."""
    during = [
        ms
        for at, ms in zip(started, get_ms, strict=True)
        if at + ms / 1000 >= opened and at <= opened + OPENING_SECONDS
    ]
    return max(during, default=float("nan"))


def main(argv: list[str]) -> None:
    """`python -m bench.history [REVISIONS [STREAMS]]`: this scenario alone."""
    if argv[:1] == ["--replay"]:  # the replay clients' process (_replays_elsewhere)
        port, artifact_id, revision, streams = argv[1:5]
        memory = types.ArtifactRef(artifact_id=artifact_id, revision=int(revision))
        print(json.dumps(asyncio.run(_replays(int(port), memory, int(streams)))))
        return
    numbers = [int(a) for a in argv[:2]]
    for item in asyncio.run(run_history(*(numbers or [1500, 100]))):
        print(f"{item.name:<48} p50 {item.median_ms:8.1f}  p99 {item.p99_ms:8.1f}  {item.note}")


if __name__ == "__main__":
    main(sys.argv[1:])
