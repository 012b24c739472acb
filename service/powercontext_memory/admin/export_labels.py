"""The `label` record of the export file (format version 2, export_format.py).

One record per label ever set on a memory (SetMemoryLabel), as stored: versions 1..n in
order, right after the memory's last revision. No hash covers a label (it is not part of any
revision); the trailer's digest catches edits, and the importer checks what the service would
have accepted.
"""

from __future__ import annotations

from typing import Any

from ..backends.port import MemoryLabelRow
from ..domain.descriptions import description_problem
from .export_format import RecordError, _fields, _id, _int, _str


def label_problem(label: str) -> str | None:
    """Why SetMemoryLabel could not have stored `label`, or None.

    The stored form is what memory_catalog.normalize_label answers: "" (cleared) or one NFC,
    trimmed line within the description limit, so that rule must hold for it as it is. Secrets
    are not refused here: like content, a label is moved as stored and the importer warns."""
    if not label:
        return None
    return description_problem(label)


def label_record(row: MemoryLabelRow) -> dict[str, Any]:
    return {
        "label": row.label,
        "label_version": row.label_version,
        "memory_artifact_id": row.memory_artifact_id,
        "record": "label",
        "set_at_ms": row.set_at_ms,
    }


def parse_label(record: dict[str, Any]) -> MemoryLabelRow:
    """A label record whose label obeys the rule SetMemoryLabel stores by."""
    _fields(record, "label", "label_version", "memory_artifact_id", "set_at_ms")
    row = MemoryLabelRow(
        memory_artifact_id=_id(record, "memory_artifact_id"),
        label_version=_int(record, "label_version", 1),
        label=_str(record, "label"),
        set_at_ms=_int(record, "set_at_ms"),
    )
    problem = label_problem(row.label)
    if problem is not None:
        raise RecordError(
            f"label version {row.label_version} of memory {row.memory_artifact_id} {problem} "
            "(a label is empty or one NFC-normalized, trimmed line)"
        )
    return row
