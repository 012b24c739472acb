"""What each `powercontext` command accepts, beyond the connection flags (app.py): the
argument builders of the write commands, `search`, `context`, `expand`, `sources`, `health`.
The others keep theirs next to their handlers (remembered.py, listing.py, memories.py, ...)."""

from __future__ import annotations

import argparse

from . import commands, listing, refs


def _evidence(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("text", nargs="*", help="entry texts, one entry each")
    parser.add_argument("--kind", default="fact", help="kind of the text entries (fact)")
    parser.add_argument("--file", action="append", default=[], help="a file's text as an entry")
    parser.add_argument("--jsonl", help="EntryInput JSON Lines (proto3 JSON); - for stdin")
    parser.add_argument(
        "--source",
        type=refs.source,
        action="append",
        default=[],
        help="evidence SOURCE_ID[:SHA256] of the operation, cited by the text entries",
    )
    parser.add_argument(
        "--artifact",
        type=refs.memory,
        action="append",
        default=[],
        help="evidence ARTIFACT@REVISION, cited by the text entries",
    )
    parser.add_argument("--reason", help="why (kept in the change record)")
    parser.add_argument(
        "--description", help="one line for the text entries (default: derived from the text)"
    )
    parser.add_argument("--tag", action="append", default=[], help="a tag of the text entries")


def _request_id(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--request-id",
        default="",
        help="idempotency key (default: a fresh UUID4): running the command again with the "
        "same id commits at most once",
    )


def create(parser: argparse.ArgumentParser) -> None:
    _evidence(parser)
    _request_id(parser)


def _memory(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("memory", type=refs.memory, help="MEMORY (its head) or MEMORY@REVISION")


def remember(parser: argparse.ArgumentParser) -> None:
    _memory(parser)
    _evidence(parser)
    _request_id(parser)


def revise(parser: argparse.ArgumentParser) -> None:
    _memory(parser)
    parser.add_argument("entry_id")
    parser.add_argument("text", help="the entry's new text")
    parser.add_argument("--kind", help="new kind (default: keep the current one)")
    parser.add_argument("--version", help="revise only if the entry is at this version")
    parser.add_argument("--source", type=refs.source, action="append", default=[])
    parser.add_argument("--reason")
    parser.add_argument("--description", help="one line (default: derived from the new text)")
    parser.add_argument(
        "--tag", action="append", default=None, help="the new tags (default: keep the current)"
    )
    _request_id(parser)


def entries(parser: argparse.ArgumentParser) -> None:
    _memory(parser)
    parser.add_argument("entry_id", nargs="+")
    parser.add_argument("--reason")
    _request_id(parser)


def organize(parser: argparse.ArgumentParser) -> None:
    _memory(parser)
    parser.add_argument(
        "--step",
        action="append",
        default=[],
        choices=sorted(commands.ORGANIZE_STEPS),
        help="dedupe and/or normalize (default: both)",
    )
    _request_id(parser)


def search(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("query")
    parser.add_argument(
        "-m",
        "--memory",
        type=refs.memory,
        action="append",
        required=True,
        help="memory to search (repeat for several)",
    )
    parser.add_argument("--limit", type=int, default=0, help="1..100 (server default 8)")
    parser.add_argument("--mode", choices=sorted(commands.SEARCH_MODES), default="auto")
    listing.filter_arguments(parser)
    parser.add_argument("--min-score", type=float, help="drop hits scoring below this")


def context(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("memory", type=refs.memory, nargs="+", help="MEMORY (its head) ...")
    parser.add_argument("--query", "-q", default="", help="the task, to pick relevant entries")
    parser.add_argument(
        "--budget", type=int, default=0, help="exact UTF-8 byte budget, 256..65536 (0: 8192)"
    )


def expand(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("citation", type=refs.citation, nargs="+", help="MEMORY@REV/ENTRY/VERSION")


def sources_put(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="file to store, - for stdin")
    parser.add_argument("--kind", required=True, help="file, user_note, task_outcome, ...")
    parser.add_argument("--uri", default="")
    parser.add_argument("--media-type", default="")
    parser.add_argument("--meta", type=_key_value, action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument(
        "--memory",
        default=None,
        metavar="MEMORY_ID",
        help="record it for this memory (required with a token limited to memories)",
    )


def _key_value(text: str) -> tuple[str, str]:
    key, equals, value = text.partition("=")
    if not equals or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key, value


def sources_get(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source_id")
    parser.add_argument("--content", action="store_true", help="print the stored bytes only")


def health(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--service", default="", help="a service name ('' = the server)")


def nothing(parser: argparse.ArgumentParser) -> None:
    pass
