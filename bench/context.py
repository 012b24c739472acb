"""PrepareContext at 1,000 entries with a query: the server-side time (its server-timing
trailer, as the target is set on) and the round trip over gRPC.

The memory mixes kinds as an agent's memory does: about 5% constraints, 3% preferences and 5%
working notes among facts, so all three sections are filled. Queries are the corpus's search
queries; the budget is the default 8,192 bytes. Part of `make bench` (skip: --context-size 0).
"""

from __future__ import annotations

import time

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types

from .corpus import Corpus
from .report import Figure, figure

BATCH = 1000
KINDS = ["constraint"] * 5 + ["preference"] * 3 + ["working_note"] * 5 + ["fact"] * 87


async def _fill(stub: pb_grpc.MemoryServiceStub, corpus: Corpus, size: int) -> types.ArtifactRef:
    memory: types.ArtifactRef | None = None
    for start in range(0, size, BATCH):
        entries = [
            types.EntryInput(kind=KINDS[i % len(KINDS)], text=corpus.sentence())
            for i in range(start, min(size, start + BATCH))
        ]
        request = pb.RememberRequest(entries=entries, mode=pb.REMEMBER_MODE_APPEND)
        if memory is not None:
            request.memory.CopyFrom(memory)
        memory = (await stub.Remember(request)).memory
    assert memory is not None
    return memory


def _server_ms(trailers: object) -> float:
    for key, value in trailers or ():  # type: ignore[attr-defined]
        if key == "server-timing" and value.startswith("context;dur="):
            return float(value.split("=", 1)[1])
    raise RuntimeError("PrepareContext sent no server-timing trailer")


async def run_context(
    stub: pb_grpc.MemoryServiceStub, corpus: Corpus, size: int, runs: int
) -> list[Figure]:
    memory = await _fill(stub, corpus, size)
    head = types.ArtifactRef(artifact_id=memory.artifact_id)  # revision 0: the head
    queries = corpus.queries(runs)
    server, round_trip, lines, omitted = [], [], 0, 0
    for i, query in enumerate(queries[:5] + queries):
        started = time.perf_counter()
        call = stub.PrepareContext(pb.PrepareContextRequest(memories=[head], query=query))
        response = await call
        elapsed = (time.perf_counter() - started) * 1000
        if i < 5:
            continue  # warm-up: the manifest and projection reads are cached after the first
        server.append(_server_ms(await call.trailing_metadata()))
        round_trip.append(elapsed)
        lines += len(response.entries)
        omitted += response.omitted_entries
    note = f"mean lines {lines / len(queries):.1f}, omitted {omitted / len(queries):.1f}"
    return [
        figure(f"PrepareContext server-side at {size:,} entries", server, 10.0, note),
        figure(f"PrepareContext over gRPC at {size:,} entries", round_trip, None),
    ]
