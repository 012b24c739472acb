"""`serve --embedding http` against a local OpenAI-compatible test double, end to end."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from tests.serving import serve_process
from tests.unit.test_embedding_http import (
    API_KEY,
    DIMENSION,
    MODEL,
    FakeOpenAIEmbeddingsServer,
    running_fake,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def endpoint() -> Iterator[FakeOpenAIEmbeddingsServer]:
    with running_fake() as fake:
        fake.behaviour.api_key = API_KEY
        yield fake


@pytest.fixture
def http_server(tmp_path: Path, endpoint: FakeOpenAIEmbeddingsServer) -> Iterator[int]:
    options = [
        "--embedding",
        "http",
        "--embedding-url",
        endpoint.base_url,
        "--embedding-model",
        MODEL,
        "--embedding-dimension",
        str(DIMENSION),
    ]
    key = {"POWERCONTEXT_EMBEDDING_API_KEY": API_KEY}
    with serve_process(tmp_path / "h.sqlite3", *options, env=key) as served:
        assert f"vectors: http:{MODEL}:{DIMENSION}" in served.line, served.line
        yield served.port


async def test_http_embeddings_back_vector_search(
    http_server: int, endpoint: FakeOpenAIEmbeddingsServer
) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{http_server}") as channel:
        stub = pb_grpc.MemoryServiceStub(channel)
        caps = (await stub.GetCapabilities(pb.GetCapabilitiesRequest())).capabilities
        assert caps.vector and caps.embedding_profile.dimension == DIMENSION
        texts = ["alpha note about builds", "beta note about releases", "gamma note"]
        created = await stub.Remember(
            pb.RememberRequest(entries=[types.EntryInput(kind="fact", text=t) for t in texts])
        )
        assert any(r.body.get("input") == texts for r in endpoint.behaviour.requests)
        # The test double's vectors are a hash of the text: the same text is at distance 0.
        response = await stub.Search(
            pb.SearchRequest(
                query=texts[1], memories=[created.memory], limit=8, mode=types.SEARCH_MODE_VECTOR
            )
        )
        assert response.hits[0].text == texts[1]
        assert all(
            r.headers.get("Authorization") == f"Bearer {API_KEY}"
            for r in endpoint.behaviour.requests
        )
