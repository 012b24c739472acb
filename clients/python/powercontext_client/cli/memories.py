"""`powercontext memories` and `powercontext label`: the memories you can see, and their labels.

    powercontext memories [--limit N]
    powercontext label MEMORY_ID TEXT [--label-version N]

`memories` pages through ListMemories (every memory the caller may see, by artifact id) until
the last page or `--limit`; each memory shows its id — what every other command takes as
MEMORY — on one line with its head revision, entry counts, newest change and label. `-o json`
prints each page's response.

`label` sets a memory's label (`""` clears it) with SetMemoryLabel, a compare-and-swap on the
label's version: the version read now from ListMemories, or `--label-version N`. Someone who
set the label in between makes it fail (ABORTED, LABEL_CONFLICT, exit 4) rather than be
overwritten: list the memories again and decide.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator

from powercontext.memory.v1 import memory_service_pb2 as pb

from ..aio import AsyncClient
from .output import Printer
from .views import timestamp

PAGE_SIZE = 100  # memories per ListMemories page (the server's limit)


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected 0 or a positive number, got {text!r}")
    return value


def memories_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--limit", type=_count, default=0, metavar="N", help="at most N memories (0: every one)"
    )


def label_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("memory_id", metavar="MEMORY_ID", help="the memory's artifact id")
    parser.add_argument(
        "label", metavar="TEXT", help='one line of at most 200 characters; "" clears the label'
    )
    parser.add_argument(
        "--label-version",
        type=_count,
        default=None,
        metavar="N",
        help="set it only if the label is still at version N (0: never set; default: the "
        "version `memories` shows now)",
    )


async def memories(client: AsyncClient, args: argparse.Namespace, printer: Printer) -> int:
    token, shown = "", 0
    while True:
        size = PAGE_SIZE if not args.limit else min(PAGE_SIZE, args.limit - shown)
        page = await client.list_memories(page_size=size, page_token=token)
        token = page.next_page_token
        shown += len(page.memories)
        lines = [summary_line(summary) for summary in page.memories]
        stop = not token or (args.limit and shown >= args.limit)
        if stop and token:
            lines.append(f"more memories: --limit {args.limit} stopped the listing (0: all)")
        if stop and not shown:
            lines.append("no memories")
        printer.show(page, lines)
        if stop:
            return 0


def summary_line(summary: pb.MemorySummary) -> str:
    """One line per memory: its id, head, entry counts, newest change, and label if it has one
    (created_at is in `-o json`)."""
    entries = f"{summary.active_entries} active  {summary.inactive_entries} inactive"
    changed = timestamp(summary.changed_at)
    last = f"  {summary.last_operation} {changed}" if changed else ""
    label = f"  — {summary.label}" if summary.label else ""
    return f"{summary.head.artifact_id}  revision {summary.head.revision}  {entries}{last}{label}"


async def label(client: AsyncClient, args: argparse.Namespace, printer: Printer) -> int:
    version = args.label_version
    if version is None:
        version = await current_label_version(client, args.memory_id)
    response = await client.set_memory_label(args.memory_id, args.label, version)
    printer.show(response, label_lines(response))
    return 0


async def current_label_version(client: AsyncClient, memory_id: str) -> int:
    """The label version ListMemories shows for the memory; 0 when it is not listed (the
    server then answers for a memory that does not exist: NOT_FOUND)."""
    token = ""
    while True:
        page = await client.list_memories(page_size=PAGE_SIZE, page_token=token)
        for summary in page.memories:
            if summary.head.artifact_id == memory_id:
                return summary.label_version
            if summary.head.artifact_id > memory_id:  # listed in artifact id order: not there
                return 0
        token = page.next_page_token
        if not token:
            return 0


def label_lines(response: pb.SetMemoryLabelResponse) -> Iterator[str]:
    when = timestamp(response.set_at)
    at = f", set {when}" if when else ""
    shown = f"label {response.label}" if response.label else "label cleared"
    yield f"{response.memory_id}  {shown}  (version {response.label_version}{at})"
