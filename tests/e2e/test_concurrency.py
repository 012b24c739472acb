"""Compare-and-swap over the wire: racing writers on one base revision. (Sixteen writers
with retries, on both backends: tests/robustness/test_contention.py.)"""

from __future__ import annotations

import grpc

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_client.errors import error_info

from .requests import race, remember


async def test_two_writers_on_one_base_exactly_one_wins(stub: pb_grpc.MemoryServiceStub) -> None:
    base = (await stub.Remember(remember(None, "base entry"))).memory
    wins, losses = await race(
        stub.Remember(remember(base, "writer one")), stub.Remember(remember(base, "writer two"))
    )
    assert len(wins) == 1 and len(losses) == 1
    assert wins[0].memory.revision == 2
    assert losses[0].code() == grpc.StatusCode.ABORTED
    reason, metadata = error_info(losses[0])
    assert reason == "REVISION_CONFLICT" and metadata["headRevision"] == "2"
    head = await stub.GetMemory(
        pb.GetMemoryRequest(memory=types.ArtifactRef(artifact_id=base.artifact_id, revision=0))
    )
    assert head.memory.revision == 2 and head.active_entries == 2
