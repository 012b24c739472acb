"""PieceManifest.rows_after: the keyset walk of listings, across leaf boundaries."""

from __future__ import annotations

from powercontext_memory.domain.manifest_pieces import PieceManifest, cut_leaves
from powercontext_memory.domain.models import EntryState, ManifestEntry


def test_rows_after_any_key_match_a_full_scan() -> None:
    rows = [ManifestEntry(f"e{i:05d}", f"v{i}", "0" * 64, EntryState.ACTIVE) for i in range(1500)]
    manifest = PieceManifest(cut_leaves(rows))
    assert len(manifest.leaves) > 10
    ids = [r.entry_id for r in rows]
    keys = [None, "", "a", "e00000", "e00000x", "e01499", "f"]
    keys += [leaf.first_id for leaf in manifest.leaves] + [leaf.last_id for leaf in manifest.leaves]
    for key in keys:
        expected = [i for i in ids if key is None or i > key]
        assert [r.entry_id for r in manifest.rows_after(key)] == expected, key
    assert list(PieceManifest([]).rows_after("x")) == []
