"""Request builders shared by the end-to-end tests."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable

import grpc

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types


def remember(memory: types.ArtifactRef | None, text: str) -> pb.RememberRequest:
    """Add one fact to `memory` (a new memory when None)."""
    request = pb.RememberRequest(entries=[types.EntryInput(kind="fact", text=text)])
    if memory is not None:
        request.memory.CopyFrom(memory)
    return request


async def race(
    *calls: Awaitable[pb.RememberResponse],
) -> tuple[list[pb.RememberResponse], list[grpc.aio.AioRpcError]]:
    """Run writes concurrently; (the ones that committed, the ones that failed)."""
    outcomes = await asyncio.gather(*calls, return_exceptions=True)
    wins = [o for o in outcomes if isinstance(o, pb.RememberResponse)]
    losses = [o for o in outcomes if isinstance(o, grpc.aio.AioRpcError)]
    assert len(wins) + len(losses) == len(outcomes), outcomes
    return wins, losses


async def remember_at_head(stub: pb_grpc.MemoryServiceStub, artifact_id: str, text: str) -> int:
    """Add `text` on whatever the head is, re-reading it after each ABORTED (the documented
    way to write under contention); returns how many attempts were ABORTED."""
    head_ref = types.ArtifactRef(artifact_id=artifact_id, revision=0)
    aborted = 0
    while True:
        head = (await stub.GetMemory(pb.GetMemoryRequest(memory=head_ref))).memory
        try:
            await stub.Remember(remember(head, text))
            return aborted
        except grpc.aio.AioRpcError as error:
            assert error.code() == grpc.StatusCode.ABORTED, error
            aborted += 1
