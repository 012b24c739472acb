"""The curation tools: merge_entries, preview_restore, restore_entry and undo_merge.

These writes carry no request id, so each is sent once (a lost answer is an error: read
recent_changes to see whether it committed). On a bare MEMORY the write is built on the head
and built again if another writer moved the head first (REVISION_CONFLICT: nothing was
written) — the CLI's rule, from the same code (cli/curation.py on_head). A merge pins the input
versions it is given (a citation) or first reads (an entry id): an input revised in between is
refused (ENTRY_VERSION_STALE) rather than merged unread. The merged text is kept as evidence,
as remember keeps the agent's words.

preview_restore returns what a restore or undo would bring back and retire, and a token;
restore_entry / undo_merge with that token apply exactly that while nothing relevant changed
(PREVIEW_STALE otherwise: preview again).
"""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Literal, TypeVar

from mcp_types import CallToolResult
from pydantic import BaseModel, Field

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types

from ..cli import refs
from ..cli.commands import _manifest_entry
from ..cli.curation import on_head
from ..cli.refs import format_citation, format_memory
from ..requests import citation
from . import results
from .errors import BridgeError
from .tools import EntryId, MemoryArg, Reason, guarded

if TYPE_CHECKING:
    from .tools import Tools

R = TypeVar("R")

_OPERATIONS = {
    "restore": types.RESTORE_OPERATION_RESTORE,
    "undo_merge": types.RESTORE_OPERATION_UNDO_MERGE,
}
PreviewToken = Annotated[
    str | None,
    Field(description="the token preview_restore returned: apply exactly what it showed"),
]
VersionId = Annotated[
    str | None,
    Field(
        description="restore this historical version of the entry (it becomes a new version "
        "linked to the current one); default: the version it had when forgotten or merged"
    ),
]


class EntryVersion(BaseModel):
    citation: str = Field(description="MEMORY@REVISION/ENTRY_ID/VERSION_ID, for expand_citation")
    entry_id: str
    entry_version_id: str


class MergeResult(BaseModel):
    memory: str = Field(description="the memory id")
    revision: int = Field(description="the head revision after the merge")
    result: EntryVersion = Field(description="the new, merged entry")
    changes: list[results.Change]


class RestoreResult(BaseModel):
    memory: str = Field(description="the memory (at the revision read or written)")
    changed: bool = Field(description="false when nothing would change / changed")
    restored: list[EntryVersion] = Field(description="entries active again")
    retired: list[EntryVersion] = Field(description="merge results made inactive")
    undone_merge_results: list[str] = Field(description="merges undone, outermost first")
    changes: list[results.Change] = Field(description="restore_entry / undo_merge only")
    preview_token: str | None = Field(
        default=None, description="preview_restore only: pass it to restore_entry / undo_merge"
    )
    expires_at: str | None = Field(default=None, description="when the preview token expires")


def _refs(memory: types.ArtifactRef, found: list[types.EntryRef]) -> list[EntryVersion]:
    return [
        EntryVersion(
            citation=format_citation(memory, r.entry_id, r.entry_version_id),
            entry_id=r.entry_id,
            entry_version_id=r.entry_version_id,
        )
        for r in found
    ]


def restore_result(
    memory: types.ArtifactRef,
    changed: bool,
    outcome: types.RestoreOutcome,
    changes: list[types.MemoryChange],
) -> RestoreResult:
    return RestoreResult(
        memory=format_memory(memory),
        changed=changed,
        restored=_refs(memory, list(outcome.restored)),
        retired=_refs(memory, list(outcome.retired)),
        undone_merge_results=list(outcome.undone_merge_results),
        changes=[results.change(c) for c in changes],
    )


def restore_text(result: RestoreResult, verb: str) -> str:
    lines = [f"{verb if result.changed else 'no change to'} {result.memory}"]
    lines += [f"- restored {e.entry_id} (cite {e.citation})" for e in result.restored]
    lines += [f"- retired {e.entry_id}" for e in result.retired]
    if result.undone_merge_results:
        lines.append(f"merges undone: {', '.join(result.undone_merge_results)}")
    if result.preview_token:
        lines.append(f"preview_token: {result.preview_token} (expires {result.expires_at})")
    return "\n".join(lines)


class Curation:
    def __init__(self, tools: Tools) -> None:
        self.tools = tools

    @guarded
    async def merge_entries(
        self,
        entries: Annotated[
            list[str],
            Field(
                max_length=100,
                description="two or more active entries: ENTRY_ID (its current version) or a "
                "citation MEMORY@REVISION/ENTRY_ID/VERSION_ID (only if still at that version)",
            ),
        ],
        text: Annotated[str, Field(min_length=1, description="the merged entry's text")],
        memory: MemoryArg = None,
        kind: Annotated[
            str | None, Field(description="the merged entry's kind (default: the inputs' kind)")
        ] = None,
        description: Annotated[
            str | None, Field(description="one line (default: derived from the text)")
        ] = None,
        tags: Annotated[
            list[str] | None, Field(description="the merged entry's tags (default: the inputs')")
        ] = None,
        reason: Reason = None,
    ) -> Annotated[CallToolResult, MergeResult]:
        """Fold duplicate or overlapping entries into one new entry, in one revision. The
        inputs become merged (no longer recalled; their citations still verify) and the new
        entry keeps all their evidence. undo_merge or restore_entry brings them back."""
        client = self.tools.client
        memory_ref = self.tools._memory(memory)
        first = await client.get_memory(memory_ref)
        cited = [_pinned(first, item) for item in entries]
        pinned = [
            types.EntryRef(entry_id=c.entry_id, entry_version_id=c.entry_version_id) for c in cited
        ]
        if kind is None:  # with no inputs the server names that problem (inputs first)
            kind = await self._common_kind(cited) if cited else ""
        note = await self.tools._note(text, "merge_entries", memory_ref.artifact_id)

        async def send(head: pb.GetMemoryResponse) -> pb.MergeResponse:
            return await client.merge(
                head.memory,
                pinned,
                text,
                kind=kind,
                description=description,
                tags=tags or (),
                sources=[note],
                reason=reason,
            )

        response = await on_head(client, memory_ref, send)
        [made] = _refs(response.memory, [response.result])
        done = MergeResult(
            memory=response.memory.artifact_id,
            revision=response.memory.revision,
            result=made,
            changes=[results.change(c) for c in response.changes],
        )
        text_out = f"merged into {made.entry_id} at {format_memory(response.memory)}\n"
        return results.tool_result(done, text_out + f"cite {made.citation}")

    async def _common_kind(self, cited: list[types.Citation]) -> str:
        kinds = {e.version.kind for e in (await self.tools.client.expand(cited)).entries}
        if len(kinds) != 1:
            raise BridgeError(
                "KIND_REQUIRED",
                "INVALID_ARGUMENT",
                f"the inputs have kinds {', '.join(sorted(kinds))}: give the merged entry's kind",
            )
        return kinds.pop()

    @guarded
    async def preview_restore(
        self,
        entry_id: EntryId,
        operation: Annotated[
            Literal["restore", "undo_merge"],
            Field(description="restore: bring this entry back; undo_merge: undo this merge"),
        ] = "restore",
        entry_version_id: VersionId = None,
        memory: MemoryArg = None,
    ) -> Annotated[CallToolResult, RestoreResult]:
        """What restore_entry or undo_merge would bring back and retire, without changing
        anything, and a token that applies exactly that while nothing relevant changes."""
        preview = await self.tools.client.preview_restore(
            self.tools._memory(memory),
            entry_id,
            operation=_OPERATIONS[operation],
            entry_version_id=entry_version_id or "",
        )
        found = restore_result(preview.memory, preview.would_change, preview.outcome, [])
        found.preview_token = preview.preview_token
        found.expires_at = preview.expires_at.ToJsonString()
        return results.tool_result(found, restore_text(found, "would change"))

    @guarded
    async def restore_entry(
        self,
        entry_id: EntryId,
        entry_version_id: VersionId = None,
        preview_token: PreviewToken = None,
        memory: MemoryArg = None,
        reason: Reason = None,
    ) -> Annotated[CallToolResult, RestoreResult]:
        """Bring an entry back: a forgotten entry becomes active again; a merged one by
        undoing the merges that folded it (their results are retired). Restoring an active
        entry changes nothing."""
        client = self.tools.client

        async def send(head: types.ArtifactRef) -> pb.RestoreResponse:
            return await client.restore(
                head,
                entry_id,
                entry_version_id=entry_version_id or "",
                preview_token=preview_token or "",
                reason=reason,
            )

        response = await self._apply(memory, preview_token, send)
        done = restore_result(
            response.memory, response.changed, response.outcome, list(response.changes)
        )
        return results.tool_result(done, restore_text(done, "restored in"))

    @guarded
    async def undo_merge(
        self,
        entry_id: Annotated[str, Field(description="the merged entry (a merge result)")],
        preview_token: PreviewToken = None,
        memory: MemoryArg = None,
        reason: Reason = None,
    ) -> Annotated[CallToolResult, RestoreResult]:
        """Undo the merge that produced an entry: its inputs become active again (as they
        were) and the merged entry is retired, with any later merge that folded it."""
        client = self.tools.client

        async def send(head: types.ArtifactRef) -> pb.UndoMergeResponse:
            return await client.undo_merge(
                head, entry_id, preview_token=preview_token or "", reason=reason
            )

        response = await self._apply(memory, preview_token, send)
        done = restore_result(
            response.memory, response.changed, response.outcome, list(response.changes)
        )
        return results.tool_result(done, restore_text(done, "undone in"))

    async def _apply(
        self,
        memory: str | None,
        preview_token: str | None,
        send: Callable[[types.ArtifactRef], Awaitable[R]],
    ) -> R:
        """With a preview token the token's check replaces the head check (revision 0 is
        allowed): sent once as given. Without one, on the head like any write."""
        memory_ref = self.tools._memory(memory)
        if preview_token:
            return await send(memory_ref)
        return await on_head(self.tools.client, memory_ref, lambda head: send(head.memory))


def _pinned(head: pb.GetMemoryResponse, item: str) -> types.Citation:
    """An entry id at its version in `head`, or the exact version a citation names (cited
    where it was read, so that its kind can be read there even if it is stale now)."""
    item = item.strip()
    if "/" not in item:
        version = _manifest_entry(head, item).entry_version_id
        return citation(head.memory, item, version)
    try:
        return refs.citation(item)
    except argparse.ArgumentTypeError as error:
        raise BridgeError("INVALID_CITATION", "INVALID_ARGUMENT", str(error)) from None
