"""What each `powercontext` command does, over the AsyncClient.

A MEMORY without @REVISION means "the head": writes then go through AsyncClient.update(), so a
concurrent writer costs a re-read and a re-apply, never a lost or clobbered change. A revise
checks that the entry is still at the version it first saw; if another writer revised it in
between, the command stops rather than overwrite their text. MEMORY@REVISION is a strict
compare-and-swap on that revision: ABORTED if it is no longer the head.

`--request-id` sends every attempt of a write with that idempotency key, so a script may run a
command again after losing its answer: `create` and MEMORY@REVISION then print the first
outcome; on a bare MEMORY the re-run is built on the newer head, a different request, and
fails with ALREADY_EXISTS (exit 9) if the first run committed.
"""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable
from typing import Any

import grpc

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types

from ..aio import AsyncClient
from ..core import WriteRequest, WriteResponse
from ..errors import NotFound, RevisionConflict
from ..requests import citation, entry_ref, revise
from . import output
from .inputs import complete_sources, entries_from, read_bytes
from .output import Printer

Handler = Callable[[AsyncClient, argparse.Namespace, Printer], Awaitable[int]]

ORGANIZE_STEPS = {"dedupe": pb.ORGANIZE_STEP_DEDUPE, "normalize": pb.ORGANIZE_STEP_NORMALIZE}
SEARCH_MODES = {
    "auto": types.SEARCH_MODE_AUTO,
    "fts": types.SEARCH_MODE_FTS,
    "vector": types.SEARCH_MODE_VECTOR,
    "hybrid": types.SEARCH_MODE_HYBRID,
}
TAG_MATCHES = {"all": types.TAG_MATCH_ALL, "any": types.TAG_MATCH_ANY}
SERVING = 1  # grpc.health.v1 HealthCheckResponse.SERVING
NOT_SERVING_EXIT = 7  # the exit code of Unavailable


async def _commit(
    client: AsyncClient,
    args: argparse.Namespace,
    build: Callable[[pb.GetMemoryResponse], WriteRequest | None],
) -> WriteResponse | None:
    """Build the write on the head (re-applied after conflicts) or on the exact revision."""
    memory: types.ArtifactRef = args.memory
    if memory.revision == 0:
        return await client.update(memory.artifact_id, build, request_id=args.request_id)
    request = build(await client.get_memory(memory))
    if request is None:
        return None
    request.memory.CopyFrom(memory)
    request.request_id = args.request_id
    return await client.write(request)


def _show_write(printer: Printer, response: WriteResponse | None) -> int:
    if response is not None:
        printer.show(response, output.write_lines(response))
    return 0


def _manifest_entry(head: pb.GetMemoryResponse, entry_id: str) -> types.MemoryManifestEntry:
    for entry in head.content.manifest.entries:
        if entry.entry_id == entry_id:
            return entry
    raise NotFound(
        grpc.StatusCode.NOT_FOUND,
        f"entry {entry_id} is not in {head.memory.artifact_id}@{head.memory.revision}",
        reason="ENTRY_NOT_IN_MEMORY",
        metadata={"entryId": entry_id},
    )


# -- writes -------------------------------------------------------------------------------------


async def _evidence(client: AsyncClient, args: argparse.Namespace) -> list[types.EntryInput]:
    await complete_sources(client, args.source)
    entries = entries_from(
        args.kind,
        args.text,
        args.file,
        args.jsonl,
        args.source,
        args.artifact,
        args.reason,
        description=args.description,
        tags=args.tag,
    )
    await complete_sources(client, [ref for entry in entries for ref in entry.sources])
    return entries


async def create(client: AsyncClient, args: argparse.Namespace, printer: Printer) -> int:
    entries = await _evidence(client, args)
    response = await client.remember(
        None, entries, sources=args.source, artifacts=args.artifact, request_id=args.request_id
    )
    return _show_write(printer, response)


async def remember(client: AsyncClient, args: argparse.Namespace, printer: Printer) -> int:
    entries = await _evidence(client, args)
    operation = pb.RememberRequest(entries=entries, sources=args.source, artifacts=args.artifact)
    response = await _commit(client, args, lambda head: _copy(operation))
    return _show_write(printer, response)


def _copy(request: pb.RememberRequest) -> pb.RememberRequest:
    fresh = pb.RememberRequest()
    fresh.CopyFrom(request)
    return fresh


async def revise_entry(client: AsyncClient, args: argparse.Namespace, printer: Printer) -> int:
    await complete_sources(client, args.source)
    first = await client.get_memory(args.memory)
    current = _manifest_entry(first, args.entry_id).entry_version_id
    seen = args.version or current
    kind, tags = args.kind, args.tag
    if kind is None or tags is None:  # keep what the current version has (a revision
        cited = citation(first.memory, args.entry_id, current)  # replaces the tags)
        version = (await client.expand([cited])).entries[0].version
        kind = version.kind if kind is None else kind
        tags = list(version.tags) if tags is None else tags

    def build(head: pb.GetMemoryResponse) -> pb.RememberRequest:
        current = _manifest_entry(head, args.entry_id)
        if current.entry_version_id != seen:
            raise RevisionConflict(
                grpc.StatusCode.ABORTED,
                f"entry {args.entry_id} is now at {current.entry_version_id}, not {seen}: "
                "someone else revised it; read it and revise that version",
                reason="ENTRY_VERSION_STALE",
                metadata={"headRevision": str(head.memory.revision)},
            )
        new = revise(
            current,
            args.text,
            kind=kind,
            sources=args.source,
            reason=args.reason,
            description=args.description,
            tags=tags,
        )
        return pb.RememberRequest(entries=[new], sources=args.source)

    return _show_write(printer, await _commit(client, args, build))


def _state_change(
    request_type: Any, args: argparse.Namespace
) -> Callable[[pb.GetMemoryResponse], WriteRequest]:
    def build(head: pb.GetMemoryResponse) -> WriteRequest:
        refs = [entry_ref(_manifest_entry(head, entry_id)) for entry_id in args.entry_id]
        return request_type(entries=refs, reason=args.reason)

    return build


async def forget(client: AsyncClient, args: argparse.Namespace, printer: Printer) -> int:
    response = await _commit(client, args, _state_change(pb.ForgetRequest, args))
    return _show_write(printer, response)


async def reactivate(client: AsyncClient, args: argparse.Namespace, printer: Printer) -> int:
    response = await _commit(client, args, _state_change(pb.ReactivateRequest, args))
    return _show_write(printer, response)


async def organize(client: AsyncClient, args: argparse.Namespace, printer: Printer) -> int:
    steps = [ORGANIZE_STEPS[step] for step in args.step]
    response = await _commit(client, args, lambda head: pb.OrganizeRequest(steps=steps))
    return _show_write(printer, response)


# -- reads --------------------------------------------------------------------------------------


async def search(client: AsyncClient, args: argparse.Namespace, printer: Printer) -> int:
    response = await client.search(
        args.query,
        args.memory,  # a memory without @REVISION is searched at its head (revision 0)
        limit=args.limit,
        mode=SEARCH_MODES[args.mode],
        kinds=args.kind,
        tags=args.tag,
        tag_match=TAG_MATCHES[args.tag_match],
        min_score=args.min_score,
    )
    printer.show(response, output.search_lines(response))
    return 0


async def context(client: AsyncClient, args: argparse.Namespace, printer: Printer) -> int:
    """Prints the block exactly as the server built it (nothing when there is nothing)."""
    response = await client.prepare_context(args.memory, query=args.query, budget_bytes=args.budget)
    printer.show(response, response.block.splitlines())
    return 0


async def expand(client: AsyncClient, args: argparse.Namespace, printer: Printer) -> int:
    response = await client.expand(args.citation)
    printer.show(response, output.expanded_lines(response))
    return 0


async def sources_put(client: AsyncClient, args: argparse.Namespace, printer: Printer) -> int:
    response = await client.put_source(
        read_bytes(args.path),
        kind=args.kind,
        uri=args.uri,
        media_type=args.media_type,
        metadata=dict(args.meta),
        memory=args.memory,
    )
    printer.show(response, output.source_lines(response.source, response.created))
    return 0


async def sources_get(client: AsyncClient, args: argparse.Namespace, printer: Printer) -> int:
    source = await client.get_source(args.source_id)  # whole, however many chunks it takes
    if args.content:  # the stored bytes, exactly (the server verified their hash)
        printer.stream.flush()
        stream = getattr(printer.stream, "buffer", None)
        if stream is None:
            printer.stream.write(source.content.decode("utf-8", "replace"))
        else:
            stream.write(source.content)
            stream.flush()
        return 0
    response = pb.GetSourceResponse(source=source, content_size=len(source.content))
    printer.show(response, output.source_lines(source))
    return 0


async def capabilities(client: AsyncClient, args: argparse.Namespace, printer: Printer) -> int:
    caps = await client.capabilities()
    printer.show(pb.GetCapabilitiesResponse(capabilities=caps), output.capability_lines(caps))
    return 0


async def health(client: AsyncClient, args: argparse.Namespace, printer: Printer) -> int:
    from grpc_health.v1 import health_pb2

    status = await client.health(args.service)
    response = health_pb2.HealthCheckResponse(status=status)
    name = health_pb2.HealthCheckResponse.ServingStatus.Name(status)
    printer.show(response, [name])
    return 0 if status == SERVING else NOT_SERVING_EXIT
