"""Concurrent calls each echo their own request id: the observing interceptor wraps each
method's handler once and finds every call's own observation (transport/interceptor.py)."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types

KEY = "x-request-id"


def echoed(metadata: Any) -> str:
    values = [value for key, value in metadata or () if key == KEY]
    assert len(values) == 1, metadata
    return str(values[0])


async def _search(stub: pb_grpc.MemoryServiceStub, memory: types.ArtifactRef, i: int) -> str:
    call = stub.Search(
        pb.SearchRequest(query=f"note {i}", memories=[memory], limit=3),
        metadata=((KEY, f"search-{i}"),),
    )
    await call
    return echoed(await call.trailing_metadata())


async def _failing(stub: pb_grpc.MemoryServiceStub, i: int) -> str:
    call = stub.Search(pb.SearchRequest(query="", limit=3), metadata=((KEY, f"bad-{i}"),))
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    return echoed(caught.value.trailing_metadata())


async def test_interleaved_calls_echo_their_own_ids(stub: pb_grpc.MemoryServiceStub) -> None:
    created = await stub.Remember(
        pb.RememberRequest(
            entries=[types.EntryInput(kind="fact", text=f"note {i}") for i in range(5)]
        )
    )
    calls = [_search(stub, created.memory, i) for i in range(24)]
    calls += [_failing(stub, i) for i in range(8)]
    got = await asyncio.gather(*calls)
    assert got == [f"search-{i}" for i in range(24)] + [f"bad-{i}" for i in range(8)]
