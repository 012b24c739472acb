"""The rows a commit writes, derived from its plan (and the projection a head implies)."""

from __future__ import annotations

import asyncio

from ..domain.descriptions import delimited_tags
from ..domain.lifecycle import CommitPlan, ProjectionRow, searchable_text
from ..domain.models import EntryState, Revision
from . import codec
from .port import HeadProjectionRow, RevisionRow
from .read_session import ReadSession

# Manifest rows from which a commit hashes its content off the event loop (below, the thread
# hand-off costs more than it frees; bench/storage.py times commits as a memory grows).
HASH_IN_THREAD_ROWS = 2000


async def expected_projection(session: ReadSession, revision: Revision) -> list[HeadProjectionRow]:
    """The projection rows a head revision implies (rebuild and verifier use this)."""
    active = [e for e in revision.content.entries if e.state is EntryState.ACTIVE]
    versions = await session.versions([e.entry_version_id for e in active])
    return [
        HeadProjectionRow(
            revision.ref.artifact_id,
            e.entry_id,
            e.entry_version_id,
            e.entry_content_hash,
            searchable_text(content := versions[e.entry_version_id].content),
            kind=content.kind,
            description=content.description,
            tags=delimited_tags(content.tags),
        )
        for e in active
    ]


def head_row(artifact_id: str, row: ProjectionRow) -> HeadProjectionRow:
    return HeadProjectionRow(
        artifact_id,
        row.entry_id,
        row.entry_version_id,
        row.entry_content_hash,
        row.searchable_text,
        row.embedding,
        row.embedding_content_hash,
        kind=row.kind,
        description=row.description,
        tags=delimited_tags(row.tags),
    )


async def revision_row(plan: CommitPlan, committed_at_ms: int) -> RevisionRow:
    content = plan.content
    if "content_hash" not in content.__dict__ and content.entry_count >= HASH_IN_THREAD_ROWS:
        # The one step of a commit that grows with the memory (SHA-256 over the whole flat-v1
        # bytes): in a thread (hashlib releases the GIL), so the event loop keeps serving and
        # the transaction's checks run meanwhile.
        await asyncio.to_thread(lambda: content.content_hash)
    return codec.revision_to_row(
        plan.artifact_id, plan.next_revision, content, plan.lineage, committed_at_ms
    )
