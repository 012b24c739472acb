"""Admission thresholds, embedding checks and deterministic reciprocal rank fusion."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from powercontext_memory.domain.fusion import (
    AGREEMENT_RANKS,
    RRF_K,
    UNIT_NORM_TOLERANCE,
    VECTOR_MIN_COSINE,
    FusedHit,
    HitKey,
    candidate_pool_size,
    check_embedding,
    cosine_from_l2,
    fts_admits,
    fts_matched_terms,
    fts_required_matches,
    is_unit_norm,
    rrf_fuse,
    vector_admits,
)


def _key(memory: str, entry: str = "e", version: str = "v") -> HitKey:
    return HitKey(memory, entry, version)


def _unit(dimension: int, seed: int = 7) -> np.ndarray:
    vector = np.random.default_rng(seed).normal(size=dimension)
    return vector / np.linalg.norm(vector)


def test_constants() -> None:
    assert (RRF_K, VECTOR_MIN_COSINE, UNIT_NORM_TOLERANCE) == (60, 0.3, 1e-3)
    assert AGREEMENT_RANKS == 10


@pytest.mark.parametrize(
    ("term_count", "required"), [(0, 1), (1, 1), (2, 1), (3, 2), (8, 2), (9, 3), (35, 9)]
)
def test_fts_required_matches(term_count: int, required: int) -> None:
    assert fts_required_matches(term_count) == required


def test_fts_required_matches_rejects_negative() -> None:
    with pytest.raises(ValueError):
        fts_required_matches(-1)


@pytest.mark.parametrize(("limit", "pool"), [(1, 32), (8, 32), (10, 40), (100, 400)])
def test_candidate_pool_size(limit: int, pool: int) -> None:
    assert candidate_pool_size(limit) == pool


def test_fts_matched_terms_counts_distinct_terms() -> None:
    assert fts_matched_terms(["a", "b", "c"], ["a", "a", "c", "x"]) == 2
    assert fts_matched_terms(["a", "a"], ["a"]) == 1
    assert fts_matched_terms([], ["a"]) == 0
    assert fts_matched_terms(["a"], iter(["b", "a"])) == 1  # any iterable of tokens


def test_fts_admits() -> None:
    assert fts_admits(["make"], ["run", "make"])
    assert not fts_admits(["make"], ["run"])
    assert not fts_admits([], ["run"])  # an empty query admits nothing
    assert not fts_admits(["a", "b", "c"], ["a"])  # 3 terms need 2
    assert fts_admits(["a", "b", "c"], ["c", "a"])
    nine = [f"t{i}" for i in range(9)]
    assert not fts_admits(nine, nine[:2])
    assert fts_admits(nine, nine[:3])


def test_cosine_from_l2() -> None:
    assert cosine_from_l2(0.0) == 1.0
    assert cosine_from_l2(math.sqrt(2.0)) == pytest.approx(0.0, abs=1e-12)
    assert cosine_from_l2(2.0) == -1.0
    a, b = _unit(16, seed=1), _unit(16, seed=2)
    assert cosine_from_l2(float(np.linalg.norm(a - b))) == pytest.approx(float(a @ b))


def test_vector_admits() -> None:
    threshold = math.sqrt(2.0 * (1.0 - VECTOR_MIN_COSINE))  # distance where cosine == 0.3
    assert vector_admits(0.0)
    assert vector_admits(threshold - 1e-9)
    assert not vector_admits(threshold + 1e-9)
    assert not vector_admits(math.sqrt(2.0))
    assert not vector_admits(float("nan"))


def test_check_embedding_accepts_normalized_vector() -> None:
    vector = _unit(384)
    checked = check_embedding(vector, 384)
    assert checked.dtype == np.float32
    assert checked.shape == (384,)
    assert np.allclose(checked, vector, atol=1e-7)
    assert is_unit_norm(checked)


def test_check_embedding_returns_a_copy() -> None:
    vector = _unit(8).astype(np.float32)
    checked = check_embedding(vector, 8)
    checked[0] = 5.0
    assert vector[0] != 5.0


def test_check_embedding_accepts_lists_and_tolerance() -> None:
    assert check_embedding([0.0, 1.0, 0.0], 3).tolist() == [0.0, 1.0, 0.0]
    assert check_embedding([1.0 + UNIT_NORM_TOLERANCE / 2, 0.0], 2).dtype == np.float32


def _with(vector: np.ndarray, index: int, value: float) -> np.ndarray:
    changed = vector.copy()
    changed[index] = value
    return changed


@pytest.mark.parametrize(
    ("vector", "message"),
    [
        (_with(_unit(4), 1, float("nan")), "NaN or Infinity"),
        (_with(_unit(4), 2, float("inf")), "NaN or Infinity"),
        (_with(_unit(4), 0, -float("inf")), "NaN or Infinity"),
        (np.array([1e300, 0.0, 0.0, 0.0]), "NaN or Infinity"),  # overflows float32
        (_unit(5), "dimension 5, expected 4"),
        (np.array([], dtype=np.float32), "empty"),
        (np.zeros(4), "all zeros"),
        (_unit(4) * 2.0, "not unit-norm"),
        (_unit(4) * (1.0 + 2 * UNIT_NORM_TOLERANCE), "not unit-norm"),
        (_unit(4).reshape(2, 2), "1-dimensional"),
        (np.array([True, False, False, False]), "real numbers"),
        (np.array([1j, 0, 0, 0]), "real numbers"),
    ],
    ids=[
        "nan",
        "inf",
        "-inf",
        "float32-overflow",
        "wrong-dim",
        "empty",
        "zero",
        "norm-2",
        "just-outside-tolerance",
        "2-d",
        "bool",
        "complex",
    ],
)
def test_check_embedding_refusals(vector: np.ndarray, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_embedding(vector, 4)


def test_check_embedding_rejects_bad_dimension_argument() -> None:
    with pytest.raises(ValueError, match="positive"):
        check_embedding(np.array([], dtype=np.float32), 0)


def test_hit_key_sort_key_orders_as_utf8_bytes() -> None:
    # Code points either side of the UTF-8 length boundaries, a CJK one and an astral one.
    ids = ["a", "z", "\x7f", "\x80", "é", "\u07ff", "\u0800", "中", "\uffff", "\U00010000", "😀"]
    keys = [_key("m", e, "v") for e in ids] + [_key(e, "x", "v") for e in ids]
    by_bytes = sorted(keys, key=lambda k: tuple(p.encode("utf-8") for p in k.sort_key()))
    assert sorted(keys, key=lambda k: k.sort_key()) == by_bytes


def test_rrf_single_channel() -> None:
    a, b = _key("a"), _key("b")
    assert rrf_fuse({"fts": [b, a]}) == [
        FusedHit(b, 1 / 61, ("fts",), (1,)),
        FusedHit(a, 1 / 62, ("fts",), (2,)),
    ]


def test_rrf_scores_exact() -> None:
    a, b, c = _key("a"), _key("b"), _key("c")
    fused = rrf_fuse({"fts": [a, b], "vector": [a, c, b]})
    assert fused == [
        FusedHit(a, 1 / 61 + 1 / 61, ("fts", "vector"), (1, 1)),
        FusedHit(b, 1 / 62 + 1 / 63, ("fts", "vector"), (2, 3)),
        FusedHit(c, 1 / 62, ("vector",), (2,)),
    ]
    assert fused[0].score == 2 / 61


def _filler(prefix: str, count: int) -> list[HitKey]:
    return [_key(f"{prefix}{i:02d}") for i in range(count)]


def test_rrf_agreement_counts_only_within_the_first_ranks() -> None:
    # `deep` is 11th in both channels, `top` first in full text only: RRF summed over every
    # rank would put deep first (2/71 > 1/61); past AGREEMENT_RANKS only its best term counts.
    top, deep = _key("top"), _key("deep")
    fts = [top, *_filler("f", 9), deep]
    vector = [*_filler("v", 10), deep]
    fused = {hit.key: hit for hit in rrf_fuse({"fts": fts, "vector": vector})}
    assert fused[deep] == FusedHit(deep, 1 / 71, ("fts", "vector"), (11, 11))
    assert fused[top].score == 1 / 61
    order = [hit.key for hit in rrf_fuse({"fts": fts, "vector": vector})]
    assert order.index(top) < order.index(deep)


def test_rrf_agreement_at_the_edge_and_past_it() -> None:
    edge, half = _key("edge"), _key("half")
    fts = [half, *_filler("f", 8), edge]  # edge 10th, half 1st
    vector = [*_filler("v", 9), edge, *_filler("w", 19), half]  # edge 10th, half 30th
    fused = {hit.key: hit for hit in rrf_fuse({"fts": fts, "vector": vector})}
    assert fused[edge].score == 1 / 70 + 1 / 70  # both within the first ten: summed
    assert fused[half] == FusedHit(half, 1 / 61, ("fts", "vector"), (1, 30))  # 30th adds nothing


def test_rrf_vector_only_hit() -> None:
    only = _key("z")
    fused = rrf_fuse({"fts": [], "vector": [only]})
    assert fused == [FusedHit(only, 1 / 61, ("vector",), (1,))]


def test_rrf_empty() -> None:
    assert rrf_fuse({}) == []
    assert rrf_fuse({"fts": [], "vector": []}) == []


def test_rrf_duplicate_in_channel_counts_once_at_first_rank() -> None:
    a, b = _key("a"), _key("b")
    fused = rrf_fuse({"fts": [a, a, b]})
    assert fused == [FusedHit(a, 1 / 61, ("fts",), (1,)), FusedHit(b, 1 / 62, ("fts",), (2,))]


def test_rrf_matched_by_order_for_unknown_channels() -> None:
    a = _key("a")
    fused = rrf_fuse({"zeta": [a], "vector": [a], "alpha": [a], "fts": [a]})
    assert fused[0].matched_by == ("fts", "vector", "alpha", "zeta")
    assert fused[0].ranks == (1, 1, 1, 1)
    assert fused[0].score == pytest.approx(4 / 61)


def test_rrf_ties_break_by_memory_then_entry_then_version() -> None:
    keys = [
        _key("m2", "e1", "v1"),
        _key("m1", "e2", "v1"),
        _key("m1", "e1", "v2"),
        _key("m1", "e1", "v1"),
        _key("m1", "e10", "v1"),
    ]
    # Each key is first in exactly one channel, so all scores are exactly 1/61.
    fused = rrf_fuse({f"c{i}": [key] for i, key in enumerate(keys)})
    assert {hit.score for hit in fused} == {1 / 61}
    assert [hit.key for hit in fused] == [
        _key("m1", "e1", "v1"),
        _key("m1", "e1", "v2"),
        _key("m1", "e10", "v1"),
        _key("m1", "e2", "v1"),
        _key("m2", "e1", "v1"),
    ]


def test_rrf_ties_across_two_channels() -> None:
    # x is 1st in fts and 2nd in vector, y the reverse: equal sums, so the key decides.
    x, y = _key("x"), _key("y")
    assert rrf_fuse({"fts": [x, y], "vector": [y, x]}) == [
        FusedHit(x, 1 / 61 + 1 / 62, ("fts", "vector"), (1, 2)),
        FusedHit(y, 1 / 62 + 1 / 61, ("fts", "vector"), (2, 1)),
    ]
    assert rrf_fuse({"fts": [y, x], "vector": [x, y]}) == [
        FusedHit(x, 1 / 62 + 1 / 61, ("fts", "vector"), (2, 1)),
        FusedHit(y, 1 / 61 + 1 / 62, ("fts", "vector"), (1, 2)),
    ]


def test_rrf_is_independent_of_channel_insertion_order() -> None:
    rng = random.Random(42)
    keys = [_key(f"m{i % 3}", f"e{i % 5}", f"v{i}") for i in range(40)]
    channels = {name: rng.sample(keys, 25) for name in ("fts", "vector", "extra", "more")}
    baseline = rrf_fuse(channels)
    for _ in range(10):
        names = list(channels)
        rng.shuffle(names)
        assert rrf_fuse({name: channels[name] for name in names}) == baseline


def test_rrf_is_independent_of_order_among_equal_score_items() -> None:
    # Ten entries, each alone at rank 1 of its own channel: all scores are equal, so shuffling
    # which channel holds which entry must not change the order (memory id decides).
    rng = random.Random(3)
    keys = [_key(f"m{i}", f"e{9 - i}") for i in range(10)]
    names = [f"c{i}" for i in range(10)]
    baseline = rrf_fuse({name: [key] for name, key in zip(names, keys, strict=True)})
    assert [hit.key for hit in baseline] == keys
    for _ in range(10):
        shuffled = keys[:]
        rng.shuffle(shuffled)
        fused = rrf_fuse({name: [key] for name, key in zip(names, shuffled, strict=True)})
        assert [(hit.key, hit.score) for hit in fused] == [(h.key, h.score) for h in baseline]


def test_rrf_one_channel_is_the_general_fusion_with_an_empty_other() -> None:
    # One channel takes a shortcut (its order is the fused order): the same hits, scores
    # and order as the general path, duplicates included, over a long list.
    rng = random.Random(4)
    keys = [_key(f"m{rng.randrange(3)}", f"e{rng.randrange(400)}", "v") for _ in range(500)]
    assert rrf_fuse({"fts": keys}) == rrf_fuse({"fts": keys, "vector": []})
