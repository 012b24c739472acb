"""MemoryService over gRPC: convert the request, call the domain service, convert the result.

Validation lives in MemoryService; errors become statuses in transport/errors.py. This module
only adapts shapes and drives the Changes stream.
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import TypeAlias

import grpc

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc

from ..api import RevisionChanges
from ..follow import Progress
from ..memory import MemoryService
from ..security.caller import current_caller
from ..source_chunks import first_chunk
from . import convert, convert_curation
from .errors import grpc_errors
from .fingerprint import idempotency_key
from .shared_messages import SharedMessages
from .turns import WriteTurns

Context: TypeAlias = grpc.aio.ServicerContext  # noqa: UP040


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class MemoryServicer(pb_grpc.MemoryServiceServicer):
    def __init__(self, service: MemoryService) -> None:
        self._service = service
        self._turns = WriteTurns()
        self._messages = SharedMessages()  # Changes messages, one per revision (Changes)

    # -- sources --------------------------------------------------------------------------------

    @grpc_errors
    async def PutSource(
        self, request: pb.PutSourceRequest, context: Context
    ) -> pb.PutSourceResponse:
        source, created = await self._service.put_source(
            request.kind,
            request.uri,
            request.media_type,
            request.content,
            dict(request.metadata),
            request.memory_id or None,
        )
        echo = first_chunk(source)
        return pb.PutSourceResponse(
            source=convert.source_pb(echo.source),
            created=created,
            content_size=echo.content_size,
            content_truncated=echo.content_truncated,
        )

    @grpc_errors
    async def GetSource(
        self, request: pb.GetSourceRequest, context: Context
    ) -> pb.GetSourceResponse:
        chunk = await self._service.get_source_chunk(
            request.source_id, request.content_offset, request.content_limit
        )
        return pb.GetSourceResponse(
            source=convert.source_pb(chunk.source),
            content_size=chunk.content_size,
            content_truncated=chunk.content_truncated,
        )

    # -- writes ---------------------------------------------------------------------------------

    @grpc_errors
    async def Remember(self, request: pb.RememberRequest, context: Context) -> pb.RememberResponse:
        result = await self._service.remember(
            convert.remember_memory(request),
            convert.source_refs(request.sources),
            convert.artifact_refs(request.artifacts),
            [convert.entry_input(e) for e in request.entries],
            convert.REMEMBER_MODES.from_pb(request.mode, "mode"),
            idempotency_key=idempotency_key("Remember", request),
            extractors=list(request.extractors),
        )
        return convert.remember_response(result)

    @grpc_errors
    async def Forget(self, request: pb.ForgetRequest, context: Context) -> pb.ForgetResponse:
        result = await self._service.forget(
            convert.artifact_ref(request.memory),
            convert.entry_refs(request.entries),
            convert.reason(request),
            idempotency_key=idempotency_key("Forget", request),
        )
        return convert.forget_response(result)

    @grpc_errors
    async def Reactivate(
        self, request: pb.ReactivateRequest, context: Context
    ) -> pb.ReactivateResponse:
        result = await self._service.reactivate(
            convert.artifact_ref(request.memory),
            convert.entry_refs(request.entries),
            convert.reason(request),
            idempotency_key=idempotency_key("Reactivate", request),
        )
        return convert.reactivate_response(result)

    @grpc_errors
    async def Organize(self, request: pb.OrganizeRequest, context: Context) -> pb.OrganizeResponse:
        result = await self._service.organize(
            convert.artifact_ref(request.memory),
            convert.organize_steps(request),
            idempotency_key=idempotency_key("Organize", request),
        )
        return convert.organize_response(result)

    # Merge, Restore and UndoMerge carry no request_id: a client must not re-send one whose
    # answer was lost (Restore/UndoMerge with a preview token are refused as stale instead).

    @grpc_errors
    async def Merge(self, request: pb.MergeRequest, context: Context) -> pb.MergeResponse:
        result = await self._service.merge(
            convert.artifact_ref(request.memory),
            convert.entry_refs(request.inputs),
            convert.merge_result_input(request),
            convert.reason(request),
        )
        return convert_curation.merge_response(result)

    @grpc_errors
    async def Restore(self, request: pb.RestoreRequest, context: Context) -> pb.RestoreResponse:
        result = await self._service.restore(
            convert.artifact_ref(request.memory),
            request.entry_id,
            convert.entry_version_id(request),
            request.preview_token,
            convert.reason(request),
        )
        return convert_curation.restore_response(result)

    @grpc_errors
    async def UndoMerge(
        self, request: pb.UndoMergeRequest, context: Context
    ) -> pb.UndoMergeResponse:
        result = await self._service.undo_merge(
            convert.artifact_ref(request.memory),
            request.entry_id,
            request.preview_token,
            convert.reason(request),
        )
        return convert_curation.undo_merge_response(result)

    # -- reads ----------------------------------------------------------------------------------

    @grpc_errors
    async def GetMemory(
        self, request: pb.GetMemoryRequest, context: Context
    ) -> pb.GetMemoryResponse:
        view = await self._service.get_memory(
            convert.artifact_ref(request.memory), metadata_only=request.metadata_only
        )
        return convert.get_memory_response(view)

    @grpc_errors
    async def GetRecallManifest(
        self, request: pb.GetRecallManifestRequest, context: Context
    ) -> pb.GetRecallManifestResponse:
        page = await self._service.recall_manifest(
            convert.artifact_ref(request.memory),
            request.page_size,
            request.page_token,
            convert.entry_filter(request),
        )
        return convert_curation.recall_manifest_response(page)

    @grpc_errors
    async def ListEntries(
        self, request: pb.ListEntriesRequest, context: Context
    ) -> pb.ListEntriesResponse:
        page = await self._service.list_entries(
            convert.artifact_ref(request.memory),
            request.page_size,
            request.page_token,
            convert.entry_statuses(request),
            convert.entry_filter(request),
            request.include_text,
        )
        return convert_curation.list_entries_response(page)

    @grpc_errors
    async def ListMemories(
        self, request: pb.ListMemoriesRequest, context: Context
    ) -> pb.ListMemoriesResponse:
        page = await self._service.list_memories(request.page_size, request.page_token)
        return convert_curation.list_memories_response(page)

    @grpc_errors
    async def SetMemoryLabel(
        self, request: pb.SetMemoryLabelRequest, context: Context
    ) -> pb.SetMemoryLabelResponse:
        label = await self._service.set_memory_label(
            request.memory_id, request.label, request.label_version
        )
        return convert_curation.set_memory_label_response(label)

    @grpc_errors
    async def PreviewRestore(
        self, request: pb.PreviewRestoreRequest, context: Context
    ) -> pb.PreviewRestoreResponse:
        preview = await self._service.preview_restore(
            convert.artifact_ref(request.memory),
            convert.restore_operation(request),
            request.entry_id,
            convert.entry_version_id(request),
        )
        return convert_curation.preview_restore_response(preview)

    @grpc_errors
    async def Changes(self, request: pb.ChangesRequest, context: Context) -> None:
        memory = convert.artifact_ref(request.memory)
        since = convert.changes_since(request)
        # Each message is written, in turn with the other streams' (turns.py), before the
        # next is read: a client that reads slowly holds at most one page of history here.
        # Client cancellation or its deadline cancels this task at its current await, which
        # unwinds the feed (aclosing). On shutdown a follow feed raises UnavailableError,
        # mapped like any other error.
        with self._service.streams.stream(current_caller().key):
            if request.follow:
                feed: AsyncGenerator[RevisionChanges | Progress, None]
                feed = self._service.follow_changes(memory, since)
            else:
                _, feed = await self._service.changes(memory, since)
            async with aclosing(feed):
                async for item in feed:
                    if isinstance(item, RevisionChanges):
                        response = self._messages.message(item)  # built once for all streams
                    else:
                        response = convert.changes_response(item, now_ms=_now_ms())
                    await self._turns.write(context, response)

    @grpc_errors
    async def Search(self, request: pb.SearchRequest, context: Context) -> pb.SearchResponse:
        result = await self._service.search(
            request.query,
            convert.artifact_refs(request.memories),
            request.limit,
            convert.SEARCH_MODES.from_pb(request.mode, "mode"),
            filters=convert.entry_filter(request),
            min_score=convert.min_score(request),
        )
        # Like HTTP Server-Timing: lets clients and benchmarks separate embedding from search.
        context.set_trailing_metadata(
            (
                (
                    "server-timing",
                    f"embed;dur={result.embed_ms:.3f}, search;dur={result.search_ms:.3f}",
                ),
            )
        )
        return convert.search_response(result)

    @grpc_errors
    async def Expand(self, request: pb.ExpandRequest, context: Context) -> pb.ExpandResponse:
        entries = await self._service.expand([convert.citation(c) for c in request.citations])
        return pb.ExpandResponse(entries=[convert.expanded_entry_pb(e) for e in entries])

    @grpc_errors
    async def PrepareContext(
        self, request: pb.PrepareContextRequest, context: Context
    ) -> pb.PrepareContextResponse:
        started = time.perf_counter()
        prepared = await self._service.prepare_context(
            convert.artifact_refs(request.memories), request.query, request.budget_bytes
        )
        # Server-side time, for clients and `make bench` (like Search's server-timing).
        elapsed = (time.perf_counter() - started) * 1000
        context.set_trailing_metadata((("server-timing", f"context;dur={elapsed:.3f}"),))
        return convert.prepare_context_response(prepared)

    @grpc_errors
    async def GetCapabilities(
        self, request: pb.GetCapabilitiesRequest, context: Context
    ) -> pb.GetCapabilitiesResponse:
        return pb.GetCapabilitiesResponse(
            capabilities=convert.capabilities_pb(self._service.capabilities())
        )
