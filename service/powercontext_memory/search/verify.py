"""The verified-hit filter: a search answers only what the authoritative head manifest says.

The projection that channels read is rebuildable and may be stale or damaged; a candidate is
answered only when the head manifest confirms it (active, exact version, same content hash)
and its version, checked against its canonical bytes (when this process first read the
immutable row: backends/version_cache.py), has that hash too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..api import NO_FILTER, EntryFilter, Hit, TagMatch
from ..backends.read_session import ReadSession
from ..domain import fusion
from ..domain.entry_filters import matches
from ..domain.models import ArtifactRef, EntryState, MemoryContent


async def verified_hits(
    session: ReadSession,
    heads: Sequence[ArtifactRef],
    fused: Sequence[fusion.FusedHit],
    candidates: Mapping[fusion.HitKey, str],
    limit: int,
    filters: EntryFilter = NO_FILTER,
) -> list[Hit]:
    """The first `limit` fused hits that the head manifests and version rows confirm.

    `candidates` maps each key to the projection's content hash. Entry versions are read
    only for the hits returned, in one statement per round. The channels already applied
    `filters` on the projection; the verified version must pass them too (the projection
    is not authoritative)."""
    head_by_id = {h.artifact_id: h for h in heads}
    contents: dict[str, MemoryContent] = {}  # each head's manifest, read once if needed
    pending = iter(fused)
    hits: list[Hit] = []
    while len(hits) < limit:
        # Confirm only as many candidates as are still wanted (a manifest lookup is a
        # bisection over its pieces), then read their versions in one statement.
        batch: list[tuple[fusion.FusedHit, ArtifactRef, str]] = []
        for hit in pending:
            ref = head_by_id[hit.key.memory_artifact_id]
            content = contents.get(ref.artifact_id)
            if content is None:
                content = contents[ref.artifact_id] = (await session.revision(ref)).content
            entry = content.entry(hit.key.entry_id)
            if (
                entry is not None
                and entry.state is EntryState.ACTIVE
                and entry.entry_version_id == hit.key.entry_version_id
                and entry.entry_content_hash == candidates[hit.key]
            ):
                batch.append((hit, ref, entry.entry_content_hash))
                if len(batch) == limit - len(hits):
                    break
            # else: a projection row not backed by the manifest is never returned
        if not batch:
            break
        versions = await session.versions(
            [h.key.entry_version_id for h, _, _ in batch], verified_before=True
        )
        for hit, ref, content_hash in batch:
            version = versions[hit.key.entry_version_id]
            if version.entry_content_hash != content_hash:
                continue
            entry_content = version.content
            if not filters.empty and not matches(
                entry_content.kind,
                entry_content.tags,
                filters.kinds,
                filters.tags,
                match_all=filters.tag_match is TagMatch.ALL,
            ):
                continue
            hits.append(
                Hit(
                    memory_ref=ref,
                    entry_id=version.entry_id,
                    entry_version_id=version.entry_version_id,
                    entry_content_hash=version.entry_content_hash,
                    kind=version.content.kind,
                    text=version.content.text,
                    score=hit.score,
                    matched_by=hit.matched_by,
                    description=entry_content.description or "",
                    tags=tuple(entry_content.tags),
                    channel_ranks=hit.ranks,
                )
            )
    return hits
