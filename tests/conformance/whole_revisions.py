"""Rewrite stored revisions into the layout of servers before manifest pieces: the whole
canonical content in artifact_revisions.content, no root, no pieces (an "old database")."""

from __future__ import annotations

from powercontext_memory.domain.models import ArtifactRef
from powercontext_memory.memory import MemoryService

from .tamper import Tamper


async def store_revisions_whole(
    service: MemoryService, tamper: Tamper, revision: int | None = None
) -> int:
    """Every revision (or every revision numbered `revision`) as a pre-pieces row; pieces no
    longer named by any row are dropped. Returns how many rows were rewritten."""
    rows = 0
    async with service.backend.read() as session:
        for artifact_id in await session.tx.artifact_ids():
            head = await session.head(artifact_id)
            for number in range(1, head + 1):
                if revision is not None and number != revision:
                    continue
                content = (await session.revision(ArtifactRef(artifact_id, number))).content
                rows += tamper.execute(
                    "UPDATE artifact_revisions SET content = ?, manifest_root = NULL "
                    "WHERE artifact_id = ? AND revision = ?",
                    (content.canonical_bytes.decode("utf-8"), artifact_id, number),
                )
    if revision is None:
        tamper.execute("DELETE FROM manifest_pieces")
    return rows
