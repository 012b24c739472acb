"""Wire conversion of the listing, merge and restore answers (the rest is convert.py)."""

from __future__ import annotations

from typing import Any

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types

from ..api import (
    EntryPage,
    ListedEntry,
    MemoryLabel,
    MemoryPage,
    MergeResult,
    RecallManifestPage,
    RestoreOutcome,
    RestorePreview,
    RestoreResult,
)
from .convert import (
    ENTRY_STATUSES,
    artifact_ref_pb,
    citation_pb,
    entry_ref_pb,
    memory_changes_pb,
    timestamp,
)


def listed_entry_pb(entry: ListedEntry) -> types.ListedEntry:
    msg = types.ListedEntry(
        citation=citation_pb(entry.citation),
        kind=entry.kind,
        description=entry.description,
        status=ENTRY_STATUSES.to_pb(entry.status),
        tags=entry.tags,
        entry_content_hash=entry.entry_content_hash,
        merged_into_entry_id=entry.merged_into or "",
    )
    if entry.text is not None:
        msg.text = entry.text
    return msg


def recall_manifest_response(page: RecallManifestPage) -> pb.GetRecallManifestResponse:
    code = (
        pb.RECALL_MANIFEST_CODE_EMPTY_MEMORY if page.empty_memory else pb.RECALL_MANIFEST_CODE_PAGE
    )
    return pb.GetRecallManifestResponse(
        memory=artifact_ref_pb(page.memory),
        items=[listed_entry_pb(e) for e in page.items],
        next_page_token=page.next_page_token,
        code=code,
    )


def list_entries_response(page: EntryPage) -> pb.ListEntriesResponse:
    return pb.ListEntriesResponse(
        memory=artifact_ref_pb(page.memory),
        entries=[listed_entry_pb(e) for e in page.entries],
        next_page_token=page.next_page_token,
    )


def merge_response(result: MergeResult) -> pb.MergeResponse:
    return pb.MergeResponse(
        memory=artifact_ref_pb(result.memory),
        content_hash=result.content_hash,
        changes=memory_changes_pb(result.changes),
        result=entry_ref_pb(result.result),
    )


def restore_outcome_pb(outcome: RestoreOutcome) -> types.RestoreOutcome:
    return types.RestoreOutcome(
        restored=[entry_ref_pb(r) for r in outcome.restored],
        retired=[entry_ref_pb(r) for r in outcome.retired],
        undone_merge_results=outcome.undone_merge_results,
    )


def _restore_fields(result: RestoreResult) -> dict[str, Any]:
    return {
        "memory": artifact_ref_pb(result.memory),
        "changed": result.changed,
        "content_hash": result.content_hash,
        "changes": memory_changes_pb(result.changes),
        "outcome": restore_outcome_pb(result.outcome),
    }


def restore_response(result: RestoreResult) -> pb.RestoreResponse:
    return pb.RestoreResponse(**_restore_fields(result))


def undo_merge_response(result: RestoreResult) -> pb.UndoMergeResponse:
    return pb.UndoMergeResponse(**_restore_fields(result))


def preview_restore_response(preview: RestorePreview) -> pb.PreviewRestoreResponse:
    return pb.PreviewRestoreResponse(
        memory=artifact_ref_pb(preview.memory),
        outcome=restore_outcome_pb(preview.outcome),
        would_change=preview.would_change,
        preview_token=preview.preview_token,
        expires_at=timestamp(preview.expires_at_ms),
    )


def list_memories_response(page: MemoryPage) -> pb.ListMemoriesResponse:
    return pb.ListMemoriesResponse(
        memories=[
            pb.MemorySummary(
                head=artifact_ref_pb(m.head),
                active_entries=m.active_entries,
                inactive_entries=m.inactive_entries,
                created_at=timestamp(m.created_at_ms),
                changed_at=timestamp(m.changed_at_ms),
                last_operation=m.last_operation,
                label=m.label,
                label_version=m.label_version,
            )
            for m in page.memories
        ],
        next_page_token=page.next_page_token,
    )


def set_memory_label_response(label: MemoryLabel) -> pb.SetMemoryLabelResponse:
    response = pb.SetMemoryLabelResponse(
        memory_id=label.memory_id, label=label.label, label_version=label.label_version
    )
    if label.set_at_ms:
        response.set_at.CopyFrom(timestamp(label.set_at_ms))
    return response
