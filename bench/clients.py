"""Client-side figures: what the Python client adds to a unary call over the raw generated stub,
and the wall time of `powercontext search` including process start, with what dominates it.

Raw and client calls are interleaved pair by pair (alternating which goes first) on one
channel to one server, so drift and noise on a shared 2-core machine hit both alike; the
figure is the distribution of per-pair differences (client minus raw).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext_client import AsyncClient, Client, new_entry

from .report import Figure, figure

PAIRS = 3000
CLI_RUNS = 30
SCRIPTS = Path(sys.executable).parent


async def _paired(
    first: Callable[[], Awaitable[Any]], second: Callable[[], Awaitable[Any]], pairs: int
) -> tuple[list[float], list[float]]:
    a, b = [], []
    for i in range(pairs):
        order = ((first, a), (second, b)) if i % 2 else ((second, b), (first, a))
        for call, samples in order:
            started = time.perf_counter()
            await call()
            samples.append((time.perf_counter() - started) * 1000)
    return a, b


def _paired_blocking(
    first: Callable[[], Any], second: Callable[[], Any], pairs: int
) -> tuple[list[float], list[float]]:
    """_paired for blocking calls (they run inside the coroutines; nothing else is waiting)."""

    async def run(call: Callable[[], Any]) -> Any:
        return call()

    return asyncio.run(_paired(lambda: run(first), lambda: run(second), pairs))


def _overhead(name: str, raw: list[float], wrapped: list[float]) -> list[Figure]:
    added = [w - r for r, w in zip(raw, wrapped, strict=True)]
    note = (
        f"raw p50 {statistics.median(raw):.3f} ms, client p50 {statistics.median(wrapped):.3f} ms"
    )
    return [figure(name, added, 0.2, note)]


async def client_overhead(port: int) -> tuple[list[Figure], str]:
    """GetMemory of a small memory: AsyncClient vs aio stub, Client vs sync stub."""
    endpoint = f"127.0.0.1:{port}"
    async with AsyncClient(endpoint) as client:
        memory = await client.remember(None, [new_entry("fact", f"e{i}") for i in range(10)])
        memory_id = memory.memory.artifact_id
        request = pb.GetMemoryRequest(memory=memory.memory)
        raw_stub = client.stub
        await _paired(
            lambda: raw_stub.GetMemory(request), lambda: client.get_memory(memory.memory), 300
        )
        raw, wrapped = await _paired(
            lambda: raw_stub.GetMemory(request), lambda: client.get_memory(memory.memory), PAIRS
        )
    figures = _overhead("AsyncClient adds to aio stub (GetMemory)", raw, wrapped)

    def blocking() -> tuple[list[float], list[float]]:
        with grpc.insecure_channel(endpoint) as channel, Client(endpoint) as sync_client:
            stub = pb_grpc.MemoryServiceStub(channel)
            _paired_blocking(
                lambda: stub.GetMemory(request), lambda: sync_client.get_memory(memory.memory), 300
            )
            return _paired_blocking(
                lambda: stub.GetMemory(request),
                lambda: sync_client.get_memory(memory.memory),
                PAIRS,
            )

    raw, wrapped = await asyncio.to_thread(blocking)
    figures += _overhead("Client adds to blocking stub (GetMemory)", raw, wrapped)
    return figures, memory_id


def _wall(command: list[str], runs: int, env: dict[str, str]) -> list[float]:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, env=env)
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def cli_search(port: int, memory_id: str) -> list[Figure]:
    """`powercontext search` end to end, beside its parts: the interpreter alone, and the
    interpreter plus the CLI's imports (the rest is parsing, connecting and the two calls)."""
    env = {**os.environ, "POWERCONTEXT_ENDPOINT": f"127.0.0.1:{port}"}
    command = [str(SCRIPTS / "powercontext"), "search", "e1", "-m", memory_id]
    _wall(command, 3, env)
    total = _wall(command, CLI_RUNS, env)
    bare = _wall([sys.executable, "-c", "pass"], CLI_RUNS, env)
    imports = _wall([sys.executable, "-c", "import powercontext_client.cli.app"], CLI_RUNS, env)
    p50 = statistics.median
    note = (
        f"interpreter {p50(bare):.0f} ms + imports {p50(imports) - p50(bare):.0f} ms "
        f"(grpc, asyncio, protobuf) + connect, head read, search {p50(total) - p50(imports):.0f} ms"
    )
    return [figure("powercontext search, wall incl. start", total, 300.0, note)]


async def run_clients(port: int) -> list[Figure]:
    figures, memory_id = await client_overhead(port)
    return figures + await asyncio.to_thread(cli_search, port, memory_id)
