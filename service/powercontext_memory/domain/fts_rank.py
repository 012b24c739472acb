"""The full-text channel's order: one formula for every backend.

Each engine picks a window of WINDOW_FACTOR x pool candidates with its own relevance (FTS5
bm25, OceanBase MATCH), but those scores differ between engines, so the order is decided here:
Okapi BM25 (k1 = 1.2, b = 0.75) with document frequencies and average length taken over the
window, ties broken by the UTF-8 bytes of memory id, entry id and version id; the channel keeps
the best `pool`. The same window gives the same order on SQLite and OceanBase whatever the
engines' scores were, and it is the same window whenever all admissible matches fit in it.

The usual channel does not need an engine window at all: search/text_index.py ranks every
admitted match of a memory with these same functions (length_norm, term_score, idf), over
NumPy arrays, bit for bit as admit_and_order would over a window holding all of them.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from typing import Any, overload

import numpy as np
import numpy.typing as npt

from . import fusion
from .fusion import HitKey

K1 = 1.2
B = 0.75
WINDOW_FACTOR = 4

Floats = npt.NDArray[np.float64]


def idf(documents: int, frequency: int) -> float:
    """BM25's inverse document frequency of a term found in `frequency` of `documents`."""
    return math.log(1.0 + (documents - frequency + 0.5) / (frequency + 0.5))


@overload
def length_norm(length: float, average: float) -> float: ...


@overload
def length_norm(length: Floats, average: float) -> Floats: ...


def length_norm(length: Any, average: float) -> Any:
    """BM25's length normalisation of a document of `length` tokens (its part of every term's
    denominator). Floats or NumPy arrays alike, in the same operation order, so that both
    callers (the window here, search/text_index.py over a whole memory) compute the same bits."""
    return K1 * (1.0 - B + B * length / average)


@overload
def term_score(weight: float, tf: float, norm: float) -> float: ...


@overload
def term_score(weight: float, tf: Floats, norm: Floats) -> Floats: ...


def term_score(weight: float, tf: Any, norm: Any) -> Any:
    """One term's BM25 contribution (weight = its idf) to documents holding it `tf` times whose
    length_norm is `norm` (floats or arrays, as length_norm)."""
    return weight * tf * (K1 + 1.0) / (tf + norm)


def average_length(total: float, documents: int) -> float:
    return total / documents or 1.0


def admit_and_order(
    terms: Sequence[str], window: Sequence[tuple[HitKey, str]], limit: int
) -> list[HitKey]:
    """The best `limit` keys of the window's admitted documents for the distinct query `terms`.

    `window` holds (key, searchable text: analyzer tokens joined by single spaces). Admission
    is fusion.fts_admits (enough distinct terms); statistics are over the admitted documents.
    One pass counts each term with str-level scans (no per-token Python loop): this runs on
    every search, over up to WINDOW_FACTOR x pool documents.
    """
    required = fusion.fts_required_matches(len(frozenset(terms)))
    admitted: list[tuple[HitKey, list[int], int]] = []
    for key, text in window:
        tokens = text.split(" ")
        tf = [tokens.count(term) for term in terms]
        if required and sum(1 for count in tf if count) >= required:
            admitted.append((key, tf, len(tokens)))
    if not admitted:
        return []
    n = len(admitted)
    average = average_length(sum(length for _, _, length in admitted), n)
    weights = [idf(n, sum(1 for _, tf, _ in admitted if tf[i])) for i in range(len(terms))]
    scored = []
    for key, tf, length in admitted:
        norm = length_norm(length, average)
        score = sum(term_score(weights[i], count, norm) for i, count in enumerate(tf) if count)
        # UTF-8 byte order is code point order: the string tuple sorts like HitKey.sort_key().
        scored.append((-score, key.memory_artifact_id, key.entry_id, key.entry_version_id, key))
    return [item[-1] for item in heapq.nsmallest(limit, scored, key=lambda s: s[:4])]
