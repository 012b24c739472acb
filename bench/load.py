"""The load generator of the throughput scenario: client processes, each with its own event
loop and its own connections, so the client side is not one Python thread's calls per second.

Each process keeps CHANNELS_PER_PROCESS channels, each on a TCP connection of its own, and
sends its share of the searches round-robin over them: with `serve --workers N` the kernel
spreads connections over the workers, so one slow connection cannot pin the load on one worker.
Every level reports the client processes' own CPU time, which is how the report shows whether
the load generator or the server was the limit.
"""

from __future__ import annotations

import asyncio
import itertools
import multiprocessing
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from powercontext.memory.v1 import types_pb2 as types

CHANNELS_PER_PROCESS = 8


@dataclass(frozen=True)
class Job:
    port: int
    memory: bytes  # a serialized types.ArtifactRef
    queries: list[str]
    mode: types.SearchMode
    concurrency: int
    total: int


@dataclass(frozen=True)
class Done:
    samples: list[float]  # ms per search
    started: float  # time.monotonic(): one clock for every process on the machine
    ended: float
    cpu_seconds: float  # this client process's own CPU for the job
    hits: int


async def _run_job(job: Job, stubs: list[Any]) -> Done:
    from powercontext.memory.v1 import memory_service_pb2 as pb

    memory = types.ArtifactRef.FromString(job.memory)
    queries = itertools.cycle(job.queries)
    channels = itertools.cycle(stubs)
    remaining = job.total
    samples: list[float] = []
    hits = 0

    async def slot() -> None:
        nonlocal remaining, hits
        while remaining > 0:
            remaining -= 1
            request = pb.SearchRequest(
                query=next(queries), memories=[memory], limit=8, mode=job.mode
            )
            started = time.perf_counter()
            response = await next(channels).Search(request)
            hits += len(response.hits)
            samples.append((time.perf_counter() - started) * 1000)

    cpu = time.process_time()
    started = time.monotonic()
    await asyncio.gather(*(slot() for _ in range(job.concurrency)))
    return Done(samples, started, time.monotonic(), time.process_time() - cpu, hits)


async def _serve_jobs(conn: Connection) -> None:
    import grpc

    from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc

    channels: dict[int, list[grpc.aio.Channel]] = {}
    try:
        while True:
            job = conn.recv()  # blocking is fine: nothing else runs while idle
            if job is None:
                return
            if job.port not in channels:  # a new server: new connections
                for old in channels.pop(next(iter(channels), -1), []):
                    await old.close()
                options = [("grpc.use_local_subchannel_pool", 1)]  # a connection each
                channels[job.port] = [
                    grpc.aio.insecure_channel(f"127.0.0.1:{job.port}", options=options)
                    for _ in range(CHANNELS_PER_PROCESS)
                ]
            stubs = [pb_grpc.MemoryServiceStub(channel) for channel in channels[job.port]]
            conn.send(await _run_job(job, stubs))
    finally:
        for opened in channels.values():
            for channel in opened:
                await channel.close()


def _client_main(conn: Connection) -> None:
    asyncio.run(_serve_jobs(conn))


@dataclass(frozen=True)
class LevelResult:
    samples: list[float]
    per_second: float
    client_cpu_seconds: float
    processes: int
    mean_hits: float


class LoadGenerator:
    """`processes` spawned client interpreters (never forked: grpc is loaded here)."""

    def __init__(self, processes: int) -> None:
        context = multiprocessing.get_context("spawn")
        self.pipes: list[Connection] = []
        self.processes = []
        for _ in range(processes):
            ours, theirs = context.Pipe()
            process = context.Process(target=_client_main, args=(theirs,), daemon=True)
            process.start()
            self.pipes.append(ours)
            self.processes.append(process)

    def __enter__(self) -> LoadGenerator:
        return self

    def __exit__(self, *exc: object) -> None:
        for pipe in self.pipes:
            pipe.send(None)
        for process in self.processes:
            process.join(timeout=10)
            if process.is_alive():
                process.kill()

    def run(
        self,
        port: int,
        memory: bytes,
        queries: list[str],
        mode: types.SearchMode,
        concurrency: int,
        total: int,
    ) -> LevelResult:
        """`total` searches by `concurrency` slots split over min(concurrency, processes)."""
        used = self.pipes[: min(concurrency, len(self.pipes))]
        for i, pipe in enumerate(used):
            slots = concurrency // len(used) + (i < concurrency % len(used))
            share = total // len(used) + (i < total % len(used))
            # Each process its own queries: a query asked twice is an answer-cache hit.
            pipe.send(Job(port, memory, queries[i :: len(used)], mode, slots, share))
        done: list[Done] = [pipe.recv() for pipe in used]
        wall = max(d.ended for d in done) - min(d.started for d in done)
        return LevelResult(
            [s for d in done for s in d.samples],
            total / wall,
            sum(d.cpu_seconds for d in done),
            len(used),
            sum(d.hits for d in done) / total,
        )
