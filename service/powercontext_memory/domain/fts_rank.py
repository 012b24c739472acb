"""The full-text channel's order: one formula for every backend.

Each engine picks a window of WINDOW_FACTOR x pool candidates with its own relevance (FTS5
bm25, OceanBase MATCH), but those scores differ between engines, so the order is decided here:
Okapi BM25 (k1 = 1.2, b = 0.75) with document frequencies and average length taken over the
window, ties broken by the UTF-8 bytes of memory id, entry id and version id; the channel keeps
the best `pool`. The same window gives the same order on SQLite and OceanBase whatever the
engines' scores were, and it is the same window whenever all admissible matches fit in it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from .fusion import HitKey

K1 = 1.2
B = 0.75
WINDOW_FACTOR = 4


def order_pool(terms: Sequence[str], pool: Sequence[tuple[HitKey, Sequence[str]]]) -> list[HitKey]:
    """Keys of `pool` (key, document tokens) best first for the distinct query `terms`."""
    if not pool:
        return []
    wanted = set(terms)
    counts = [Counter(t for t in tokens if t in wanted) for _, tokens in pool]
    lengths = [len(tokens) for _, tokens in pool]
    average = sum(lengths) / len(pool) or 1.0
    n = len(pool)
    idf = {
        term: math.log(1.0 + (n - df + 0.5) / (df + 0.5))
        for term in terms
        for df in [sum(1 for c in counts if c[term])]
    }
    scored = []
    for (key, _), tf, length in zip(pool, counts, lengths, strict=True):
        norm = K1 * (1.0 - B + B * length / average)
        score = sum(idf[t] * tf[t] * (K1 + 1.0) / (tf[t] + norm) for t in terms if tf[t])
        scored.append((-score, key.sort_key(), key))
    scored.sort(key=lambda s: (s[0], s[1]))
    return [key for _, _, key in scored]
