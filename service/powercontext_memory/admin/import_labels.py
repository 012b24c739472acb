"""Labels in an import (importer.py): compared with the target's, then the missing ones written.

A label version the target already holds must be the same label set at the same time; the
target may hold more versions than the file (set there after the export), never other ones.
The versions the target lacks are inserted in order, so its history stays 1..n without gaps.
Problems come back as messages: the importer raises them with the line they came from.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..backends.database import DatabaseMemoryBackend
from ..backends.port import MemoryLabelRow, ReadTransaction, WriteTransaction
from .import_stream import Label


def conflict(row: MemoryLabelRow, held: dict[int, MemoryLabelRow]) -> str | None:
    """Why the target's history contradicts this label row, or None."""
    stored = held.get(row.label_version)
    if stored is None or stored == row:
        return None
    return (
        f"memory {row.memory_artifact_id} conflicts with the target: its label version "
        f"{row.label_version} is another label there (set at {stored.set_at_ms} ms, "
        f"{row.set_at_ms} ms in the file)"
    )


async def _history(tx: ReadTransaction, artifact_id: str) -> dict[int, MemoryLabelRow]:
    return {r.label_version: r for r in await tx.memory_label_history(artifact_id)}


class LabelCheck:
    """Pass 1: each label against the target, whose history is read once per memory (a
    memory's labels are consecutive in the file)."""

    def __init__(self, backend: DatabaseMemoryBackend) -> None:
        self.backend = backend
        self._memory = ""
        self._held: dict[int, MemoryLabelRow] = {}

    async def problem(self, label: Label) -> str | None:
        artifact_id = label.row.memory_artifact_id
        if artifact_id != self._memory:
            async with self.backend.read() as session:
                self._held = await _history(session.tx, artifact_id)
            self._memory = artifact_id
        return conflict(label.row, self._held)


async def insert_missing(tx: WriteTransaction, labels: Sequence[Label]) -> tuple[int, Label | None]:
    """Pass 2: insert the labels the target lacks; (how many were written, the first label
    the target now contradicts: set there since pass 1 read it)."""
    written = 0
    held: dict[str, dict[int, MemoryLabelRow]] = {}
    for label in labels:
        row = label.row
        if row.memory_artifact_id not in held:
            held[row.memory_artifact_id] = await _history(tx, row.memory_artifact_id)
        history = held[row.memory_artifact_id]
        if conflict(row, history) is not None:
            return written, label
        if row.label_version in history:
            continue
        if not await tx.insert_memory_label(row):
            return written, label
        history[row.label_version] = row
        written += 1
    return written, None
