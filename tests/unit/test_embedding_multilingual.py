"""MultilingualEmbedder on the real USE-multilingual v3 weights: vectors, semantics, integrity."""

from __future__ import annotations

import asyncio
import json
import shutil
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import numpy as np
import pytest
import pytest_asyncio

from powercontext_memory.domain.fusion import check_embedding
from powercontext_memory.embedding.calibration import min_cosine
from powercontext_memory.embedding.factory import EmbeddingConfig, open_embedding_model
from powercontext_memory.embedding.multilingual import (
    DIMENSION,
    MAX_CHARS,
    TABLE_FILE,
    TOKENIZER_FILE,
    WEIGHTS_FILE,
    MultilingualEmbedder,
    _load_runtime,
    _resource,
    multilingual_profile,
)
from powercontext_memory.embedding.port import (
    EmbeddingUnavailableError,
    InferenceThread,
    ModelIntegrityError,
)

# One model load for the whole module: tests share its event loop.
pytestmark = pytest.mark.asyncio(loop_scope="module")

REFERENCE = Path(__file__).resolve().parents[1] / "data" / "use_multilingual_reference.json"

# A Chinese question, the entries that answer it in Chinese and in English, and unrelated ones.
QUERY = "推代码之前要做哪些检查？"
ANSWERS = [
    "推送之前先运行 make test，CI 会跑 ruff 和 mypy，有警告就失败。",
    "Run `make test` before pushing; the CI runs ruff and mypy and rejects any warning.",
]
UNRELATED = [
    "张经理只看邮件，不看即时消息。",
    "Backups run at 02:00 UTC and are kept for 30 days.",
    "The frontend bundle is built with Vite.",
    "证书由 cert-manager 自动续期。",
]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def embedder() -> AsyncIterator[MultilingualEmbedder]:
    model = await MultilingualEmbedder.open()
    yield model
    await model.close()


async def test_vectors_are_unit_length_of_the_profile_dimension(
    embedder: MultilingualEmbedder,
) -> None:
    result = await embedder.embed(["hello", "你好，世界", ""])
    assert result.vectors.shape == (3, DIMENSION) and result.vectors.dtype == np.float32
    for row in result.vectors:
        check_embedding(row, DIMENSION)  # the write path's own check
    assert embedder.profile == multilingual_profile()
    assert embedder.profile.dimension == DIMENSION == 512


async def test_a_chinese_query_ranks_both_answers_above_unrelated_entries(
    embedder: MultilingualEmbedder,
) -> None:
    vectors = (await embedder.embed([QUERY, *ANSWERS, *UNRELATED])).vectors
    scores = vectors[1:] @ vectors[0]
    answers, unrelated = scores[: len(ANSWERS)], scores[len(ANSWERS) :]
    assert answers.min() > unrelated.max(), scores
    # Both answers clear this model's admission floor; the unrelated entries do not.
    floor = min_cosine(embedder.profile)
    assert answers.min() >= floor > unrelated.max(), (floor, scores)


async def test_vectors_match_the_int8_onnx_reference(embedder: MultilingualEmbedder) -> None:
    # Reference: the original int8 ONNX graph of the same model (see the file's "source").
    reference = json.loads(REFERENCE.read_text(encoding="utf-8"))
    expected = np.asarray(reference["vectors"], dtype=np.float64)
    actual = (await embedder.embed(reference["texts"])).vectors.astype(np.float64)
    cosines = (expected * actual).sum(axis=1)
    assert cosines.min() >= 0.95 and cosines.mean() >= 0.97, cosines


async def test_a_vector_does_not_depend_on_its_batch(embedder: MultilingualEmbedder) -> None:
    texts = ["short", "a much longer English sentence about build conventions", "中文句子"]
    together = (await embedder.embed(texts)).vectors
    for i, text in enumerate(texts):
        alone = (await embedder.embed([text])).vectors[0]
        np.testing.assert_allclose(alone, together[i], atol=1e-5)


async def test_long_texts_are_cut_to_max_chars(embedder: MultilingualEmbedder) -> None:
    head = "数据库迁移必须向后兼容。" * (MAX_CHARS // 12 + 1)
    vectors = (await embedder.embed([head[:MAX_CHARS], head + "tail that is never read"])).vectors
    np.testing.assert_array_equal(vectors[0], vectors[1])


async def test_a_mapped_token_table_gives_the_same_vectors(
    embedder: MultilingualEmbedder, tmp_path: Path
) -> None:
    # Through the factory, as `serve --model-cache DIR` opens it.
    mapped = await open_embedding_model(
        EmbeddingConfig(kind="multilingual", model_cache=tmp_path / "cache")
    )
    assert isinstance(mapped, MultilingualEmbedder)
    try:
        texts = [QUERY, *ANSWERS, *UNRELATED, "ünïcödé 日本語 🙂"]
        expected = (await embedder.embed(texts)).vectors
        np.testing.assert_array_equal((await mapped.embed(texts)).vectors, expected)
        assert mapped._runtime is not None
        table = mapped._runtime.backend.table
        assert not table.flags.writeable and table.shape == (128_010, 512)
        assert (tmp_path / "cache" / TABLE_FILE).stat().st_size == table.nbytes
    finally:
        await mapped.close()


async def test_a_corrupted_weights_file_is_refused(tmp_path: Path) -> None:
    broken = tmp_path / WEIGHTS_FILE
    shutil.copyfile(_resource(WEIGHTS_FILE), broken)
    with broken.open("r+b") as file:
        file.seek(1000)
        byte = file.read(1)
        file.seek(1000)
        file.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(ModelIntegrityError, match="corrupted.*sha256"):
        _load_runtime(broken, _resource(TOKENIZER_FILE))
    with pytest.raises(ModelIntegrityError, match="cannot read"):
        _load_runtime(tmp_path / "missing.npz", _resource(TOKENIZER_FILE))


async def test_the_factory_refuses_options_of_another_profile() -> None:
    with pytest.raises(ValueError, match="dimension for multilingual is 512"):
        await open_embedding_model(EmbeddingConfig(kind="multilingual", dimension=384))


async def test_a_closed_embedder_refuses_work() -> None:
    model = MultilingualEmbedder()  # closing needs no loaded model (and saves loading another)
    await model.close()
    with pytest.raises(EmbeddingUnavailableError, match="closed"):
        await model.embed(["x"])


async def test_a_local_model_runs_every_call_on_its_one_thread() -> None:
    thread = InferenceThread("embedding-test")
    try:
        ran_on = {await thread.run(threading.get_ident) for _ in range(5)}
        ran_on |= set(await asyncio.gather(*(thread.run(threading.get_ident) for _ in range(5))))
    finally:
        thread.close()
    assert len(ran_on) == 1 and threading.get_ident() not in ran_on
