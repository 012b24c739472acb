"""Full-text search cold and warm, over real gRPC (search package; docs/performance.md).

The server keeps a bounded cache of full-text answers keyed by the memories' head revisions
(search/answers.py): a repeated query at an unchanged head is answered without reading the
projection. So figures with repeated queries measure the cache, not the search. This scenario
reports both, on one memory of `size` entries:

- cold: distinct queries, each asked once (the cache cannot help; every search reads the
  database, ranks and verifies), one at a time and 16 at a time;
- warm: the same queries asked again at the same head (every answer comes from the cache).

`python -m bench.search_cache [--size N] [--searches N] [--backends sqlite,oceanbase]`
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from pathlib import Path

import grpc

from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_memory.transport.server import MAX_MESSAGE_BYTES

from . import backends
from .calls import fill_memory, search_latencies
from .corpus import Corpus
from .report import Figure, figure
from .server import server_process
from .side_by_side import print_side_by_side

CONCURRENCY = 16


async def _concurrent(
    stub: pb_grpc.MemoryServiceStub, memory: types.ArtifactRef, queries: list[str]
) -> tuple[list[float], float]:
    """Latencies and searches per second with CONCURRENCY searches in flight."""
    pending = list(reversed(queries))
    samples: list[float] = []

    async def worker() -> None:
        while pending:
            found, _ = await search_latencies(stub, memory, [pending.pop()])
            samples.extend(found)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
    return samples, len(queries) / (time.perf_counter() - started)


async def run_search_cache(
    backend: str, server: str | None, size: int = 10_000, searches: int = 300
) -> list[Figure]:
    corpus = Corpus(random.Random(20261211))
    options = [("grpc.max_receive_message_length", MAX_MESSAGE_BYTES)]
    with tempfile.TemporaryDirectory(prefix="pcmem-bench-search-") as tmp:
        async with backends.database(backend, Path(tmp), server, "pcm_search") as location:
            with server_process(location, "--embedding", "none") as served:
                async with grpc.aio.insecure_channel(
                    f"127.0.0.1:{served.port}", options=options
                ) as ch:
                    stub = pb_grpc.MemoryServiceStub(ch)
                    memory = await fill_memory(stub, corpus, size)
                    queries = list(dict.fromkeys(corpus.queries(4 * searches)))
                    one, burst = queries[:searches], queries[searches : 2 * searches]
                    await search_latencies(stub, memory, queries[-5:])  # connections, caches
                    cold, hits = await search_latencies(stub, memory, one)
                    warm, _ = await search_latencies(stub, memory, one)
                    cold16, cold_rate = await _concurrent(stub, memory, burst)
                    warm16, warm_rate = await _concurrent(stub, memory, burst)
    at = f"{size:,} entries"
    return [
        figure(f"FTS cold (distinct queries) at {at}", cold, 5.0, f"mean hits {hits:.1f}"),
        figure(f"FTS warm (same queries again) at {at}", warm, None, "answer cache"),
        figure(
            f"FTS cold at concurrency {CONCURRENCY}, {at}",
            cold16,
            None,
            f"{cold_rate:,.0f} searches/s",
        ),
        figure(
            f"FTS warm at concurrency {CONCURRENCY}, {at}",
            warm16,
            None,
            f"{warm_rate:,.0f} searches/s",
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.search_cache", description=__doc__)
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--searches", type=int, default=300)
    parser.add_argument("--backends", default="sqlite")
    args = parser.parse_args()
    results: dict[str, list[Figure]] = {}
    for backend in args.backends.split(","):
        if backend == "sqlite":
            results[backend] = asyncio.run(
                run_search_cache(backend, None, args.size, args.searches)
            )
            continue
        with backends.seekdb_server() as server:
            results[backend] = asyncio.run(
                run_search_cache(backend, server, args.size, args.searches)
            )
    print_side_by_side(results)


if __name__ == "__main__":
    main()
