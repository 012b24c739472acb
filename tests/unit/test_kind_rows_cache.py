"""KindRowsCache: rows per (memory, revision, kinds), least recently used out past a bound
on rows in all; a set larger than the bound is not kept at all."""

from __future__ import annotations

from powercontext_memory.backends.kind_rows_cache import KindRowsCache
from powercontext_memory.backends.port import HeadKindRow

KINDS = ("constraint", "working_note")


def rows(memory: str, count: int) -> list[HeadKindRow]:
    return [HeadKindRow(memory, f"e{i}", f"v{i}", "0" * 64, "constraint", 1) for i in range(count)]


def test_rows_are_kept_per_memory_revision_and_kinds() -> None:
    cache = KindRowsCache(max_rows=10)
    cache.put(("m1", 1, KINDS), rows("m1", 3))
    assert cache.get(("m1", 1, KINDS)) == tuple(rows("m1", 3))
    assert cache.get(("m1", 2, KINDS)) is None  # another revision
    assert cache.get(("m1", 1, ("constraint",))) is None  # other kinds
    cache.put(("m1", 1, KINDS), [])  # a key is written once
    assert cache.get(("m1", 1, KINDS)) == tuple(rows("m1", 3))


def test_an_empty_set_is_kept_too() -> None:
    cache = KindRowsCache(max_rows=10)
    cache.put(("m1", 1, KINDS), [])
    assert cache.get(("m1", 1, KINDS)) == ()


def test_least_recently_used_goes_first_past_the_bound() -> None:
    cache = KindRowsCache(max_rows=10)
    cache.put(("a", 1, KINDS), rows("a", 4))
    cache.put(("b", 1, KINDS), rows("b", 4))
    assert cache.get(("a", 1, KINDS)) is not None  # a is now the most recent
    cache.put(("c", 1, KINDS), rows("c", 4))  # 12 rows: b goes
    assert cache.get(("b", 1, KINDS)) is None
    assert cache.get(("a", 1, KINDS)) is not None and cache.get(("c", 1, KINDS)) is not None


def test_a_set_larger_than_the_bound_is_not_kept() -> None:
    cache = KindRowsCache(max_rows=3)
    cache.put(("a", 1, KINDS), rows("a", 2))
    cache.put(("big", 1, KINDS), rows("big", 4))
    assert cache.get(("big", 1, KINDS)) is None
    assert cache.get(("a", 1, KINDS)) is not None  # and nothing was evicted for it


def test_newest_names_the_latest_revision_kept_for_the_memory_and_kinds() -> None:
    cache = KindRowsCache(max_rows=10)
    assert cache.newest("a", KINDS) is None
    cache.put(("a", 3, KINDS), rows("a", 1))
    cache.put(("a", 2, KINDS), rows("a", 2))  # an older revision does not replace it
    assert cache.newest("a", KINDS) == (3, tuple(rows("a", 1)))
    assert cache.newest("a", ("constraint",)) is None and cache.newest("b", KINDS) is None
    cache.put(("a", 5, KINDS), rows("a", 3))
    assert cache.newest("a", KINDS) == (5, tuple(rows("a", 3)))


def test_an_evicted_newest_revision_is_forgotten() -> None:
    cache = KindRowsCache(max_rows=4)
    cache.put(("a", 1, KINDS), rows("a", 3))
    cache.put(("b", 1, KINDS), rows("b", 3))  # evicts a@1, the newest of a
    assert cache.newest("a", KINDS) is None
    assert cache.newest("b", KINDS) == (1, tuple(rows("b", 3)))
