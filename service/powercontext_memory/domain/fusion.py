"""Relevance admission and reciprocal rank fusion, shared by every search backend.

Each channel (full-text, vector, ...) first admits candidates on its own evidence, so a weak
match in one channel cannot ride in on rank alone; admitted candidates are then fused with RRF,
which needs only ranks and so never compares BM25 scores with cosine similarities (a channel's
vote adds to another's only within its first AGREEMENT_RANKS). Ordering is
fully deterministic: equal scores fall back to the hit identity as UTF-8 bytes, which is also
how every storage backend compares these ids.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from typing import Any, Final, NamedTuple

import numpy as np
import numpy.typing as npt

RRF_K: Final = 60
# A channel's vote adds to another's only within its first ranks (what an agent reads): past
# them, many hits that two channels both rank 10th-40th outscored a first in one channel.
AGREEMENT_RANKS: Final = 10
VECTOR_MIN_COSINE: Final = 0.3
UNIT_NORM_TOLERANCE: Final = 1e-3

# Channels with a fixed place in `matched_by`; any others follow alphabetically.
_KNOWN_CHANNELS: Final = ("fts", "vector")


def candidate_pool_size(limit: int) -> int:
    """How many candidates each channel fetches before admission and fusion."""
    return max(limit * 4, 32)


def fts_required_matches(term_count: int) -> int:
    """Distinct query terms a document must contain to be admitted by full-text search.

    Short queries need one term; longer ones need a quarter of their terms (at least two), so
    a long CJK query, whose bigrams multiply its term count, is not admitted by one shared
    character.
    """
    if term_count < 0:
        raise ValueError(f"term_count must be >= 0, got {term_count}")
    if term_count <= 2:
        return 1
    return max(2, -(-term_count // 4))  # integer ceil(term_count / 4): no float rounding


def fts_matched_terms(query_terms: Sequence[str], document_tokens: Iterable[str]) -> int:
    """Number of distinct query terms present among the document's tokens."""
    tokens = frozenset(document_tokens)
    return sum(1 for term in frozenset(query_terms) if term in tokens)


def fts_admits(query_terms: Sequence[str], document_tokens: Iterable[str]) -> bool:
    """Whether the document shares enough distinct terms with the query."""
    required = fts_required_matches(len(frozenset(query_terms)))
    return fts_matched_terms(query_terms, document_tokens) >= required


def cosine_from_l2(distance: float) -> float:
    """Cosine similarity from the L2 distance between two unit vectors."""
    return 1.0 - distance * distance / 2.0


def vector_admits(distance: float, min_cosine: float = VECTOR_MIN_COSINE) -> bool:
    """Whether a vector hit at this L2 distance is similar enough to keep (`min_cosine`: the
    model's floor, embedding/calibration.py)."""
    return cosine_from_l2(distance) >= min_cosine


def is_unit_norm(vector: npt.NDArray[Any]) -> bool:
    """Whether the vector's Euclidean norm is 1 within UNIT_NORM_TOLERANCE."""
    # float64 accumulation so that long float32 vectors are not misjudged by rounding.
    norm = float(np.linalg.norm(np.asarray(vector, dtype=np.float64)))
    return abs(norm - 1.0) <= UNIT_NORM_TOLERANCE


def valid_embedding_rows(matrix: npt.NDArray[np.float32]) -> npt.NDArray[np.bool_]:
    """Per row of a (rows × dimension) float32 matrix: finite, not all zeros and unit-norm,
    the checks of check_embedding done for many stored vectors at once."""
    with np.errstate(over="ignore", invalid="ignore"):
        finite = np.isfinite(matrix).all(axis=1)
        norms = np.linalg.norm(matrix.astype(np.float64), axis=1)
    nonzero = matrix.any(axis=1)
    return finite & nonzero & (np.abs(norms - 1.0) <= UNIT_NORM_TOLERANCE)


def check_embedding(vector: npt.ArrayLike, dimension: int) -> npt.NDArray[np.float32]:
    """Validate an embedding and return it as a new 1-D float32 array.

    Distances are only meaningful as cosines for finite unit vectors of the index dimension,
    so anything else is refused with ValueError rather than stored.
    """
    if dimension <= 0:
        raise ValueError(f"embedding dimension must be positive, got {dimension}")
    array = np.asarray(vector)
    if array.dtype.kind not in "iuf":
        raise ValueError(f"embedding must be real numbers, got dtype {array.dtype}")
    if array.ndim != 1:
        raise ValueError(f"embedding must be 1-dimensional, got shape {array.shape}")
    if array.size == 0:
        raise ValueError("embedding is empty")
    if array.size != dimension:
        raise ValueError(f"embedding has dimension {array.size}, expected {dimension}")
    # Finiteness is checked after the cast because a huge float64 overflows to infinity there.
    with np.errstate(over="ignore"):
        result = np.array(array, dtype=np.float32, copy=True)
    if not np.all(np.isfinite(result)):
        raise ValueError("embedding contains NaN or Infinity")
    if not np.any(result):
        raise ValueError("embedding is all zeros")
    if not is_unit_norm(result):
        norm = float(np.linalg.norm(result.astype(np.float64)))
        raise ValueError(
            f"embedding is not unit-norm (norm {norm:.6f}, tolerance {UNIT_NORM_TOLERANCE})"
        )
    return result


class HitKey(NamedTuple):
    """Identity of one search hit: a specific version of an entry in a memory artifact.

    A named tuple rather than a dataclass: every search hashes and builds dozens of these, and
    tuple hashing and construction run in C."""

    memory_artifact_id: str
    entry_id: str
    entry_version_id: str

    def sort_key(self) -> tuple[str, str, str]:
        """Tie-break order: the UTF-8 bytes of memory id, entry id and version id, matching
        byte-wise collation in the stores. UTF-8 byte order is code point order, which is how
        Python compares strings, so the strings themselves sort that way (without encoding)."""
        return (self.memory_artifact_id, self.entry_id, self.entry_version_id)


class FusedHit(NamedTuple):
    """A hit after fusion: its RRF score, the channels that ranked it and its rank in each
    (parallel to matched_by)."""

    key: HitKey
    score: float
    matched_by: tuple[str, ...]
    ranks: tuple[int, ...]


def rrf_fuse(channels: Mapping[str, Sequence[HitKey]]) -> list[FusedHit]:
    """Fuse per-channel rankings of admitted hits with reciprocal rank fusion.

    Each channel lists hits best first; a hit's term in a channel is 1 / (RRF_K + rank), rank
    starting at 1. Its score is the sum of its terms from the channels that rank it within
    their first AGREEMENT_RANKS; a hit no channel ranks that high scores its best term alone.
    Duplicates within a channel keep their first rank and do not push later hits down. Output
    is by score descending, then `HitKey.sort_key()`.
    """
    if len(channels) == 1:
        # One channel: scores fall strictly with rank, so its order is the fused order, and
        # each score is 0.0 + 1 / (RRF_K + rank), the same float as below.
        ((name, keys),) = channels.items()
        matched = (name,)
        return [
            _fused_hit((key, 1.0 / (RRF_K + rank), matched, (rank,)))
            for rank, key in enumerate(dict.fromkeys(keys), start=1)
        ]
    agreed: dict[HitKey, float] = {}  # the sum of terms within AGREEMENT_RANKS
    best: dict[HitKey, float] = {}
    matched_by: dict[HitKey, tuple[str, ...]] = {}
    ranks: dict[HitKey, tuple[int, ...]] = {}
    # A fixed channel order makes the float sums, and so exact ties, independent of the
    # mapping's insertion order.
    for name in _channel_order(channels):
        for rank, key in enumerate(dict.fromkeys(channels[name]), start=1):
            term = 1.0 / (RRF_K + rank)
            if rank <= AGREEMENT_RANKS:
                agreed[key] = agreed.get(key, 0.0) + term
            if term > best.get(key, 0.0):
                best[key] = term
            matched_by[key] = (*matched_by.get(key, ()), name)
            ranks[key] = (*ranks.get(key, ()), rank)
    scores = {key: agreed.get(key, term) for key, term in best.items()}
    # A HitKey is a tuple in sort_key() order, so it sorts as its own tie-break.
    ordered = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    return [_fused_hit((key, score, matched_by[key], ranks[key])) for key, score in ordered]


# A named tuple's own __new__ is a Python function; tuple.__new__ makes the same object in C.
_fused_hit = partial(tuple.__new__, FusedHit)


def _channel_order(channels: Iterable[str]) -> list[str]:
    names = set(channels)
    known = [name for name in _KNOWN_CHANNELS if name in names]
    return known + sorted(names.difference(_KNOWN_CHANNELS))
