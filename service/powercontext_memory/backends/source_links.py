"""memory_sources rows: which memories may read a source (token allow-lists read them)."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence

from ..domain.models import Lineage, SourceRef
from .port import ReadTransaction, SourceLinkRow

logger = logging.getLogger(__name__)


def source_links(
    artifact_id: str, sources: Sequence[SourceRef], recorded_at_ms: int
) -> list[SourceLinkRow]:
    """The memory_sources rows that let `artifact_id`'s tokens read these sources."""
    ids = sorted({s.source_id for s in sources})
    return [SourceLinkRow(artifact_id, source_id, recorded_at_ms) for source_id in ids]


async def cited_source_links(tx: ReadTransaction, artifact_id: str) -> list[SourceLinkRow]:
    """The links of every source one memory's revisions cite (lineage or new versions), each
    at the time of the first revision that cites it."""
    committed: dict[int, int] = {}
    first: dict[str, int] = {}

    def cite(refs: Sequence[SourceRef], at_ms: int) -> None:
        for ref in refs:
            first[ref.source_id] = min(first.get(ref.source_id, at_ms), at_ms)

    for revision, committed_at_ms, lineage in await tx.lineage_rows(artifact_id):
        committed[revision] = committed_at_ms
        try:
            cite(Lineage.from_json(json.loads(lineage)).sources, committed_at_ms)
        except (KeyError, TypeError, ValueError) as error:
            where = f"artifact_revisions[{artifact_id}@{revision}]"
            logger.warning("not linking the sources of %s: %s", where, error)
    for row in await tx.all_entry_version_rows(artifact_id):
        try:
            refs = [SourceRef.from_json(r) for r in json.loads(row.source_refs)]
        except (KeyError, TypeError, ValueError) as error:
            where = f"memory_entry_versions[{row.entry_version_id}]"
            logger.warning("not linking the sources of %s: %s", where, error)
            continue
        cite(refs, committed.get(row.created_in_revision, 0))
    return [SourceLinkRow(artifact_id, source_id, at) for source_id, at in sorted(first.items())]
