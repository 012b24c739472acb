"""How similar a vector hit must be to count, per embedding model.

Cosine scales differ by model (USE-multilingual scores related pairs lower than MiniLM does), so
one floor for both would drop the multilingual model's true hits, and the vector channel's
admission floor follows the database's profile (hit@k per model: `make bench`,
bench/retrieval.py).
"""

from __future__ import annotations

from typing import Final

from ..domain.fusion import VECTOR_MIN_COSINE
from ..domain.models import EmbeddingProfile

_MIN_COSINE: Final[dict[str, float]] = {"use-multilingual-v3": 0.15}


def min_cosine(profile: EmbeddingProfile) -> float:
    """The vector admission floor for vectors of `profile` (the shared default otherwise)."""
    return _MIN_COSINE.get(profile.profile_id, VECTOR_MIN_COSINE)
