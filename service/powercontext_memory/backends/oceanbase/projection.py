"""The head projection on OceanBase: rows upserted with their full-text tokens and, once the
embedding profile is fixed, their vectors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..port import HeadProjectionRow
from . import fts_tokens
from .statements import OceanBaseStatements, chunks, marks
from .wire import vector_literal

_UPDATED_COLUMNS = (
    "projected_in_revision",
    "entry_version_id",
    "entry_content_hash",
    "searchable_text",
    "fulltext_tokens",
    "embedding_content_hash",
    "kind",
    "description",
    "tags",
)


class ProjectionStatements(OceanBaseStatements):
    async def upsert_projection(self, revision: int, rows: Sequence[HeadProjectionRow]) -> None:
        """One statement per chunk: a new row is inserted, an existing one (same memory and
        entry) rewritten in place, its vector replaced or cleared with it."""
        if not rows:
            return
        with_vector = self._storage.vector_dimension is not None
        columns = (
            "memory_artifact_id, projected_in_revision, entry_id, entry_version_id, "
            "entry_content_hash, searchable_text, fulltext_tokens, embedding_content_hash, "
            "kind, description, tags" + (", embedding" if with_vector else "")
        )
        width = 12 if with_vector else 11
        updates = ", ".join(
            f"{c} = VALUES({c})"
            for c in [*_UPDATED_COLUMNS, *(["embedding"] if with_vector else [])]
        )
        for chunk in chunks(list(rows)):
            params: list[Any] = []
            for r in chunk:
                if r.embedding is not None and not with_vector:
                    raise RuntimeError("a vector was written before the profile was fixed")
                params.extend(
                    [
                        r.memory_artifact_id,
                        revision,
                        r.entry_id,
                        r.entry_version_id,
                        r.entry_content_hash,
                        r.searchable_text,
                        fts_tokens.encode_row(r.memory_artifact_id, r.searchable_text),
                        r.embedding_content_hash if r.embedding is not None else None,
                        r.kind,
                        r.description,
                        r.tags,
                    ]
                )
                if with_vector:
                    params.append(vector_literal(r.embedding) if r.embedding is not None else None)
            tuples = ", ".join(["(" + marks(width) + ")"] * len(chunk))
            await self._exec(
                f"INSERT INTO memory_entry_heads ({columns}) VALUES {tuples} "
                f"ON DUPLICATE KEY UPDATE {updates}",
                params,
            )

    async def remove_projection(self, artifact_id: str, entry_ids: Sequence[str]) -> None:
        for chunk in chunks(list(entry_ids)):
            await self._exec(
                "DELETE FROM memory_entry_heads WHERE memory_artifact_id = ? "
                f"AND entry_id IN ({marks(len(chunk))})",
                (artifact_id, *chunk),
            )

    async def clear_projection(self, artifact_id: str) -> None:
        await self._exec(
            "DELETE FROM memory_entry_heads WHERE memory_artifact_id = ?", (artifact_id,)
        )
