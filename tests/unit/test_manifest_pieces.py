"""Manifest pieces: the same manifest always cuts into the same pieces, whether built at once or
commit by commit, and the piece-fed hash is the SHA-256 of the flat-v1 canonical bytes."""

from __future__ import annotations

import hashlib
import random

from powercontext_memory.domain.canonical import canonical_json
from powercontext_memory.domain.manifest_pieces import LEAF_CAP, cut_leaves, root_keys
from powercontext_memory.domain.models import (
    ChangeOp,
    EntryState,
    ManifestEntry,
    MemoryChange,
    MemoryContent,
)


def _row(rng: random.Random, entry_id: str | None = None) -> ManifestEntry:
    return ManifestEntry(
        entry_id or f"e_{rng.getrandbits(128):032x}",
        f"v_{rng.getrandbits(128):032x}",
        f"sha256:{rng.getrandbits(256):064x}",
        rng.choice([EntryState.ACTIVE, EntryState.INACTIVE]),
    )


def _keys(content: MemoryContent) -> list[str]:
    return [leaf.key for leaf in content.manifest.leaves]


def test_commit_by_commit_gives_the_pieces_of_a_fresh_cut() -> None:
    rng = random.Random(7)
    content = MemoryContent([], ())
    rows: dict[str, ManifestEntry] = {}
    for step in range(60):
        updates = {}
        for _ in range(rng.choice([1, 1, 3, 40])):
            # a revised or deactivated row keeps its id
            revised = rows and rng.random() < 0.3
            row = _row(rng, rng.choice(sorted(rows))) if revised else _row(rng)
            updates[row.entry_id] = row
        rows.update(updates)
        change = MemoryChange(ChangeOp.ADD, next(iter(updates)), None, "v", None)
        content = content.updated(updates, [change])
        fresh = MemoryContent([rows[k] for k in sorted(rows)], [change])
        assert _keys(content) == _keys(fresh), step
        assert content.content_hash == fresh.content_hash
    assert len(content.manifest.leaves) > 5


def test_piece_hash_is_the_sha256_of_the_flat_v1_canonical_bytes() -> None:
    rng = random.Random(3)
    rows = sorted((_row(rng) for _ in range(700)), key=lambda r: r.entry_id)
    changes = [MemoryChange(ChangeOp.DEACTIVATE, rows[0].entry_id, "a", None, 'why "so"')]
    content = MemoryContent(rows, changes)
    expected = canonical_json(content.to_json())
    assert content.canonical_bytes == expected
    assert content.content_hash == hashlib.sha256(expected).hexdigest()
    assert content.active_count == sum(r.state is EntryState.ACTIVE for r in rows)
    assert content.entry(rows[350].entry_id) == rows[350]
    assert content.entry("e_missing") is None
    assert len(root_keys(content.manifest.root)) == len(content.manifest.index)


def test_a_run_without_a_boundary_is_capped() -> None:
    # ids chosen so that none closes a leaf by the hash rule
    rng = random.Random(1)
    rows: list[ManifestEntry] = []
    while len(rows) < LEAF_CAP + 10:
        row = _row(rng)
        if len(cut_leaves([row, _row(rng, "zz")])) == 1:
            rows.append(row)
    rows.sort(key=lambda r: r.entry_id)
    assert [len(leaf.entries) for leaf in cut_leaves(rows)] == [LEAF_CAP, 10]


def test_active_rows_by_hash_are_found_exactly_through_the_leaf_filters() -> None:
    rng = random.Random(11)
    rows = sorted((_row(rng) for _ in range(3000)), key=lambda r: r.entry_id)
    manifest = MemoryContent(rows, ()).manifest
    wanted = {r.entry_content_hash for r in rng.sample(rows, 40)}
    wanted.add("sha256:" + "0" * 64)  # held by no row: finds nothing
    expected = [r for r in rows if r.entry_content_hash in wanted and r.state is EntryState.ACTIVE]
    assert expected  # the sample holds active rows
    assert list(manifest.active_with_hashes(wanted)) == expected
    assert list(manifest.active_with_hashes(set())) == []
