"""The one way a write reaches the database, whichever operation planned it.

Remember, Forget, Reactivate, Organize, Merge, Restore and UndoMerge each plan a commit on
a base revision; this engine then answers a request id once per caller (and replays the
recorded answer after that), commits through the backend's head compare-and-swap with the
outcome recorded in the same transaction, wakes the follow streams, reports lost races to
the observer and builds the result. The rules of request ids are domain/idempotency.py.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from collections.abc import Awaitable, Callable, Iterator
from typing import ParamSpec

from .api import EntryInput, WriteResult
from .backends.database import DatabaseMemoryBackend, WriteAlreadyRecorded
from .candidates import Suggestion
from .candidates import record as extraction_record
from .domain import idempotency, lifecycle
from .domain.errors import DataLossError, RevisionConflictError
from .domain.idempotency import IdempotencyKey, RecordedOutcome, RequestScope
from .domain.lifecycle import EntryResult
from .domain.models import ArtifactRef, MemoryChange, Revision
from .notifier import HeadWatcher
from .secret_refusal import refuse_secret
from .security.caller import current_caller

logger = logging.getLogger(__name__)

P = ParamSpec("P")
AttachVectors = Callable[[lifecycle.CommitPlan], Awaitable[lifecycle.CommitPlan]]
ReplayRecorded = Callable[[RequestScope], Awaitable[WriteResult | None]]


@dataclasses.dataclass(frozen=True)
class PlannedWrite:
    """What an operation decided on `base`: the commit (None: nothing changes), the entry
    results, and for EXTRACT the admitted candidates and suggestions it answers with."""

    base: Revision | None
    commit: lifecycle.CommitPlan | None
    results: tuple[EntryResult, ...] = ()
    candidates: tuple[EntryInput, ...] = ()
    suggestions: tuple[Suggestion, ...] = ()


def write_result(
    base: Revision | None, revision: Revision | None, results: tuple[EntryResult, ...] = ()
) -> WriteResult:
    """The answer to a write: the new revision when it committed, else the unchanged base."""
    if revision is not None:
        return WriteResult(
            revision.ref, True, revision.content.content_hash, revision.content.changes, results
        )
    if base is not None:
        return WriteResult(base.ref, False, base.content.content_hash, (), results)
    return WriteResult(None, False, "", (), results)


class WriteEngine:
    def __init__(
        self,
        backend: DatabaseMemoryBackend,
        notifier: HeadWatcher,
        attach_vectors: AttachVectors,
        new_id: lifecycle.IdFactory,
    ) -> None:
        self.backend = backend
        self.notifier = notifier
        # Computes the commit's vectors outside the transaction (Embedder.with_vectors).
        self.attach_vectors = attach_vectors
        # Planners draw new memory, entry and version ids from here.
        self.new_id = new_id

    async def run(
        self,
        operation: str,
        key: IdempotencyKey | None,
        plan: Callable[P, Awaitable[PlannedWrite]],
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> WriteResult:
        """Plan and commit one write, once per (caller, request id): a repeat gets the
        recorded outcome.

        The record is looked up before planning, so a retry is answered even after the head
        moved on. A call that races another with the same id loses at the head CAS or at the
        record's unique key; it then answers with the winner's outcome.
        """
        with self.reporting_conflicts(operation):
            request_id = (
                idempotency.validate_request_id("request_id", key.request_id) if key else None
            )
            if key is None or request_id is None:
                return await self.finish(await plan(*args, **kwargs))
            refuse_secret("request_id", request_id)  # kept with the write's record
            scope = RequestScope(current_caller().key, request_id, key.fingerprint)
            replayed = await self.replay(scope)
            if replayed is not None:
                return replayed
            try:
                return await self.finish(await plan(*args, **kwargs), scope)
            except (RevisionConflictError, WriteAlreadyRecorded):
                replayed = await self.replay(scope)
                if replayed is None:
                    raise
                return replayed

    @contextlib.contextmanager
    def reporting_conflicts(self, operation: str) -> Iterator[None]:
        """Report every ABORTED (stale base or lost CAS) that leaves the block."""
        try:
            yield
        except RevisionConflictError:
            self.backend.observer.cas_conflict(operation)
            raise

    async def replay(self, scope: RequestScope) -> WriteResult | None:
        """The response recorded for this request id (changes read back from the revision)."""
        async with self.backend.read() as session:
            recorded = await session.recorded_write(scope.caller_key, scope.request_id)
            if recorded is None:
                return None
            fingerprint, outcome = recorded
            idempotency.require_same_request(scope.request_id, scope.fingerprint, fingerprint)
            changes: tuple[MemoryChange, ...] = ()
            if outcome.changed and outcome.memory is not None:
                ref = outcome.memory
                found = await session.changes(ref.artifact_id, ref.revision, ref.revision)
                if [c.content_hash for c in found] != [outcome.content_hash]:
                    # Committed in one transaction with that revision: a mismatch is damage.
                    raise DataLossError(
                        f"write_requests[{scope.request_id}] names {ref} with hash "
                        f"{outcome.content_hash}, which is not what is stored",
                        metadata={"row": f"write_requests[{scope.request_id}]"},
                    )
                changes = found[0].changes
        logger.debug("write request %r answered from its record", scope.request_id)
        candidates, suggestions = extraction_record.decode(outcome.extraction)
        return WriteResult(
            outcome.memory,
            outcome.changed,
            outcome.content_hash,
            changes,
            outcome.results,
            candidates,
            suggestions,
        )

    async def finish(self, planned: PlannedWrite, scope: RequestScope | None = None) -> WriteResult:
        """Commit the plan (recording the outcome with it), or record a write that changes
        nothing in a small transaction of its own. EXTRACT's candidates and suggestions are
        part of the answer, and of the record."""
        base, plan, results = planned.base, planned.commit, planned.results
        extraction = (
            extraction_record.encode(planned.candidates, planned.suggestions) if scope else ""
        )
        if plan is None:
            result = write_result(base, None, results)
            if scope is not None:
                await self.backend.record_write(
                    scope.record(
                        RecordedOutcome(
                            result.memory, False, result.content_hash, results, extraction
                        )
                    )
                )
        else:
            record = None
            if scope is not None:
                next_ref = ArtifactRef(plan.artifact_id, plan.next_revision)
                outcome = RecordedOutcome(
                    next_ref, True, plan.content.content_hash, results, extraction
                )
                record = scope.record(outcome)
            result = write_result(base, await self._commit(plan, record), results)
        return dataclasses.replace(
            result, candidates=planned.candidates, suggestions=planned.suggestions
        )

    async def _commit(
        self, plan: lifecycle.CommitPlan, record: idempotency.WriteRecord | None
    ) -> Revision:
        plan = await self.attach_vectors(plan)
        revision = await self.backend.commit(plan, record, current_caller().source_scope)
        self.notifier.publish(plan.artifact_id)
        self.backend.observer.committed(plan.lineage.operation)
        return revision
