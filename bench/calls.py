"""The gRPC calls several scenarios time, in one place so each figure is measured the same way:
filling a memory, single-entry commits, searches and the server-timing trailer."""

from __future__ import annotations

import time

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types

from .corpus import Corpus

BATCH = 1000


async def fill_memory(
    stub: pb_grpc.MemoryServiceStub, corpus: Corpus, size: int
) -> types.ArtifactRef:
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


async def commit_latencies(
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


async def search_latencies(
    stub: pb_grpc.MemoryServiceStub,
    memory: types.ArtifactRef,
    queries: list[str],
    mode: types.SearchMode = types.SEARCH_MODE_FTS,
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
