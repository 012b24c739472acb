"""A manifest row, its hashed JSON shape and its states, on its own so that the manifest pieces
(manifest_pieces.py) and the revision content built from them (models.py) both import it."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any


class EntryState(enum.StrEnum):
    ACTIVE = "active"
    INACTIVE = "inactive"


@dataclass(frozen=True, slots=True)
class ManifestEntry:
    entry_id: str
    entry_version_id: str
    entry_content_hash: str
    state: EntryState
    # The entry a Merge folded this (inactive) entry into. The key is absent from the canonical
    # row when None, so every manifest written before merges existed hashes as it did.
    merged_into: str | None = None

    @property
    def canonical(self) -> str:
        """Canonical JSON of this row. Built when asked, not kept: a leaf keeps its rows' joined
        bytes (manifest_pieces.Leaf.body), and only the leaves a commit changes are built
        again (a cached 100,000-row manifest is ~280 bytes a row lighter for it).

        Exact JCS for IDs that need no JSON escaping (ours are validated ASCII without quotes,
        backslashes or controls); stored content is re-checked against its bytes when read."""
        merged = "" if self.merged_into is None else f'"merged_into_entry_id":"{self.merged_into}",'
        return (
            f'{{"entry_content_hash":"{self.entry_content_hash}","entry_id":"{self.entry_id}",'
            f'"entry_version_id":"{self.entry_version_id}",{merged}"state":"{self.state.value}"}}'
        )

    @property
    def is_merged(self) -> bool:
        return self.merged_into is not None

    def to_json(self) -> dict[str, Any]:
        data = {
            "entry_content_hash": self.entry_content_hash,
            "entry_id": self.entry_id,
            "entry_version_id": self.entry_version_id,
            "state": self.state.value,
        }
        if self.merged_into is not None:
            data["merged_into_entry_id"] = self.merged_into
        return data
