"""`powercontext manifest` and `powercontext list`: entries a page at a time, by entry id.

    powercontext manifest MEMORY [--kind K] [--tag T] [--tag-match any] [--all]
    powercontext list MEMORY [--status merged] [--kind K] [--tag T] [--text] [--all] [--ids]

One page by default, ending with the `--page-token` of the next one; `--all` walks every page
(each page is one read, retried like every read). `-o json` prints each page's response.
`manifest` prints each item's citation and description (it is for choosing what to expand);
`list` prints each entry's kind, state, tags and text (views.py), its citation with --ids.
"""

from __future__ import annotations

import argparse

from powercontext.memory.v1 import memory_service_pb2 as pb

from ..aio import AsyncClient
from . import output, refs
from .commands import TAG_MATCHES
from .output import Printer, ids_argument
from .views import listed_entry_lines


def filter_arguments(parser: argparse.ArgumentParser) -> None:
    """Kind and tag filters, compared exactly as typed (also used by `search`)."""
    parser.add_argument(
        "--kind", action="append", default=[], help="only this kind (repeat for several)"
    )
    parser.add_argument(
        "--tag", action="append", default=[], help="only entries with this tag (repeat)"
    )
    parser.add_argument(
        "--tag-match",
        choices=sorted(TAG_MATCHES),
        default="all",
        help="all: every --tag (default); any: at least one",
    )


def _page_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("memory", type=refs.memory, help="MEMORY (its head) or MEMORY@REVISION")
    filter_arguments(parser)
    parser.add_argument("--page-size", type=int, default=0, help="1..100 (server default 50)")
    pages = parser.add_mutually_exclusive_group()
    pages.add_argument("--page-token", default="", help="the next page of an earlier call")
    pages.add_argument("--all", action="store_true", help="every page, one after the other")


def manifest_arguments(parser: argparse.ArgumentParser) -> None:
    _page_arguments(parser)


def list_arguments(parser: argparse.ArgumentParser) -> None:
    _page_arguments(parser)
    parser.add_argument(
        "--status",
        action="append",
        default=[],
        choices=sorted(output.STATUSES),
        help="active (default), inactive, merged; repeat for several",
    )
    parser.add_argument(
        "--text",
        action="store_true",
        help="-o json: include each entry's text (the text output always shows it)",
    )
    ids_argument(parser)


async def manifest(client: AsyncClient, args: argparse.Namespace, printer: Printer) -> int:
    token = args.page_token
    while True:
        page = await client.get_recall_manifest(
            args.memory,
            page_size=args.page_size,
            page_token=token,
            kinds=args.kind,
            tags=args.tag,
            tag_match=TAG_MATCHES[args.tag_match],
        )
        token = page.next_page_token
        lines = list(output.listed_lines(page.items))
        if page.code == pb.RECALL_MANIFEST_CODE_EMPTY_MEMORY:
            lines.append("empty memory: no active entries")
        printer.show(page, lines + ([] if args.all else list(output.next_page_line(token))))
        if not (args.all and token):
            return 0


async def list_entries(client: AsyncClient, args: argparse.Namespace, printer: Printer) -> int:
    token = args.page_token
    ids = printer.ids(args.ids)
    while True:
        page = await client.list_entries(
            args.memory,
            page_size=args.page_size,
            page_token=token,
            statuses=[output.STATUSES[s] for s in args.status],
            kinds=args.kind,
            tags=args.tag,
            tag_match=TAG_MATCHES[args.tag_match],
            include_text=args.text or not printer.json,
        )
        token = page.next_page_token
        lines = [line for entry in page.entries for line in listed_entry_lines(entry, ids)]
        printer.show(page, lines + ([] if args.all else list(output.next_page_line(token))))
        if not (args.all and token):
            return 0
