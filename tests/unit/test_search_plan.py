"""The search package's pure parts: mode resolution, the full-text order, the answer cache."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from powercontext_memory.api import Hit, SearchMode
from powercontext_memory.domain import fts_rank
from powercontext_memory.domain.errors import CapabilityNotSupportedError
from powercontext_memory.domain.fusion import HitKey, fts_admits
from powercontext_memory.domain.models import ArtifactRef
from powercontext_memory.search.answers import AnswerCache
from powercontext_memory.search.modes import Plan, resolve


def test_auto_runs_hybrid_with_a_vector_and_fts_without() -> None:
    ready = {"vector_problem": "", "fts_problem": ""}
    assert resolve(SearchMode.AUTO, has_vector=True, **ready) == Plan(SearchMode.HYBRID, "")
    assert resolve(SearchMode.AUTO, has_vector=False, **ready) == Plan(SearchMode.FTS, "")
    assert resolve(SearchMode.VECTOR, has_vector=True, **ready) == Plan(SearchMode.VECTOR, "")
    assert resolve(SearchMode.FTS, has_vector=False, **ready).mode is SearchMode.FTS


def test_auto_falls_back_and_says_why() -> None:
    plan = resolve(SearchMode.AUTO, has_vector=True, vector_problem="incomplete", fts_problem="")
    assert plan == Plan(SearchMode.FTS, "incomplete")
    assert not plan.vector and plan.fts
    plan = resolve(SearchMode.AUTO, has_vector=True, vector_problem="", fts_problem="no fts")
    assert plan == Plan(SearchMode.VECTOR, "no fts")


@pytest.mark.parametrize("mode", [SearchMode.VECTOR, SearchMode.HYBRID])
def test_vector_modes_are_refused_without_vectors(mode: SearchMode) -> None:
    with pytest.raises(CapabilityNotSupportedError):
        resolve(mode, has_vector=True, vector_problem="no model", fts_problem="")


def test_full_text_is_refused_when_it_is_the_only_channel_left() -> None:
    with pytest.raises(CapabilityNotSupportedError):
        resolve(SearchMode.FTS, has_vector=False, vector_problem="", fts_problem="probe failed")
    with pytest.raises(CapabilityNotSupportedError):
        resolve(SearchMode.AUTO, has_vector=False, vector_problem="x", fts_problem="probe failed")


def _reference_order(terms: list[str], window: list[tuple[HitKey, str]]) -> list[HitKey]:
    """Okapi BM25 over the admitted window written out plainly (the formula of fts_rank.py's
    docstring), to check the fast one-pass version against."""
    docs = [(k, t.split(" ")) for k, t in window if fts_admits(terms, t.split(" "))]
    if not docs:
        return []
    n = len(docs)
    average = sum(len(tokens) for _, tokens in docs) / n
    scores = []
    for key, tokens in docs:
        tf = Counter(tokens)
        score = 0.0
        for term in terms:
            if tf[term]:
                df = sum(1 for _, other in docs if term in other)
                idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
                norm = fts_rank.K1 * (1.0 - fts_rank.B + fts_rank.B * len(tokens) / average)
                score += idf * tf[term] * (fts_rank.K1 + 1.0) / (tf[term] + norm)
        scores.append((-score, key.sort_key(), key))
    return [key for _, _, key in sorted(scores, key=lambda s: (s[0], s[1]))]


def test_full_text_order_is_bm25_over_the_admitted_window() -> None:
    rng = random.Random(11)
    words = ["alpha", "beta", "gamma", "delta", "u_4e2d", "b_4e2d_6587", "x", "y", "z"]
    for _ in range(200):
        terms = list(dict.fromkeys(rng.choices(words, k=rng.randint(1, 5))))
        window = [
            (
                HitKey(rng.choice(["m1", "m2", "é"]), f"e{i}", f"v{i}"),
                " ".join(rng.choices(words, k=rng.randint(1, 12))),
            )
            for i in range(rng.randint(0, 40))
        ]
        expected = _reference_order(terms, window)
        for limit in (1, 5, 100):
            got = fts_rank.admit_and_order(terms, window, limit)
            assert [k for k in got] == expected[:limit]


def test_full_text_order_breaks_ties_by_utf8_bytes() -> None:
    window = [(HitKey("m", entry, "v"), "alpha") for entry in ["\uffff", "\U00010000", "a"]]
    got = fts_rank.admit_and_order(["alpha"], window, 3)
    assert [k.entry_id for k in got] == ["a", "\uffff", "\U00010000"]


def _hit(entry: str) -> Hit:
    return Hit(ArtifactRef("mem", 3), entry, "v", "h", "fact", "text", 0.5, ("fts",))


def test_answer_cache_is_keyed_by_heads_and_bounded() -> None:
    cache = AnswerCache(max_answers=2)
    at_3 = cache.key([ArtifactRef("mem", 3)], "query", 8)
    at_4 = cache.key([ArtifactRef("mem", 4)], "query", 8)
    cache.put(at_3, [_hit("a")])
    assert cache.get(at_3) == [_hit("a")]
    assert cache.get(at_4) is None  # a new head is a new question
    assert cache.get(cache.key([ArtifactRef("mem", 3)], "query", 9)) is None
    cache.put(at_4, [_hit("b")])
    cache.put(cache.key([ArtifactRef("mem", 5)], "query", 8), [])
    assert cache.get(at_3) is None  # least recently used went first
    assert cache.get(at_4) == [_hit("b")]
    off = AnswerCache(max_answers=0)
    off.put(at_3, [_hit("a")])
    assert off.get(at_3) is None


def test_answer_cache_is_bounded_by_text_size() -> None:
    cache = AnswerCache(max_answers=100, max_bytes=4000)
    big = Hit(ArtifactRef("mem", 3), "e", "v", "h", "fact", "x" * 1500, 0.5, ("fts",))
    keys = [cache.key([ArtifactRef("mem", 3)], f"q{i}", 8) for i in range(3)]
    for key in keys:
        cache.put(key, [big])
    assert cache.get(keys[0]) is None  # three answers of ~1.7 KB do not fit in 4 KB
    assert cache.get(keys[2]) == [big]
    huge = cache.key([ArtifactRef("mem", 3)], "huge", 8)
    cache.put(huge, [big, big, big])  # larger than the whole cache: not kept
    assert cache.get(huge) is None and cache.get(keys[2]) == [big]
