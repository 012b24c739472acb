"""Merge, Restore, UndoMerge and PreviewRestore: validation, reads and preview tokens.

The rules are pure planners (domain/merging.py); commits go through the write engine like
every other write (head CAS, projection upserts and removals, vectors outside the transaction).
A preview writes nothing and holds no lock: its signed token binds the caller, memory,
operation, target and a fingerprint of every manifest row the plan reads or changes, so an
apply with it succeeds at any later head where none of those rows changed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from .api import (
    EntryInput,
    MergeResult,
    RestoreOperation,
    RestoreOutcome,
    RestorePreview,
    RestoreResult,
    WriteResult,
)
from .backends import codec
from .backends.database import DatabaseMemoryBackend
from .backends.read_session import ReadSession
from .domain import merging, validation
from .domain.errors import (
    AbortedError,
    FailedPreconditionError,
    InvalidArgumentError,
    RevisionConflictError,
)
from .domain.lifecycle import CommitPlan, EntryRef
from .domain.models import ArtifactRef, EntryVersion, Lineage, Revision
from .request_checks import checked_reason, entry_spec, require_memory_ref
from .security.caller import current_caller
from .security.signing import PREVIEW, TokenSigner
from .write_engine import PlannedWrite, WriteEngine

DEFAULT_PREVIEW_TTL_SECONDS = 600.0
TOKEN_FIELD = "preview_token"


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass(frozen=True)
class _Target:
    """What a restore-family request names (and what its preview token is bound to)."""

    operation: RestoreOperation
    entry_id: str
    entry_version_id: str | None

    @property
    def undo_merge(self) -> bool:
        return self.operation is RestoreOperation.UNDO_MERGE


class MergeOperations:
    """Curation of a memory's entries; the service front delegates these requests here."""

    def __init__(
        self, backend: DatabaseMemoryBackend, writes: WriteEngine, signer: TokenSigner
    ) -> None:
        self.backend = backend
        self.writes = writes
        self.signer = signer  # preview tokens, with the keys of the service's database
        # How long a preview token may be applied (a server option; tests set it to 0).
        self.preview_ttl_seconds = DEFAULT_PREVIEW_TTL_SECONDS

    # -- merge ----------------------------------------------------------------------------------

    async def merge(
        self,
        memory: ArtifactRef,
        inputs: Sequence[EntryRef],
        result: EntryInput,
        reason: str | None,
    ) -> MergeResult:
        """Fold active entries into one new entry (result.sources/artifacts: the operation's
        evidence; result.target must be None)."""
        require_memory_ref("memory", memory)
        if len(inputs) > validation.MAX_ENTRIES_PER_REQUEST:
            raise InvalidArgumentError(
                "inputs", f"at most {validation.MAX_ENTRIES_PER_REQUEST} entries per merge"
            )
        for i, ref in enumerate(inputs):
            validation.require_id(f"inputs[{i}].entry_id", ref.entry_id)
            validation.require_id(f"inputs[{i}].entry_version_id", ref.entry_version_id)
        merging.check_merge_inputs(inputs)
        if result.target is not None:
            raise InvalidArgumentError("result.entry", "a merge result is a new entry")
        lineage = Lineage(
            "merge",
            validation.validate_source_refs("sources", result.sources),
            validation.validate_artifact_refs("artifacts", result.artifacts),
        )
        # The result is checked like a Remember input (kind, text, description, tags, secrets);
        # the operation evidence belongs to the lineage, the inputs' evidence is added by the plan.
        spec = entry_spec("result", replace(result, sources=(), artifacts=(), reason=None))
        reason = checked_reason("reason", reason)
        async with self.backend.read() as session:
            base = await session.current(memory)
            rows = merging.merge_input_rows(base, inputs)
            versions = await session.versions([r.entry_version_id for r in rows])
        plan = merging.plan_merge(
            base=base,
            inputs=inputs,
            content=spec.content,
            reason=reason,
            lineage=lineage,
            versions=versions,
            new_id=self.writes.new_id,
        )
        written = await self._finish("merge", base, plan.commit)
        assert written.memory is not None
        return MergeResult(written.memory, written.content_hash, written.changes, plan.result)

    # -- restore and undo-merge -----------------------------------------------------------------

    async def restore(
        self,
        memory: ArtifactRef,
        entry_id: str,
        entry_version_id: str | None,
        preview_token: str,
        reason: str | None,
    ) -> RestoreResult:
        target = _Target(RestoreOperation.RESTORE, entry_id, entry_version_id or None)
        return await self._apply(memory, target, preview_token, reason)

    async def undo_merge(
        self, memory: ArtifactRef, entry_id: str, preview_token: str, reason: str | None
    ) -> RestoreResult:
        target = _Target(RestoreOperation.UNDO_MERGE, entry_id, None)
        return await self._apply(memory, target, preview_token, reason)

    async def preview_restore(
        self,
        memory: ArtifactRef,
        operation: RestoreOperation,
        entry_id: str,
        entry_version_id: str | None,
    ) -> RestorePreview:
        target = _Target(operation, entry_id, entry_version_id or None)
        _check_target(target)
        validation.require_id("memory.artifact_id", memory.artifact_id)
        validation.require_revision("memory.revision", memory.revision, allow_head=True)
        async with self.backend.read() as session:
            head = await session.head(memory.artifact_id)
            if memory.revision not in (0, head):
                raise RevisionConflictError(memory.artifact_id, memory.revision, head)
            base = await session.revision(ArtifactRef(memory.artifact_id, head))
            scope, plan = await self._plan(session, base, target, None, None)
        expires_at_ms = _now_ms() + int(self.preview_ttl_seconds * 1000)
        token = self.signer.sign(
            PREVIEW, self._binding(base.ref.artifact_id, target, scope, expires_at_ms)
        )
        effect = plan.effect
        # Refs as they are at the previewed head (a restored version's new id is not known yet).
        current = tuple(
            EntryRef(r.entry_id, row.entry_version_id if row else r.entry_version_id)
            for r in effect.restored
            for row in [base.content.entry(r.entry_id)]
        )
        outcome = RestoreOutcome(current, effect.retired, effect.undone_merge_results)
        return RestorePreview(base.ref, outcome, plan.commit is not None, token, expires_at_ms)

    async def _apply(
        self, memory: ArtifactRef, target: _Target, preview_token: str, reason: str | None
    ) -> RestoreResult:
        _check_target(target)
        validation.require_id("memory.artifact_id", memory.artifact_id)
        validation.require_revision(
            "memory.revision", memory.revision, allow_head=bool(preview_token)
        )
        reason = checked_reason("reason", reason)
        payload = self._verified_token(memory, target, preview_token) if preview_token else None
        async with self.backend.read() as session:
            if payload is None:
                base = await session.current(memory)
            else:
                # The token's fingerprint check takes the place of the head check.
                head = await session.head(memory.artifact_id)
                if memory.revision > head:
                    raise RevisionConflictError(memory.artifact_id, memory.revision, head)
                base = await session.revision(ArtifactRef(memory.artifact_id, head))
            previewed = None if payload is None else str(payload["fp"])
            _, plan = await self._plan(session, base, target, reason, previewed)
        written = await self._finish(target.operation.value, base, plan.commit)
        assert written.memory is not None
        effect = plan.effect
        outcome = RestoreOutcome(effect.restored, effect.retired, effect.undone_merge_results)
        return RestoreResult(
            written.memory, written.changed, written.content_hash, written.changes, outcome
        )

    async def _plan(
        self,
        session: ReadSession,
        base: Revision,
        target: _Target,
        reason: str | None,
        previewed: str | None,
    ) -> tuple[merging.RestoreScope, merging.RestorePlan]:
        """The plan at `base`; `previewed`: the fingerprint of a preview token, which the
        relevant state at `base` must still have (else PREVIEW_STALE, also when the target no
        longer qualifies: the state the preview saw is gone)."""
        try:
            scope = merging.restore_scope(base, target.entry_id, undo_merge=target.undo_merge)
        except FailedPreconditionError:
            if previewed is None:
                raise
            scope = None
        if previewed is not None and (scope is None or scope.fingerprint != previewed):
            raise AbortedError(
                f"preview_token: entries this {target.operation.value} reads or changes have "
                f"changed since the preview; preview again at {base.ref}",
                reason="PREVIEW_STALE",
                metadata={"field": TOKEN_FIELD, "headRevision": str(base.ref.revision)},
            )
        assert scope is not None
        versions = await session.versions(scope.version_ids)
        chosen: EntryVersion | None = None
        if target.entry_version_id is not None:
            chosen = await _version_or_none(session, target.entry_version_id)
            merging.check_restore_version(target.entry_id, chosen, base.ref.artifact_id)
        plan = merging.plan_restore(
            base=base,
            scope=scope,
            versions=versions,
            restore_version=chosen,
            undo_merge=target.undo_merge,
            reason=reason,
            new_id=self.writes.new_id,
        )
        return scope, plan

    # -- preview tokens -------------------------------------------------------------------------

    def _binding(
        self, artifact_id: str, target: _Target, scope: merging.RestoreScope, expires_at_ms: int
    ) -> dict[str, Any]:
        return {
            "caller": current_caller().key,
            "memory": artifact_id,
            "op": target.operation.value,
            "entry": target.entry_id,
            "version": target.entry_version_id or "",
            "fp": scope.fingerprint,
            "exp": expires_at_ms,
        }

    def _verified_token(self, memory: ArtifactRef, target: _Target, token: str) -> dict[str, Any]:
        """The token's payload: signed by a kept key, bound to this request, not expired."""
        payload = self.signer.verify(PREVIEW, token, TOKEN_FIELD)
        expected = {
            "caller": current_caller().key,
            "memory": memory.artifact_id,
            "op": target.operation.value,
            "entry": target.entry_id,
            "version": target.entry_version_id or "",
        }
        for key, value in expected.items():
            if payload.get(key) != value:
                what = "caller" if key == "caller" else key
                raise InvalidArgumentError(
                    TOKEN_FIELD,
                    f"was issued for another {what} (a token applies only to the caller, "
                    "memory, operation, entry and version it was previewed for)",
                    reason="PREVIEW_TOKEN_MISMATCH",
                    metadata={"mismatch": key},
                )
        expires_at_ms = payload.get("exp")
        if not isinstance(expires_at_ms, int) or not isinstance(payload.get("fp"), str):
            raise InvalidArgumentError(
                TOKEN_FIELD, "is not a preview token", reason="PREVIEW_TOKEN_INVALID"
            )
        if _now_ms() >= expires_at_ms:
            raise FailedPreconditionError(
                "preview_token: expired; preview again",
                reason="PREVIEW_EXPIRED",
                subject=TOKEN_FIELD,
                metadata={"field": TOKEN_FIELD, "expiredAtMs": str(expires_at_ms)},
            )
        return payload

    # -- commit ---------------------------------------------------------------------------------

    async def _finish(self, operation: str, base: Revision, plan: CommitPlan | None) -> WriteResult:
        """Commit without a request id; only a conflict at the commit itself is reported."""
        with self.writes.reporting_conflicts(operation):
            return await self.writes.finish(PlannedWrite(base, plan))


def _check_target(target: _Target) -> None:
    validation.require_id("entry_id", target.entry_id)
    if target.entry_version_id is not None:
        if target.undo_merge:
            raise InvalidArgumentError(
                "entry_version_id", "only RESTORE takes a version", reason="VERSION_NOT_ALLOWED"
            )
        validation.require_id("entry_version_id", target.entry_version_id)


async def _version_or_none(session: ReadSession, entry_version_id: str) -> EntryVersion | None:
    """One version by id, verified against its hash; None when there is no such row."""
    rows = await session.tx.entry_version_rows([entry_version_id])
    return codec.version_from_row(rows[0]) if rows else None
