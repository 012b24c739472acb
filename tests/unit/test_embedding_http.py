"""OpenAIEmbedder against a real local HTTP server that imitates an OpenAI embeddings API."""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
import socket
import threading
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

from powercontext_memory.domain.fusion import check_embedding
from powercontext_memory.embedding.factory import (
    DEFAULT_API_KEY_ENV,
    EmbeddingConfig,
    open_embedding_model,
)
from powercontext_memory.embedding.http import OpenAIEmbedder
from powercontext_memory.embedding.port import EmbeddingUnavailableError

MODEL = "test-embed-1"
DIMENSION = 8
API_KEY = "sk-test-Zq8secretKEY42"


def fake_vector(text: str, dimension: int = DIMENSION) -> list[float]:
    """Deterministic, deliberately NOT unit-length vector for `text`."""
    digest = hashlib.sha256(text.encode()).digest()
    return [float(digest[i % len(digest)] - 127.5) * 3.0 for i in range(dimension)]


def expected_unit(text: str) -> np.ndarray:
    vector = np.asarray(fake_vector(text), dtype=np.float64)
    return vector / np.linalg.norm(vector)


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class Behaviour:
    """What the test double does with the next requests (tests mutate it)."""

    api_key: str | None = None  # required bearer key, if any
    status: int | None = None  # answer this HTTP status instead of vectors
    location: str | None = None  # Location header sent with `status` (redirect tests)
    sleep: float = 0.0
    raw_body: bytes | None = None  # answer these bytes verbatim with 200
    # Applied to the list of items before it is sent: lets tests break one vector.
    mutate: Any = None
    requests: list[Recorded] = field(default_factory=list)


class FakeOpenAIEmbeddingsServer(ThreadingHTTPServer):
    """Test double of an OpenAI-compatible `POST /v1/embeddings` endpoint on 127.0.0.1.

    Vectors are derived from a hash of each input (not unit length) and the items are returned
    in shuffled index order, as a real server may.
    """

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _FakeEmbeddingsHandler)
        self.behaviour = Behaviour()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _FakeEmbeddingsHandler(BaseHTTPRequestHandler):
    server: FakeOpenAIEmbeddingsServer

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def do_GET(self) -> None:
        # Only reached if a client followed a redirect (urllib turns POST into GET).
        self.server.behaviour.requests.append(Recorded(self.path, dict(self.headers.items()), {}))
        self._send(405, {"error": {"message": "use POST"}})

    def do_POST(self) -> None:
        behaviour = self.server.behaviour
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        behaviour.requests.append(Recorded(self.path, dict(self.headers.items()), body))
        if behaviour.sleep:
            time.sleep(behaviour.sleep)
        # The client may have given up already (timeout tests).
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._answer(behaviour, body)

    def _answer(self, behaviour: Behaviour, body: dict[str, Any]) -> None:
        authorization = self.headers.get("Authorization")
        if behaviour.api_key is not None and authorization != f"Bearer {behaviour.api_key}":
            # Like OpenAI, echo (part of) the presented key back in the error body.
            self._send(401, {"error": {"message": f"Incorrect API key provided: {authorization}"}})
        elif self.path != "/v1/embeddings":
            self._send(404, {"error": {"message": f"no route {self.path}"}})
        elif body.get("model") != MODEL:
            self._send(404, {"error": {"message": f"model {body.get('model')} not found"}})
        elif behaviour.status is not None:
            extra = {"Location": behaviour.location} if behaviour.location else {}
            self._send(behaviour.status, {"error": {"message": "server exploded"}}, extra)
        elif behaviour.raw_body is not None:
            self._send_bytes(200, behaviour.raw_body)
        else:
            self._send(200, self._embeddings(behaviour, body["input"]))

    def _embeddings(self, behaviour: Behaviour, texts: list[str]) -> dict[str, Any]:
        items = [
            {"object": "embedding", "index": i, "embedding": fake_vector(t)}
            for i, t in enumerate(texts)
        ]
        random.Random(len(texts)).shuffle(items)
        if len(items) > 1 and items[0]["index"] == 0:
            items.reverse()  # always out of order, so reordering is really tested
        if behaviour.mutate is not None:
            items = behaviour.mutate(items)
        return {
            "object": "list",
            "model": MODEL,
            "data": items,
            "usage": {"prompt_tokens": 3 * len(texts), "total_tokens": 3 * len(texts)},
        }

    def _send(
        self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None
    ) -> None:
        # allow_nan (the default) writes the non-standard literals NaN/Infinity, like some servers.
        self._send_bytes(status, json.dumps(payload).encode(), headers)

    def _send_bytes(self, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    # A proxy from the environment must not intercept requests to the local test double.
    for name in (
        "http_proxy",
        "https_proxy",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "all_proxy",
        "ALL_PROXY",
    ):
        monkeypatch.delenv(name, raising=False)


@contextlib.contextmanager
def running_fake() -> Iterator[FakeOpenAIEmbeddingsServer]:
    """The test double serving on 127.0.0.1 from a thread, stopped afterwards."""
    fake = FakeOpenAIEmbeddingsServer()
    thread = threading.Thread(target=fake.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield fake
    finally:
        fake.shutdown()
        fake.server_close()
        thread.join()


@pytest.fixture
def server() -> Iterator[FakeOpenAIEmbeddingsServer]:
    with running_fake() as fake:
        yield fake


def make(server: FakeOpenAIEmbeddingsServer, **kwargs: Any) -> OpenAIEmbedder:
    return OpenAIEmbedder(server.base_url, MODEL, DIMENSION, **kwargs)


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_success_reorders_and_normalizes(server: FakeOpenAIEmbeddingsServer) -> None:
    texts = ["alpha", "beta", "gamma", "delta", "ünïcode ✓"]
    result = await make(server).embed(texts)
    assert result.vectors.dtype == np.float32
    assert result.vectors.shape == (len(texts), DIMENSION)
    for row, text in zip(result.vectors, texts, strict=True):
        np.testing.assert_allclose(row, expected_unit(text), atol=1e-6)
        check_embedding(row, DIMENSION)
    assert result.usage_tokens == 3 * len(texts)
    (request,) = server.behaviour.requests
    assert request.path == "/v1/embeddings"
    assert request.body == {"model": MODEL, "input": texts}
    assert request.headers["Content-Type"] == "application/json"


async def test_profile() -> None:
    default = OpenAIEmbedder("http://127.0.0.1:1/v1/", "nomic-embed", 768, None)
    assert default.profile.profile_id == "http:nomic-embed:768"
    assert (default.profile.model, default.profile.dimension) == ("nomic-embed", 768)
    assert (default.profile.distance, default.profile.normalization) == ("l2", "l2")
    assert default.url == "http://127.0.0.1:1/v1/embeddings"
    named = OpenAIEmbedder("http://h/v1", "m", 3, None, profile_id="team-profile")
    assert named.profile.profile_id == "team-profile"


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "ftp://host/v1", "127.0.0.1:8080/v1", "http://u:p@host/v1"]
)
def test_only_plain_http_urls(url: str) -> None:
    with pytest.raises(ValueError, match="base_url"):
        OpenAIEmbedder(url, MODEL, DIMENSION)


async def test_empty_input_sends_nothing(server: FakeOpenAIEmbeddingsServer) -> None:
    result = await make(server).embed([])
    assert result.vectors.shape == (0, DIMENSION)
    assert result.vectors.dtype == np.float32
    assert server.behaviour.requests == []


async def test_bearer_key_sent(server: FakeOpenAIEmbeddingsServer) -> None:
    server.behaviour.api_key = API_KEY
    await make(server, api_key=API_KEY).embed(["x"])
    assert server.behaviour.requests[0].headers["Authorization"] == f"Bearer {API_KEY}"


@pytest.mark.parametrize("key", [None, ""])
async def test_no_key_no_header(server: FakeOpenAIEmbeddingsServer, key: str | None) -> None:
    await make(server, api_key=key).embed(["x"])
    assert "Authorization" not in server.behaviour.requests[0].headers


async def test_http_500(server: FakeOpenAIEmbeddingsServer) -> None:
    server.behaviour.status = 500
    with pytest.raises(EmbeddingUnavailableError, match="HTTP 500.*server exploded"):
        await make(server).embed(["x"])


async def test_http_401_wrong_key(server: FakeOpenAIEmbeddingsServer) -> None:
    server.behaviour.api_key = "sk-the-right-one"
    with pytest.raises(EmbeddingUnavailableError, match="HTTP 401") as caught:
        await make(server, api_key=API_KEY).embed(["x"])
    # The server echoed our key in its body; the message must not repeat it.
    assert "Incorrect API key" in str(caught.value)
    assert API_KEY not in str(caught.value)


async def test_unknown_model_404(server: FakeOpenAIEmbeddingsServer) -> None:
    embedder = OpenAIEmbedder(server.base_url, "other-model", DIMENSION)
    with pytest.raises(EmbeddingUnavailableError, match="HTTP 404.*other-model"):
        await embedder.embed(["x"])


async def test_connection_refused() -> None:
    embedder = OpenAIEmbedder(f"http://127.0.0.1:{_closed_port()}/v1", MODEL, DIMENSION)
    with pytest.raises(EmbeddingUnavailableError, match="cannot connect"):
        await embedder.embed(["x"])


async def test_timeout(server: FakeOpenAIEmbeddingsServer) -> None:
    # The answer comes far later than any loaded machine takes to fire a 0.2 s timeout, so the
    # bound only tells "gave up at its timeout" from "waited for the server".
    server.behaviour.sleep = 60.0
    started = time.perf_counter()
    with pytest.raises(EmbeddingUnavailableError, match="timed out after 0.2s"):
        await make(server, timeout=0.2).embed(["x"])
    assert time.perf_counter() - started < 20.0
    assert len(server.behaviour.requests) == 1  # it reached the server, which never answered


async def test_redirect_is_not_followed(server: FakeOpenAIEmbeddingsServer) -> None:
    # urllib would follow a 302 as a GET, forwarding the Authorization header.
    server.behaviour.status = 302
    server.behaviour.location = server.base_url + "/embeddings"
    with pytest.raises(EmbeddingUnavailableError, match="HTTP 302"):
        await make(server, api_key=API_KEY).embed(["x"])
    assert len(server.behaviour.requests) == 1


def _set_vector(index: int, vector: Any) -> Any:
    def mutate(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for item in items:
            if item["index"] == index:
                item["embedding"] = vector
        return items

    return mutate


@pytest.mark.parametrize(
    ("mutate", "problem"),
    [
        (_set_vector(1, [float("nan")] * DIMENSION), "input 1 contains NaN or Infinity"),
        (_set_vector(0, [1.0] * (DIMENSION - 1) + [float("inf")]), "NaN or Infinity"),
        (_set_vector(2, [0.0] * DIMENSION), "input 2 is all zeros"),
        (_set_vector(1, [1.0] * (DIMENSION + 1)), f"dimension {DIMENSION + 1}, expected"),
        (_set_vector(1, ["1.0"] * DIMENSION), "not numbers"),
        (_set_vector(1, [None] * DIMENSION), "not numbers"),
        (_set_vector(1, "AAAA"), "not a list"),
        (lambda items: items[:-1], "2 vectors for 3 inputs"),
        (lambda items: [*items, items[0]], "4 vectors for 3 inputs"),
        (lambda items: [{**item, "index": 0} for item in items], "index 0 twice"),
        (lambda items: [{**item, "index": 7} for item in items], "no valid integer index"),
    ],
)
async def test_bad_vectors_fail_clearly(
    server: FakeOpenAIEmbeddingsServer, mutate: Any, problem: str
) -> None:
    server.behaviour.mutate = mutate
    with pytest.raises(EmbeddingUnavailableError) as caught:
        await make(server).embed(["a", "b", "c"])
    assert problem in str(caught.value)


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (b"<html>Bad Gateway</html>", "not valid JSON"),
        (b'{"data": [', "not valid JSON"),
        (b"\xff\xfe", "not valid JSON"),
        (b"[]", '"data" list'),
        (b'{"error": "no"}', '"data" list'),
        # The non-standard JSON literal NaN, exactly as some servers send it.
        (b'{"data": [{"index": 0, "embedding": [NaN, 1, 1, 1, 1, 1, 1, 1]}]}', "NaN or Infinity"),
        (b'{"data": [{"index": 0, "embedding": [1e400, 1, 1, 1, 1, 1, 1, 1]}]}', "Infinity"),
    ],
)
async def test_malformed_response(
    server: FakeOpenAIEmbeddingsServer, raw: bytes, problem: str
) -> None:
    server.behaviour.raw_body = raw
    with pytest.raises(EmbeddingUnavailableError, match=problem):
        await make(server).embed(["x"])


async def test_tiny_and_huge_vectors_are_normalized(server: FakeOpenAIEmbeddingsServer) -> None:
    server.behaviour.mutate = _set_vector(0, [1e-310] * DIMENSION)
    tiny = await make(server).embed(["a"])
    server.behaviour.mutate = _set_vector(0, [1e300] * DIMENSION)
    huge = await make(server).embed(["a"])
    for result in (tiny, huge):
        np.testing.assert_allclose(
            result.vectors[0], np.full(DIMENSION, DIMENSION**-0.5), rtol=1e-6
        )


async def test_batching_keeps_order(server: FakeOpenAIEmbeddingsServer) -> None:
    texts = [f"text number {i}" for i in range(8)]
    result = await make(server, batch_size=3).embed(texts)
    assert [len(r.body["input"]) for r in server.behaviour.requests] == [3, 3, 2]
    assert [t for r in server.behaviour.requests for t in r.body["input"]] == texts
    for row, text in zip(result.vectors, texts, strict=True):
        np.testing.assert_allclose(row, expected_unit(text), atol=1e-6)
    assert result.usage_tokens == 3 * len(texts)


async def test_default_batch_size_is_128(server: FakeOpenAIEmbeddingsServer) -> None:
    texts = [f"t{i}" for i in range(300)]
    result = await make(server).embed(texts)
    assert [len(r.body["input"]) for r in server.behaviour.requests] == [128, 128, 44]
    np.testing.assert_allclose(result.vectors[299], expected_unit("t299"), atol=1e-6)


async def test_one_bad_batch_fails_the_call(server: FakeOpenAIEmbeddingsServer) -> None:
    server.behaviour.mutate = _set_vector(1, [0.0] * DIMENSION)  # index 1 of every batch
    with pytest.raises(EmbeddingUnavailableError, match="all zeros"):
        await make(server, batch_size=2).embed(["a", "b", "c"])


@pytest.mark.parametrize("failure", ["401", "500", "refused", "timeout", "nan", "junk"])
async def test_key_never_in_errors(server: FakeOpenAIEmbeddingsServer, failure: str) -> None:
    base_url = server.base_url
    if failure == "401":
        server.behaviour.api_key = "sk-other"
    elif failure == "500":
        server.behaviour.status = 500
    elif failure == "refused":
        base_url = f"http://127.0.0.1:{_closed_port()}/v1"
    elif failure == "timeout":
        server.behaviour.sleep = 0.5
    elif failure == "nan":
        server.behaviour.mutate = _set_vector(0, [float("nan")] * DIMENSION)
    else:
        server.behaviour.raw_body = f"bad key {API_KEY}".encode()
    embedder = OpenAIEmbedder(base_url, MODEL, DIMENSION, API_KEY, timeout=0.2)
    with pytest.raises(EmbeddingUnavailableError) as caught:
        await embedder.embed(["x"])
    assert API_KEY not in str(caught.value)
    assert API_KEY not in "".join(traceback.format_exception(caught.value))


async def test_non_text_input_is_a_caller_bug(server: FakeOpenAIEmbeddingsServer) -> None:
    with pytest.raises(TypeError, match="texts must be str, got int"):
        await make(server).embed(["fine", 3])  # type: ignore[list-item]
    assert server.behaviour.requests == []


async def test_closed_embedder_is_unavailable(server: FakeOpenAIEmbeddingsServer) -> None:
    embedder = make(server)
    await embedder.close()
    with pytest.raises(EmbeddingUnavailableError, match="closed"):
        await embedder.embed(["x"])


async def test_factory_none() -> None:
    assert await open_embedding_model(EmbeddingConfig()) is None
    assert await open_embedding_model(EmbeddingConfig(kind="none")) is None


async def test_factory_http_reads_key_from_env(
    server: FakeOpenAIEmbeddingsServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(DEFAULT_API_KEY_ENV, API_KEY)
    server.behaviour.api_key = API_KEY
    config = EmbeddingConfig(kind="http", url=server.base_url, model=MODEL, dimension=DIMENSION)
    model = await open_embedding_model(config)
    assert isinstance(model, OpenAIEmbedder)
    assert model.profile.profile_id == f"http:{MODEL}:{DIMENSION}"
    assert (await model.embed(["x"])).vectors.shape == (1, DIMENSION)
    assert server.behaviour.requests[0].headers["Authorization"] == f"Bearer {API_KEY}"


async def test_factory_http_custom_env_and_profile(
    server: FakeOpenAIEmbeddingsServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(DEFAULT_API_KEY_ENV, raising=False)
    monkeypatch.setenv("MY_EMBED_KEY", "sk-custom")
    config = EmbeddingConfig(
        kind="http",
        url=server.base_url,
        model=MODEL,
        dimension=DIMENSION,
        api_key_env="MY_EMBED_KEY",
        profile_id="p1",
    )
    model = await open_embedding_model(config)
    assert model is not None and model.profile.profile_id == "p1"
    await model.embed(["x"])
    assert server.behaviour.requests[0].headers["Authorization"] == "Bearer sk-custom"


async def test_factory_http_without_key(
    server: FakeOpenAIEmbeddingsServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(DEFAULT_API_KEY_ENV, raising=False)
    config = EmbeddingConfig(kind="http", url=server.base_url, model=MODEL, dimension=DIMENSION)
    model = await open_embedding_model(config)
    assert model is not None
    await model.embed(["x"])
    assert "Authorization" not in server.behaviour.requests[0].headers


@pytest.mark.parametrize(
    ("config", "missing"),
    [
        (EmbeddingConfig(kind="http", model="m", dimension=3), "url"),
        (EmbeddingConfig(kind="http", url="http://h/v1", dimension=3), "model"),
        (EmbeddingConfig(kind="http", url="http://h/v1", model="m"), "dimension"),
        (EmbeddingConfig(kind="http"), "url, model, dimension"),
    ],
)
async def test_factory_http_missing_options(config: EmbeddingConfig, missing: str) -> None:
    with pytest.raises(ValueError, match=f"option\\(s\\): {missing}$"):
        await open_embedding_model(config)


async def test_factory_unknown_kind() -> None:
    with pytest.raises(ValueError, match="unknown embedding kind 'onnx'"):
        await open_embedding_model(EmbeddingConfig(kind="onnx"))  # type: ignore[arg-type]
