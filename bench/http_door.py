"""Search over gRPC and over the HTTP door, side by side: what the door's translation costs.

One server process (full text, no model) serves both; a memory of `size` entries is filled over
gRPC. Each level sends `searches` full-text Searches (limit 8) at concurrency 1 and 16 from this
process, on three paths: gRPC (a grpc.aio channel), the door with JSON (aiohttp's client, one
keep-alive connection per concurrent caller), and the door with binary protobuf
(`application/proto`, to tell the JSON mapping's share from the HTTP hop's). The door forwards
each call as a gRPC call over the server's Unix socket, so its figure is the gRPC path plus
one more hop inside the server. At concurrency 16 the client shares the 2 cores with the
server: compare the paths with each other, not with the throughput scenario.
Part of `make bench` (skip: --http-door-size 0); alone: `python -m bench.http_door`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import aiohttp
import grpc

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_memory.serving.config import ServeConfig
from powercontext_memory.serving.startup import serving_http_port, serving_port
from powercontext_memory.transport.server import MAX_MESSAGE_BYTES

from .calls import fill_memory
from .corpus import Corpus
from .report import Figure, figure
from .side_by_side import print_side_by_side

LEVELS = (1, 16)
SEARCH_PATH = "/powercontext.memory.v1.MemoryService/Search"
WARM_UP = 20
Search = Callable[[str], Awaitable[int]]  # one search: its hit count


@contextlib.contextmanager
def _server(database: Path) -> Iterator[tuple[int, int]]:
    """`serve` with the door, as deployed: (gRPC port, HTTP port)."""
    config = ServeConfig(database=str(database), listen="127.0.0.1:0", embedding="none")
    command = [sys.executable, "-m", "powercontext_memory", *config.argv()]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        grpc_port, http_port = serving_port(line), serving_http_port(line)
        if grpc_port is None or http_port is None:
            raise RuntimeError(f"server did not start with its door: {line!r}")
        yield grpc_port, http_port
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


async def _measure(search: Search, queries: list[str], concurrency: int) -> tuple[list[float], int]:
    """Per-search latencies (ms) of `queries` sent by `concurrency` callers, and total hits."""
    pending = iter(queries)
    samples: list[float] = []
    hits = 0

    async def caller() -> None:
        nonlocal hits
        for query in pending:
            started = time.perf_counter()
            found = await search(query)  # not `hits += await`: that reads hits before awaiting
            samples.append((time.perf_counter() - started) * 1000)
            hits += found

    await asyncio.gather(*(caller() for _ in range(concurrency)))
    return samples, hits


def _grpc_search(stub: pb_grpc.MemoryServiceStub, memory: types.ArtifactRef) -> Search:
    async def search(query: str) -> int:
        request = pb.SearchRequest(
            query=query, memories=[memory], limit=8, mode=types.SEARCH_MODE_FTS
        )
        return len((await stub.Search(request)).hits)

    return search


def _door_search(
    session: aiohttp.ClientSession, url: str, memory: types.ArtifactRef, codec: str
) -> Search:
    ref = {"artifactId": memory.artifact_id, "revision": str(memory.revision)}

    async def search(query: str) -> int:
        if codec == "json":
            body = {"query": query, "memories": [ref], "limit": 8, "mode": "SEARCH_MODE_FTS"}
            async with session.post(url, json=body) as response:
                assert response.status == 200, await response.text()
                return len((await response.json()).get("hits", ()))
        request = pb.SearchRequest(
            query=query, memories=[memory], limit=8, mode=types.SEARCH_MODE_FTS
        )
        headers = {"Content-Type": "application/proto"}
        async with session.post(url, data=request.SerializeToString(), headers=headers) as response:
            assert response.status == 200, await response.text()
            return len(pb.SearchResponse.FromString(await response.read()).hits)

    return search


async def run_http_door(size: int, searches: int) -> list[Figure]:
    corpus = Corpus(random.Random(20261205))
    # Every search asks a query once: the server caches full-text answers per head (see
    # bench/search_cache.py), and a repeated query would measure that cache.
    needed = searches * len(LEVELS) * 3 + WARM_UP * 3
    queries = iter(list(dict.fromkeys(corpus.queries(2 * needed)))[:needed])
    with (
        tempfile.TemporaryDirectory(prefix="pcmem-bench-http-") as tmp,
        _server(Path(tmp) / "memory.sqlite3") as (grpc_port, http_port),
    ):
        return await _compare(grpc_port, http_port, corpus, size, searches, queries)


async def _compare(
    grpc_port: int, http_port: int, corpus: Corpus, size: int, searches: int, queries: Iterator[str]
) -> list[Figure]:
    options = [("grpc.max_receive_message_length", MAX_MESSAGE_BYTES)]
    connector = aiohttp.TCPConnector(limit=max(LEVELS))
    async with (
        grpc.aio.insecure_channel(f"127.0.0.1:{grpc_port}", options=options) as channel,
        aiohttp.ClientSession(connector=connector) as session,
    ):
        stub = pb_grpc.MemoryServiceStub(channel)
        memory = await fill_memory(stub, corpus, size)
        url = f"http://127.0.0.1:{http_port}{SEARCH_PATH}"
        paths = {
            "gRPC": _grpc_search(stub, memory),
            "door JSON": _door_search(session, url, memory, "json"),
            "door proto": _door_search(session, url, memory, "proto"),
        }
        for search in paths.values():  # connections open, the door's first calls made
            await _measure(search, list(itertools.islice(queries, WARM_UP)), max(LEVELS))
        figures = []
        for level in LEVELS:
            for name, search in paths.items():
                batch = list(itertools.islice(queries, searches))
                samples, hits = await _measure(search, batch, level)
                figures.append(
                    figure(
                        f"Search at {size:,}, {name}, {level} caller(s)",
                        samples,
                        None,
                        f"mean hits {hits / len(samples):.1f}",
                    )
                )
        return figures


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.http_door", description=__doc__)
    parser.add_argument("--size", type=int, default=10_000, help="entries in the memory")
    parser.add_argument("--searches", type=int, default=400, help="searches per path and level")
    args = parser.parse_args()
    print_side_by_side({"sqlite": asyncio.run(run_http_door(args.size, args.searches))})


if __name__ == "__main__":
    main()
