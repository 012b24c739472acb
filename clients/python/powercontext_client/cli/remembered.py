"""`powercontext get` and `powercontext changes`: a revision or a history, with the texts.

    powercontext get MEMORY [ENTRY_ID...] [--metadata-only] [--ids | --no-ids]
    powercontext changes MEMORY [--since N] [--follow] [--ids | --no-ids]

The text output reads the texts it shows: `get MEMORY` lists the revision's entries
(ListEntries at exactly the revision read, a page of 100 at a time), `changes` expands the
versions each change starts from and makes (Expand, 100 citations a call). `-o json` prints the
GetMemory, Expand and RevisionChanges messages and makes none of these extra reads.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types

from ..aio import AsyncClient
from ..errors import describe
from ..reconnects import FollowEvent
from ..requests import citation
from . import refs, views
from .commands import _manifest_entry
from .output import STATUSES, Printer, ids_argument

EXPAND_LIMIT = 100  # citations per Expand call (the server's limit)
LIST_PAGE_SIZE = 100  # entries per ListEntries page (the server's limit)


def get_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("memory", type=refs.memory, help="MEMORY (its head) or MEMORY@REVISION")
    parser.add_argument("entry_id", nargs="*", help="show these entries' text")
    parser.add_argument(
        "--metadata-only", action="store_true", help="leave the manifest out (large memories)"
    )
    ids_argument(parser)


def changes_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("memory", type=refs.memory, help="MEMORY (its head) or MEMORY@REVISION")
    parser.add_argument("--since", type=int, default=0, help="after this revision (0: all)")
    parser.add_argument("--follow", "-f", action="store_true", help="then wait for new ones")
    ids_argument(parser)


# -- get ----------------------------------------------------------------------------------------


async def get(client: AsyncClient, args: argparse.Namespace, printer: Printer) -> int:
    view = await client.get_memory(args.memory, metadata_only=args.metadata_only)
    ids = printer.ids(args.ids)
    if not args.entry_id:
        if printer.json:
            printer.message(view)
        else:
            entries = [] if view.content_omitted else await _entries(client, view.memory)
            printer.show(view, views.memory_view_lines(view, entries, ids))
        return 0
    cited = [
        citation(view.memory, entry_id, _manifest_entry(view, entry_id).entry_version_id)
        for entry_id in args.entry_id
    ]
    expanded = await client.expand(cited)
    lines = (line for item in expanded.entries for line in views.expanded_entry_lines(item, ids))
    printer.show(expanded, lines)
    return 0


async def _entries(client: AsyncClient, memory: types.ArtifactRef) -> list[types.ListedEntry]:
    """Every entry of exactly this revision, whatever its status, with its text."""
    listed = client.list_entries_items(
        memory, page_size=LIST_PAGE_SIZE, statuses=STATUSES.values(), include_text=True
    )
    return [entry async for entry in listed]


# -- changes ------------------------------------------------------------------------------------


async def changes(client: AsyncClient, args: argparse.Namespace, printer: Printer) -> int:
    ids = printer.ids(args.ids)
    if args.follow:
        follow = client.follow(args.memory.artifact_id, args.since, on_reconnect=_say_reconnect)
        async for revision in follow:
            await _show(client, printer, [revision], ids)
        return 0
    target = args.memory if args.memory.revision else await client.head(args.memory.artifact_id)
    history = await client.changes(target, args.since)
    for batch in _batches(history):
        await _show(client, printer, batch, ids)
    return 0


def _batches(history: Sequence[pb.RevisionChanges]) -> Iterable[list[pb.RevisionChanges]]:
    """Consecutive revisions whose versions fit one Expand call (a larger revision alone), so
    a long history starts printing after its first read."""
    batch: list[pb.RevisionChanges] = []
    size = 0
    for revision in history:
        count = sum(1 for _ in views.cited_versions(revision))
        if batch and size + count > EXPAND_LIMIT:
            yield batch
            batch, size = [], 0
        batch.append(revision)
        size += count
    if batch:
        yield batch


async def _show(
    client: AsyncClient, printer: Printer, revisions: list[pb.RevisionChanges], ids: bool
) -> None:
    if printer.json:
        for revision in revisions:
            printer.message(revision)
        return
    versions = await _versions(client, revisions)
    for revision in revisions:
        for line in views.revision_text_lines(revision, versions, ids):
            printer.line(line)


async def _versions(
    client: AsyncClient, revisions: Iterable[pb.RevisionChanges]
) -> dict[views.VersionKey, types.EntryVersion]:
    """The versions the revisions' changes name, each read once, by (revision, version id)."""
    wanted: dict[views.VersionKey, types.Citation] = {}
    for revision in revisions:
        artifact_id = revision.memory_ref.artifact_id
        for number, entry_id, version_id in views.cited_versions(revision):
            memory = types.ArtifactRef(artifact_id=artifact_id, revision=number)
            wanted.setdefault((number, version_id), citation(memory, entry_id, version_id))
    keys = list(wanted)
    found: dict[views.VersionKey, types.EntryVersion] = {}
    for start in range(0, len(keys), EXPAND_LIMIT):
        chunk = keys[start : start + EXPAND_LIMIT]
        expanded = await client.expand([wanted[key] for key in chunk])
        for key, item in zip(chunk, expanded.entries, strict=True):
            found[key] = item.version
    return found


def _say_reconnect(event: FollowEvent) -> None:
    """A follow's lost and found server on stderr, so a silent stream is never a mystery."""
    if event.error is not None:
        line = (
            f"follow: lost {event.endpoint} ({describe(event.error)}); reconnecting, "
            f"to resume after revision {event.since}"
        )
    else:
        line = f"follow: reconnected to {event.endpoint}; resuming after revision {event.since}"
    print(line, file=sys.stderr, flush=True)
