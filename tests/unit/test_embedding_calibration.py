"""The vector admission floor follows the database's embedding profile."""

from __future__ import annotations

import math

import numpy as np

from powercontext_memory.backends.port import VectorRow
from powercontext_memory.domain.fusion import VECTOR_MIN_COSINE
from powercontext_memory.domain.models import EmbeddingProfile
from powercontext_memory.embedding.calibration import min_cosine
from powercontext_memory.embedding.minilm import minilm_profile
from powercontext_memory.embedding.multilingual import multilingual_profile
from powercontext_memory.search.vector_index import MemoryVectors

PROFILE = EmbeddingProfile("test-profile", "test-model", 2)


def _row(entry: str, vector: np.ndarray) -> VectorRow:
    content_hash = entry.ljust(64, "0")
    bound = PROFILE.embedding_content_hash(content_hash)
    blob = vector.astype("<f4").tobytes()
    return VectorRow(
        entry, f"v_{entry}", content_hash, f"v_{entry}", content_hash, bound, blob, True
    )


def test_each_local_model_has_its_floor() -> None:
    assert min_cosine(multilingual_profile()) == 0.15
    assert min_cosine(minilm_profile()) == VECTOR_MIN_COSINE == 0.3
    assert min_cosine(EmbeddingProfile("http:m:8", "m", 8)) == VECTOR_MIN_COSINE


def test_a_memory_admits_by_its_own_floor() -> None:
    angle = math.acos(0.2)  # a stored vector at cosine 0.2 from the query
    query = np.array([1.0, 0.0], dtype=np.float32)
    stored = np.array([math.cos(angle), math.sin(angle)], dtype=np.float32)
    shared = MemoryVectors("mem", 1, 2)
    lower = MemoryVectors("mem", 1, 2, min_cosine=min_cosine(multilingual_profile()))
    for memory in (shared, lower):
        memory.put(_row("a", stored), PROFILE)
    assert shared.nearest(query, 8) == []
    assert [hit.key.entry_id for hit in lower.nearest(query, 8)] == ["a"]
