"""MemoryVectors: slot reuse, validity checks and nearest-neighbour order."""

from __future__ import annotations

import numpy as np
import pytest

from powercontext_memory.backends.port import VectorRow
from powercontext_memory.domain.models import ArtifactRef, EmbeddingProfile
from powercontext_memory.search import vector_index
from powercontext_memory.search.vector_index import MemoryVectors, merge_nearest

PROFILE = EmbeddingProfile("test-profile", "test-model", 3)


def _unit(*values: float) -> np.ndarray:
    v = np.array(values, dtype=np.float32)
    return v / np.linalg.norm(v)


def _row(entry: str, vector: np.ndarray | None, *, bad_hash: bool = False) -> VectorRow:
    content_hash = entry.ljust(64, "0")
    bound = PROFILE.embedding_content_hash(content_hash)
    return VectorRow(
        entry,
        f"ver_{entry}",
        content_hash,
        f"ver_{entry}",
        content_hash,
        "0" * 64 if bad_hash else bound,
        None if vector is None else vector.astype("<f4").tobytes(),
        vector is not None,
    )


def test_nearest_orders_by_distance_and_refuses_far_vectors() -> None:
    memory = MemoryVectors("mem", 1, 3)
    memory.put(_row("a", _unit(1, 0, 0)), PROFILE)
    memory.put(_row("b", _unit(1, 1, 0)), PROFILE)
    memory.put(_row("c", _unit(-1, 0, 0)), PROFILE)  # cosine -1: refused by admission
    hits = memory.nearest(_unit(1, 0.1, 0), 32)
    assert [h.key.entry_id for h in sorted(hits, key=lambda h: h.distance)] == ["a", "b"]
    assert memory.complete


def test_invalid_rows_make_the_memory_incomplete_until_replaced() -> None:
    memory = MemoryVectors("mem", 1, 3)
    memory.put(_row("a", None), PROFILE)
    memory.put(_row("b", _unit(0, 1, 0), bad_hash=True), PROFILE)
    memory.put(_row("c", np.array([np.nan, 0, 0], dtype=np.float32)), PROFILE)
    memory.put(_row("d", np.array([1, 1, 1], dtype=np.float32)), PROFILE)  # not unit length
    assert memory.invalid == {"a", "b", "c", "d"} and not memory.complete
    for entry in "abcd":
        memory.put(_row(entry, _unit(1, 2, 3)), PROFILE)
    assert memory.complete and len(memory.slots) == 4


def test_removed_slots_are_reused_and_never_returned() -> None:
    memory = MemoryVectors("mem", 1, 3)
    for i in range(100):  # grows past the initial capacity
        memory.put(_row(f"e{i:03d}", _unit(1, i / 100, 0)), PROFILE)
    memory.remove("e000")
    assert "e000" not in {h.key.entry_id for h in memory.nearest(_unit(1, 0, 0), 200)}
    memory.put(_row("new", _unit(0, 0, 1)), PROFILE)
    assert len(memory.slots) == 100 and not memory.free
    top = merge_nearest([memory.nearest(_unit(0, 0, 1), 5)], 1)
    assert top[0].key.entry_id == "new" and top[0].distance < 1e-3


def test_completeness_only_mode_keeps_no_vectors() -> None:
    """With the engine's own index (OceanBase), rows are checked by binding alone."""
    memory = MemoryVectors("mem", 1, 3, store_vectors=False)
    bound = _row("a", _unit(1, 0, 0))
    memory.put(
        VectorRow(
            *[
                getattr(bound, f)
                for f in (
                    "entry_id",
                    "entry_version_id",
                    "entry_content_hash",
                    "meta_entry_version_id",
                    "meta_entry_content_hash",
                    "embedding_content_hash",
                )
            ],
            None,
            True,
        ),
        PROFILE,
    )
    assert memory.complete and memory.matrix.shape == (0, 3)
    memory.put(_row("b", _unit(0, 1, 0), bad_hash=True), PROFILE)
    assert not memory.complete
    memory.remove("b")
    memory.put(_row("c", None), PROFILE)  # no vector stored at all
    assert not memory.complete


def _mixed_rows() -> list[VectorRow]:
    return [
        _row("a", _unit(1, 0, 0)),
        _row("b", None),
        _row("c", _unit(0, 1, 0), bad_hash=True),
        _row("d", np.array([np.nan, 0, 0], dtype=np.float32)),
        _row("e", np.array([1, 1, 1], dtype=np.float32)),  # not unit length
        _row("f", np.zeros(3, dtype=np.float32)),
        _row("g", _unit(0, 0, 1)),
        *[_row(f"h{i:03d}", _unit(1, i / 100, 1)) for i in range(90)],  # past the capacity
    ]


def test_a_page_load_keeps_and_refuses_exactly_what_one_by_one_puts_do() -> None:
    one_by_one = MemoryVectors("mem", 1, 3)
    for row in _mixed_rows():
        one_by_one.put(row, PROFILE)
    paged = MemoryVectors("mem", 1, 3)
    rows = _mixed_rows()
    for start in range(0, len(rows), 7):
        paged.load(rows[start : start + 7], PROFILE)
    assert paged.invalid == one_by_one.invalid == {"b", "c", "d", "e", "f"}
    assert set(paged.slots) == set(one_by_one.slots) and len(paged.slots) == 92
    query = _unit(1, 0.5, 1)
    assert [(h.key, h.distance) for h in paged.nearest(query, 10)] == [
        (h.key, h.distance) for h in one_by_one.nearest(query, 10)
    ]
    paged.remove("g")  # slots of a loaded memory are reused like any other
    paged.put(_row("z", _unit(0, 0, 1)), PROFILE)
    assert merge_nearest([paged.nearest(_unit(0, 0, 1), 5)], 1)[0].key.entry_id == "z"


class _PagedReads:
    """Test double for HotReads.vector_rows only: serves stored rows in entry-id order and
    records each call's page size, so the loader's calls can be checked."""

    def __init__(self, rows: list[VectorRow]) -> None:
        self.rows = sorted(rows, key=lambda r: r.entry_id)
        self.limits: list[int | None] = []

    async def vector_rows(
        self,
        artifact_id: str,
        entry_ids: object,
        *,
        with_vectors: bool = True,
        after: str | None = None,
        limit: int | None = None,
    ) -> list[VectorRow]:
        self.limits.append(limit)
        rows = [r for r in self.rows if after is None or r.entry_id > after]
        return rows if limit is None else rows[:limit]


async def test_a_large_memory_is_loaded_in_bounded_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    """One read of every vector outlasted the database timeout at 100,000 entries: each call
    must ask for one bounded page, and the pages together must hold every row once."""
    monkeypatch.setattr(vector_index, "LOAD_PAGE_ROWS", 10)
    rows = [_row(f"e{i:03d}", _unit(1, i / 100, 0)) for i in range(45)]
    reads = _PagedReads(rows)
    index = vector_index.VectorIndex(PROFILE)

    async def no_changes(artifact_id: str, first: int, last: int) -> set[str]:
        return set()

    memory = await index.at_head(reads, ArtifactRef("mem", 3), no_changes)  # type: ignore[arg-type]
    assert reads.limits == [10, 10, 10, 10, 10]
    assert memory.complete and len(memory.slots) == 45 and memory.revision == 3
    assert memory.nearest(_unit(1, 0, 0), 1)[0].key.entry_id == "e000"
