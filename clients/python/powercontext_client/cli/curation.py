"""`powercontext merge`, `restore` and `undo-merge`.

    powercontext merge MEMORY ENTRY_ID ENTRY_ID... --text TEXT [--kind K] [--tag T]
    powercontext restore MEMORY ENTRY_ID [--version VERSION_ID] [--preview | --preview-token T]
    powercontext undo-merge MEMORY ENTRY_ID [--preview | --preview-token T]

These writes carry no request id, so each is sent once; a lost answer is an error (read the
head to see whether it committed). On a bare MEMORY the write is built on the head and, if
another writer moved the head first (ABORTED, REVISION_CONFLICT: nothing was written), built
again on the new head. A merge pins the input versions it first saw: if an input was revised
in between, the server refuses it (ABORTED, ENTRY_VERSION_STALE) rather than merge text the
caller never read. MEMORY@REVISION is a strict compare-and-swap on that revision.

`--preview` prints what would be restored and retired and a token; `--preview-token TOKEN`
applies exactly that while nothing relevant has changed (ABORTED, PREVIEW_STALE otherwise).
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types

from ..aio import AsyncClient
from ..core import UPDATE_ATTEMPTS
from ..errors import RevisionConflict
from ..requests import citation, entry_ref
from ..retry import Backoff
from . import output, refs
from .commands import _manifest_entry
from .inputs import complete_sources, read_text
from .output import Printer

R = TypeVar("R")


async def on_head(
    client: AsyncClient,
    memory: types.ArtifactRef,
    send: Callable[[pb.GetMemoryResponse], Awaitable[R]],
) -> R:
    """`send` on MEMORY@REVISION once; on a bare MEMORY on the head, again on the new head
    after a lost compare-and-swap (RevisionConflict: nothing was written; a plain Aborted,
    e.g. a merge input revised in between, is raised)."""
    if memory.revision:
        return await send(await client.get_memory(memory))
    delays = Backoff().delays()
    for attempt in range(1, UPDATE_ATTEMPTS + 1):
        try:
            return await send(await client.get_memory(memory.artifact_id))
        except RevisionConflict:
            if attempt == UPDATE_ATTEMPTS:
                raise
        await asyncio.sleep(next(delays))
    raise AssertionError("unreachable: the last attempt returns or raises")


# -- merge --------------------------------------------------------------------------------------


def merge_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("memory", type=refs.memory, help="MEMORY (its head) or MEMORY@REVISION")
    parser.add_argument("entry_id", nargs="+", help="two or more active entries to fold")
    text = parser.add_mutually_exclusive_group(required=True)
    text.add_argument("--text", help="the merged entry's text")
    text.add_argument("--file", help="the merged entry's text from a file (- for stdin)")
    parser.add_argument("--kind", help="the merged entry's kind (default: the inputs' kind)")
    parser.add_argument("--description", help="one line (default: derived from the text)")
    parser.add_argument(
        "--tag", action="append", default=[], help="repeat; default: the union of the inputs'"
    )
    parser.add_argument("--source", type=refs.source, action="append", default=[])
    parser.add_argument("--artifact", type=refs.memory, action="append", default=[])
    parser.add_argument("--reason", help="why (kept in the change records)")


async def _common_kind(client: AsyncClient, head: pb.GetMemoryResponse, inputs: list[str]) -> str:
    cited = [
        citation(head.memory, entry_id, _manifest_entry(head, entry_id).entry_version_id)
        for entry_id in inputs
    ]
    kinds = {e.version.kind for e in (await client.expand(cited)).entries}
    if len(kinds) != 1:  # a usage error (exit 2), before anything is sent
        raise ValueError(f"the inputs have kinds {', '.join(sorted(kinds))}: give --kind")
    return kinds.pop()


async def merge(client: AsyncClient, args: argparse.Namespace, printer: Printer) -> int:
    await complete_sources(client, args.source)
    text = args.text if args.text is not None else read_text(args.file)
    first = await client.get_memory(args.memory)
    pinned = [entry_ref(_manifest_entry(first, entry_id)) for entry_id in args.entry_id]
    kind = args.kind or await _common_kind(client, first, args.entry_id)

    async def send(head: pb.GetMemoryResponse) -> pb.MergeResponse:
        return await client.merge(
            head.memory,
            pinned,
            text,
            kind=kind,
            description=args.description,
            tags=args.tag,
            sources=args.source,
            artifacts=args.artifact,
            reason=args.reason,
        )

    response = await on_head(client, args.memory, send)
    printer.show(response, output.merge_lines(response))
    return 0


# -- restore and undo-merge ---------------------------------------------------------------------


def _apply_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("memory", type=refs.memory, help="MEMORY (its head) or MEMORY@REVISION")
    parser.add_argument("entry_id")
    how = parser.add_mutually_exclusive_group()
    how.add_argument(
        "--preview", action="store_true", help="show what would happen and a token; write nothing"
    )
    # Not --token: that is the bearer token, accepted by every command.
    how.add_argument("--preview-token", default="", help="apply exactly what --preview showed")
    parser.add_argument("--reason", help="why (kept in the change records)")


def restore_arguments(parser: argparse.ArgumentParser) -> None:
    _apply_arguments(parser)
    parser.add_argument(
        "--version", default="", help="restore this historical version (as a new version)"
    )


def undo_merge_arguments(parser: argparse.ArgumentParser) -> None:
    _apply_arguments(parser)


async def _preview(
    client: AsyncClient,
    args: argparse.Namespace,
    printer: Printer,
    operation: types.RestoreOperation,
) -> int:
    response = await client.preview_restore(
        args.memory,
        args.entry_id,
        operation=operation,
        entry_version_id=getattr(args, "version", ""),
    )
    printer.show(response, output.preview_lines(response))
    return 0


async def _apply(
    client: AsyncClient,
    args: argparse.Namespace,
    printer: Printer,
    send: Callable[[types.ArtifactRef], Awaitable[pb.RestoreResponse | pb.UndoMergeResponse]],
) -> int:
    if args.preview_token:  # the token's check replaces the head check: MEMORY as given
        response = await send(args.memory)
    else:
        response = await on_head(client, args.memory, lambda head: send(head.memory))
    printer.show(response, output.restore_lines(response))
    return 0


async def restore(client: AsyncClient, args: argparse.Namespace, printer: Printer) -> int:
    if args.preview:
        return await _preview(client, args, printer, types.RESTORE_OPERATION_RESTORE)

    def send(memory: types.ArtifactRef) -> Awaitable[pb.RestoreResponse]:
        return client.restore(
            memory,
            args.entry_id,
            entry_version_id=args.version,
            preview_token=args.preview_token,
            reason=args.reason,
        )

    return await _apply(client, args, printer, send)


async def undo_merge(client: AsyncClient, args: argparse.Namespace, printer: Printer) -> int:
    if args.preview:
        return await _preview(client, args, printer, types.RESTORE_OPERATION_UNDO_MERGE)

    def send(memory: types.ArtifactRef) -> Awaitable[pb.UndoMergeResponse]:
        return client.undo_merge(
            memory, args.entry_id, preview_token=args.preview_token, reason=args.reason
        )

    return await _apply(client, args, printer, send)
