"""Hybrid search over a real channel, from a `serve --embedding minilm` process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from tests.serving import serve_process

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def minilm_server(tmp_path: Path) -> Iterator[tuple[int, str]]:
    with serve_process(tmp_path / "m.sqlite3", "--embedding", "minilm") as served:
        yield served.port, served.line


async def test_hybrid_search_over_grpc(minilm_server: tuple[int, str]) -> None:
    port, line = minilm_server
    assert "vectors: minilm-l6-v2-int8" in line
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = pb_grpc.MemoryServiceStub(channel)
        caps = (await stub.GetCapabilities(pb.GetCapabilitiesRequest())).capabilities
        assert caps.vector and caps.hybrid
        assert caps.embedding_profile.dimension == 384
        assert caps.embedding_profile.profile_id == "minilm-l6-v2-int8"
        texts = [
            "Release script publishing packages lives in tools/ship.sh.",
            "Integration tests need a local PostgreSQL listening on port 5433.",
        ]
        created = await stub.Remember(
            pb.RememberRequest(entries=[types.EntryInput(kind="fact", text=t) for t in texts])
        )
        response = await stub.Search(
            pb.SearchRequest(
                query="Where is the program for shipping a new version?",
                memories=[created.memory],
                limit=8,
                mode=types.SEARCH_MODE_AUTO,
            )
        )
        assert response.mode == types.SEARCH_MODE_HYBRID
        assert response.hits[0].text == texts[0]
        assert list(response.hits[0].matched_by) == [types.SEARCH_CHANNEL_VECTOR]
