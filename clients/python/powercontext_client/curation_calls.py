"""Merge, Restore, UndoMerge and PreviewRestore. The writes carry no request id, so once a
server may have seen one it is never sent again: a lost answer is raised."""

from __future__ import annotations

from collections.abc import Iterable

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types

from .call_core import _UNSET, CallCore
from .requests import as_ref


class CurationCalls(CallCore):
    async def merge(
        self,
        memory: types.ArtifactRef,
        inputs: Iterable[types.EntryRef],
        text: str,
        *,
        kind: str,
        description: str | None = None,
        tags: Iterable[str] = (),
        sources: Iterable[types.SourceRef] = (),
        artifacts: Iterable[types.ArtifactRef] = (),
        reason: str | None = None,
        timeout: float | None = _UNSET,
    ) -> pb.MergeResponse:
        """Fold two or more active entries (their current versions) of the head `memory` into
        one new entry with `text`; they become merged. Tags default to the union of theirs;
        `sources` / `artifacts` are the operation's evidence besides the inputs' own."""
        request = pb.MergeRequest(
            memory=memory,
            inputs=inputs,
            kind=kind,
            text=text,
            description=description,
            tags=tags,
            sources=sources,
            artifacts=artifacts,
            reason=reason,
        )
        return await self._call(self.stub.Merge, request, timeout=timeout, read=False)

    async def restore(
        self,
        memory: types.ArtifactRef,
        entry_id: str,
        *,
        entry_version_id: str = "",
        preview_token: str = "",
        reason: str | None = None,
        timeout: float | None = _UNSET,
    ) -> pb.RestoreResponse:
        """Bring an entry back: reactivate a forgotten one, undo the merges that froze a merged
        one; `entry_version_id` restores that historical version as a new version. With the
        `preview_token` of preview_restore(), `memory` may be revision 0 and the write applies
        only if nothing relevant changed since the preview (else RevisionConflict,
        reason PREVIEW_STALE)."""
        request = pb.RestoreRequest(
            memory=memory,
            entry_id=entry_id,
            entry_version_id=entry_version_id,
            preview_token=preview_token,
            reason=reason,
        )
        return await self._call(self.stub.Restore, request, timeout=timeout, read=False)

    async def undo_merge(
        self,
        memory: types.ArtifactRef,
        entry_id: str,
        *,
        preview_token: str = "",
        reason: str | None = None,
        timeout: float | None = _UNSET,
    ) -> pb.UndoMergeResponse:
        """Undo the merge that produced `entry_id` (and the later merges that froze it)."""
        request = pb.UndoMergeRequest(
            memory=memory, entry_id=entry_id, preview_token=preview_token, reason=reason
        )
        return await self._call(self.stub.UndoMerge, request, timeout=timeout, read=False)

    async def preview_restore(
        self,
        memory: str | types.ArtifactRef,
        entry_id: str,
        *,
        operation: types.RestoreOperation = types.RESTORE_OPERATION_RESTORE,
        entry_version_id: str = "",
        timeout: float | None = _UNSET,
    ) -> pb.PreviewRestoreResponse:
        """What restore() (or, with RESTORE_OPERATION_UNDO_MERGE, undo_merge()) would do at
        the head, and a signed token that applies exactly that until it expires. Writes
        nothing."""
        request = pb.PreviewRestoreRequest(
            memory=as_ref(memory),
            operation=operation,
            entry_id=entry_id,
            entry_version_id=entry_version_id,
        )
        return await self._call(self.stub.PreviewRestore, request, timeout=timeout, read=True)
