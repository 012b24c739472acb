"""`make bench`: commit cost by memory size and full-text search latency, over real gRPC.

Every figure is measured end to end: this process is a grpc.aio client on a real channel to a
server started as its own process (`python -m powercontext_memory serve`) on 127.0.0.1, on a
real SQLite file in a temporary directory. Medians over repeated runs; the targets are the
issue's (2-core machine).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_memory.transport.server import MAX_MESSAGE_BYTES

from .corpus import Corpus

BATCH = 1000


@dataclass
class Figure:
    name: str
    median_ms: float
    p95_ms: float
    target_ms: float | None
    note: str = ""

    def row(self) -> str:
        verdict = (
            ""
            if self.target_ms is None
            else ("ok" if self.median_ms <= self.target_ms else "OVER TARGET")
        )
        target = "" if self.target_ms is None else f"<= {self.target_ms:g}"
        return (
            f"{self.name:<44} {self.median_ms:>9.2f} {self.p95_ms:>9.2f} "
            f"{target:>9} {verdict:>11}  {self.note}"
        )


def _percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _figure(name: str, samples: list[float], target: float | None, note: str = "") -> Figure:
    return Figure(name, statistics.median(samples), _percentile(samples, 0.95), target, note)


async def _fill(stub: pb_grpc.MemoryServiceStub, corpus: Corpus, size: int) -> types.ArtifactRef:
    """A memory of `size` entries, written in batches of 1,000."""
    memory: types.ArtifactRef | None = None
    for start in range(0, size, BATCH):
        entries = [
            types.EntryInput(kind="fact", text=corpus.sentence())
            for _ in range(min(BATCH, size - start))
        ]
        request = pb.RememberRequest(entries=entries, mode=pb.REMEMBER_MODE_APPEND)
        if memory is not None:
            request.memory.CopyFrom(memory)
        memory = (await stub.Remember(request)).memory
    assert memory is not None
    return memory


async def _commit_latencies(
    stub: pb_grpc.MemoryServiceStub, corpus: Corpus, memory: types.ArtifactRef, runs: int
) -> tuple[list[float], types.ArtifactRef]:
    samples = []
    for _ in range(runs):
        request = pb.RememberRequest(
            memory=memory, entries=[types.EntryInput(kind="fact", text=corpus.sentence())]
        )
        started = time.perf_counter()
        response = await stub.Remember(request)
        samples.append((time.perf_counter() - started) * 1000)
        memory = response.memory
    return samples, memory


def server_timing(trailers: object) -> dict[str, float]:
    """The server-timing trailer of a Search: {"embed": ms, "search": ms}."""
    for key, value in trailers or ():  # type: ignore[attr-defined]
        if key == "server-timing":
            return {
                part.split(";dur=")[0].strip(): float(part.split(";dur=")[1])
                for part in value.split(",")
            }
    return {}


async def _search_latencies(
    stub: pb_grpc.MemoryServiceStub,
    memory: types.ArtifactRef,
    queries: list[str],
    mode: int = types.SEARCH_MODE_FTS,
    embed_ms: list[float] | None = None,
) -> tuple[list[float], float]:
    """Round-trip latencies; with `embed_ms`, the server's query-embedding time is collected
    and taken out of each sample."""
    samples, hits = [], 0
    for query in queries:
        request = pb.SearchRequest(query=query, memories=[memory], limit=8, mode=mode)
        started = time.perf_counter()
        call = stub.Search(request)
        response = await call
        elapsed = (time.perf_counter() - started) * 1000
        if embed_ms is not None:
            embed = server_timing(await call.trailing_metadata()).get("embed", 0.0)
            embed_ms.append(embed)
            elapsed -= embed
        samples.append(elapsed)
        hits += len(response.hits)
    return samples, hits / len(queries)


@dataclass(frozen=True)
class Server:
    port: int
    pid: int


@contextlib.contextmanager
def server_process(database: Path, *extra: str) -> Iterator[Server]:
    """`serve` in its own process, as deployed; stops it with SIGTERM."""
    command = [
        sys.executable,
        "-m",
        "powercontext_memory",
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--database",
        str(database),
        *extra,
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.startswith("serving"):
            raise RuntimeError(f"server did not start: {line!r}")
        yield Server(int(line.split(" on ")[1].split()[0].rsplit(":", 1)[1]), process.pid)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


async def run(sizes: list[int], commits: int, searches: int) -> list[Figure]:
    figures: list[Figure] = []
    corpus = Corpus(random.Random(20261130))
    with tempfile.TemporaryDirectory(prefix="pcmem-bench-") as tmp:
        options = [("grpc.max_receive_message_length", MAX_MESSAGE_BYTES)]
        with server_process(Path(tmp) / "bench.sqlite3") as server:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}", options=options) as ch:
                stub = pb_grpc.MemoryServiceStub(ch)
                for size in sizes:
                    started = time.perf_counter()
                    memory = await _fill(stub, corpus, size)
                    fill_s = time.perf_counter() - started
                    samples, memory = await _commit_latencies(stub, corpus, memory, commits)
                    target = {1000: 10.0, 10000: 60.0}.get(size)
                    figures.append(
                        _figure(
                            f"commit 1 entry into {size:,} entries",
                            samples,
                            target,
                            f"(filled in {fill_s:.1f} s)",
                        )
                    )
                    queries = corpus.queries(searches)
                    await _search_latencies(stub, memory, queries[:5])  # warm the cache
                    samples, mean_hits = await _search_latencies(stub, memory, queries)
                    figures.append(
                        _figure(
                            f"FTS search over gRPC at {size:,} entries",
                            samples,
                            5.0 if size == 10000 else None,
                            f"(mean hits {mean_hits:.1f})",
                        )
                    )
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(prog="make bench", description=__doc__)
    parser.add_argument("--sizes", default="1000,10000", help="memory sizes, comma-separated")
    parser.add_argument("--commits", type=int, default=40, help="single-entry commits per size")
    parser.add_argument("--searches", type=int, default=200, help="search queries per size")
    parser.add_argument(
        "--hybrid-size",
        type=int,
        default=100_000,
        help="entries for the hybrid scenario on the real MiniLM model (0 skips it)",
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    figures = asyncio.run(run(sizes, args.commits, args.searches))
    if args.hybrid_size:
        from .hybrid import run_hybrid

        figures += asyncio.run(run_hybrid(args.hybrid_size, args.searches))
    print(f"\nPowerContext Memory bench — SQLite backend, {os.cpu_count()} cores")
    print(f"{'scenario':<44} {'median ms':>9} {'p95 ms':>9} {'target':>9} {'verdict':>11}")
    for figure in figures:
        print(figure.row())
    print("upstream reference: 798 ms to commit one entry at 1,000 entries; FTS p50 42-57 ms.")


if __name__ == "__main__":
    main()
