"""How similar a vector hit must be to count, per embedding model.

Cosine scales differ by model: MiniLM puts related texts above ~0.3, while USE-multilingual's
related pairs sit between ~0.15 and ~0.45 and its unrelated ones mostly below 0.18 (measured on
bench/data/retrieval_*.jsonl: a 0.3 floor cut its vector hit@10 from 0.87 to 0.53). So the
vector channel's admission floor follows the database's profile.
"""

from __future__ import annotations

from typing import Final

from ..domain.fusion import VECTOR_MIN_COSINE
from ..domain.models import EmbeddingProfile

_MIN_COSINE: Final[dict[str, float]] = {"use-multilingual-v3": 0.15}


def min_cosine(profile: EmbeddingProfile) -> float:
    """The vector admission floor for vectors of `profile` (the shared default otherwise)."""
    return _MIN_COSINE.get(profile.profile_id, VECTOR_MIN_COSINE)
