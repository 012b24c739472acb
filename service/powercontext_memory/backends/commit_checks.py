"""What a commit checks inside its transaction: never trust ids or versions from the caller."""

from __future__ import annotations

from collections.abc import Sequence

from ..domain.errors import FailedPreconditionError, InvalidArgumentError, NotFoundError
from ..domain.lifecycle import CommitPlan
from .port import WriteTransaction


async def check_evidence(
    tx: WriteTransaction, plan: CommitPlan, within: Sequence[str] | None
) -> None:
    """Reload every evidence object in the transaction; never trust ids from the caller. With
    `within`, a source those memories do not have answers as one that does not exist."""
    if plan.evidence_sources:
        ids = [s.source_id for s in plan.evidence_sources]
        stored = {r.source_id: r.content_hash for r in await tx.source_rows(ids)}
        if within:
            readable = await tx.source_links(ids, within)
            stored = {k: v for k, v in stored.items() if k in readable}
        for ref in plan.evidence_sources:
            if ref.source_id not in stored:
                raise NotFoundError(
                    f"source {ref.source_id} is not persisted; PutSource it first",
                    reason="SOURCE_NOT_FOUND",
                    metadata={"sourceId": ref.source_id},
                )
            if stored[ref.source_id] != ref.content_hash:
                raise InvalidArgumentError(
                    "sources",
                    f"source {ref.source_id} has hash {stored[ref.source_id]}, "
                    f"not {ref.content_hash}",
                    reason="SOURCE_HASH_MISMATCH",
                )
    if plan.evidence_artifacts:
        wanted = [(a.artifact_id, a.revision) for a in plan.evidence_artifacts]
        existing = await tx.existing_revisions(wanted)
        for artifact_id, revision in wanted:
            if (artifact_id, revision) not in existing:
                raise NotFoundError(
                    f"artifact revision {artifact_id}@{revision} does not exist",
                    reason="ARTIFACT_NOT_FOUND",
                    metadata={"artifactId": artifact_id, "revision": str(revision)},
                )


async def check_predecessors(tx: WriteTransaction, plan: CommitPlan) -> None:
    """A revised version links to the real, directly preceding version of the same entry."""
    previous_ids = [v.previous_version_id for v in plan.new_versions if v.previous_version_id]
    if not previous_ids:
        return
    rows = {r.entry_version_id: r for r in await tx.entry_version_rows(previous_ids)}
    for version in plan.new_versions:
        if version.previous_version_id is None:
            continue
        prev = rows.get(version.previous_version_id)
        if (
            prev is None
            or prev.memory_artifact_id != version.memory_artifact_id
            or prev.entry_id != version.entry_id
            or prev.version + 1 != version.version
        ):
            raise FailedPreconditionError(
                f"entry {version.entry_id}: predecessor {version.previous_version_id} "
                "is not its direct previous version",
                reason="ENTRY_VERSION_STALE",
                metadata={"entryId": version.entry_id},
            )
