"""FTS search throughput at concurrency 1, 4 and 16 over one memory (issue 11's baseline).

One client process runs `concurrency` asyncio workers on one channel, each sending Search
(mode FTS, limit 8) back to back over a cycle of the corpus's queries, for a fixed number of
searches per level. The figure is the per-search latency at that concurrency; the note gives
searches per second (the server is the bottleneck on 2 cores long before this client is:
the client spends ~0.1 ms per call).
"""

from __future__ import annotations

import asyncio
import itertools
import time

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types

from .report import Figure, figure

LEVELS = (1, 4, 16)
TARGET_PER_SECOND = {16: 1500}  # issue 11


async def _level(
    stub: pb_grpc.MemoryServiceStub,
    memory: types.ArtifactRef,
    queries: list[str],
    concurrency: int,
    total: int,
) -> tuple[list[float], float]:
    """(latencies in ms, searches per second) for `total` searches by `concurrency` workers."""
    cycle = itertools.cycle(queries)
    remaining = total
    samples: list[float] = []

    async def worker() -> None:
        nonlocal remaining
        while remaining > 0:
            remaining -= 1
            request = pb.SearchRequest(
                query=next(cycle), memories=[memory], limit=8, mode=types.SEARCH_MODE_FTS
            )
            started = time.perf_counter()
            await stub.Search(request)
            samples.append((time.perf_counter() - started) * 1000)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return samples, total / (time.perf_counter() - started)


async def run_throughput(
    stub: pb_grpc.MemoryServiceStub,
    memory: types.ArtifactRef,
    queries: list[str],
    size: int,
    searches: int,
) -> list[Figure]:
    await _level(stub, memory, queries, 4, min(100, searches))  # warm caches and channel
    figures = []
    for concurrency in LEVELS:
        samples, per_second = await _level(stub, memory, queries, concurrency, searches)
        target = TARGET_PER_SECOND.get(concurrency)
        note = f"{per_second:,.0f} searches/s" + (f" (target >= {target:,}/s)" if target else "")
        figures.append(
            figure(f"FTS at concurrency {concurrency}, {size:,} entries", samples, None, note)
        )
    return figures
