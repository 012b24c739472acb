"""Search throughput at concurrency 1, 4 and 16, FTS and hybrid, by `serve --workers N`.

One memory of `size` entries is filled once through a `serve --embedding multilingual` process (so
hybrid has vectors; `--embedding none` when only FTS is measured); then, for each worker count,
the same server with `--workers N`
answers the load of bench/load.py: client processes with their own connections, `total`
searches per level (Search, limit 8). Per (mode, workers, concurrency): the latency of a
search under that load, and in the note searches/s, the client processes' CPU per search (the
load generator's own cost: if it neared the wall time × client processes, the client was the
limit) and the server's CPU per search (sum over its processes). At the end of each worker
count, the server's resident memory, summed over its processes (supervisor and workers).

The machine is shared: on 2 cores the clients and the server compete for the same cores, so
server CPU per search is the figure that says what more cores would give.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import tempfile
from collections.abc import Sequence
from pathlib import Path

import grpc

from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_memory.transport.server import MAX_MESSAGE_BYTES

from . import backends
from .calls import fill_memory
from .corpus import Corpus
from .load import LevelResult, LoadGenerator
from .report import Figure, figure
from .server import server_process
from .side_by_side import print_side_by_side

LEVELS = (1, 4, 16)
MODES = {"fts": types.SEARCH_MODE_FTS, "hybrid": types.SEARCH_MODE_HYBRID}
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def server_pids(pid: int) -> list[int]:
    """`pid` and its children (the workers of `serve --workers N`)."""
    children = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:  # gone meanwhile
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                children.append(int(entry.name))
    return [pid, *children]


def cpu_seconds(pids: Sequence[int]) -> float:
    """User + system CPU of these processes so far."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15)
    return total / CLOCK_TICKS


def rss_mb(pids: Sequence[int]) -> float:
    """Resident memory of these processes, summed (VmRSS)."""
    total_kb = 0
    for pid in pids:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total_kb += int(line.split()[1])
    return total_kb / 1024


def _figure(
    mode: str,
    workers: int,
    concurrency: int,
    size: int,
    level: LevelResult,
    server_cpu: float,
    warm: bool = False,
) -> Figure:
    total = len(level.samples)
    note = (
        f"{level.per_second:,.0f} searches/s, mean hits {level.mean_hits:.1f}; "
        f"client CPU {level.client_cpu_seconds / total * 1000:.2f} ms/search "
        f"({level.processes} proc), server CPU {server_cpu / total * 1000:.2f} ms/search"
    )
    asked = "50 repeated queries (answer cache)" if warm else "distinct queries"
    name = f"{mode} at concurrency {concurrency}, {size:,} entries, --workers {workers}, {asked}"
    found = figure(name, level.samples, None, note)
    found.rate = level.per_second
    return found


def _embedding(modes: Sequence[str]) -> list[str]:
    """The model only when hybrid is measured: it costs the fill its embeddings."""
    return ["--embedding", "multilingual" if "hybrid" in modes else "none"]


async def _fill_on_a_server(
    location: str, corpus: Corpus, size: int, modes: Sequence[str]
) -> types.ArtifactRef:
    options = [("grpc.max_receive_message_length", MAX_MESSAGE_BYTES)]
    with server_process(location, *_embedding(modes)) as served:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{served.port}", options=options) as ch:
            return await fill_memory(pb_grpc.MemoryServiceStub(ch), corpus, size)


def _measure(
    location: str,
    memory: types.ArtifactRef,
    queries: list[str],
    size: int,
    searches: int,
    workers: Sequence[int],
    modes: Sequence[str],
    load: LoadGenerator,
) -> list[Figure]:
    figures = []
    for count in workers:
        several = ["--workers", str(count)] if count > 1 else []  # 1: the default, as deployed
        with server_process(location, *_embedding(modes), *several) as served:
            pids = server_pids(served.pid)
            fresh = iter(queries)
            for mode in modes:
                ref = memory.SerializeToString()

                def run(concurrency: int, total: int, asked: list[str]) -> LevelResult:
                    return load.run(served.port, ref, asked, MODES[mode], concurrency, total)  # noqa: B023

                warm = min(100, searches)
                run(4, warm, [next(fresh) for _ in range(warm)])  # connections, model, pages
                for concurrency in LEVELS:
                    # Cold: every search a query not asked before (no answer-cache hit).
                    asked = [next(fresh) for _ in range(searches)]
                    before = cpu_seconds(pids)
                    level = run(concurrency, searches, asked)
                    used = cpu_seconds(pids) - before
                    figures.append(_figure(mode, count, concurrency, size, level, used))
                if mode == "fts":  # warm: 50 queries asked again and again, as agents repeat
                    repeated = asked[:50]
                    run(16, 100, repeated)
                    before = cpu_seconds(pids)
                    level = run(16, searches, repeated)
                    used = cpu_seconds(pids) - before
                    figures.append(_figure(mode, count, 16, size, level, used, warm=True))
            rss = rss_mb(pids)
        figures.append(
            Figure(
                f"server RSS in MB after these, --workers {count}",
                rss,
                float("nan"),
                None,
                f"sum over {len(pids)} process(es); "
                + ("one model per worker" if "hybrid" in modes else "no model"),
            )
        )
    return figures


async def run_throughput(
    backend: str,
    server: str | None,
    size: int,
    searches: int,
    workers: Sequence[int] = (1, 2),
    modes: Sequence[str] = ("fts", "hybrid"),
    client_processes: int = 2,
) -> list[Figure]:
    """The throughput figures on `backend` (`server`: the seekdb DSN for oceanbase)."""
    with tempfile.TemporaryDirectory(prefix="pcmem-bench-throughput-") as tmp:
        async with backends.database(backend, Path(tmp), server, "pcm_throughput") as location:
            # One corpus for the entries and the queries: a corpus's vocabulary is its seed's.
            corpus = Corpus(random.Random(20261202))
            memory = await _fill_on_a_server(location, corpus, size, modes)
            # Distinct queries for every search of every level (see _measure).
            needed = len(workers) * len(modes) * (len(LEVELS) + 1) * searches + 200
            queries = list(dict.fromkeys(corpus.queries(2 * needed)))[:needed]
            with LoadGenerator(client_processes) as load:
                return await asyncio.to_thread(
                    _measure, location, memory, queries, size, searches, workers, modes, load
                )


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.throughput", description=__doc__)
    parser.add_argument("--backend", default="sqlite", choices=backends.BACKENDS)
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--searches", type=int, default=600, help="searches per level")
    parser.add_argument("--workers", default="1,2", help="worker counts, comma-separated")
    parser.add_argument("--modes", default="fts,hybrid", help="fts,hybrid or one of them")
    parser.add_argument("--client-processes", type=int, default=2)
    args = parser.parse_args()

    def run(server: str | None) -> list[Figure]:
        return asyncio.run(
            run_throughput(
                args.backend,
                server,
                args.size,
                args.searches,
                [int(w) for w in args.workers.split(",")],
                args.modes.split(","),
                args.client_processes,
            )
        )

    if args.backend == "oceanbase":
        with backends.seekdb_server() as server:
            figures = run(server)
    else:
        figures = run(None)
    print_side_by_side({args.backend: figures})


if __name__ == "__main__":
    main()
