"""The `powercontext` commands: parser, dispatch, errors and exit codes.

    powercontext [--endpoint HOST:PORT] [-o text|json] COMMAND ...

Every command is one entry in COMMANDS (name, help, arguments, handler in commands.py). An
error is one line on stderr — `error: REASON (CODE): message` — and the exit code tells the
family (EXIT_CODES), so scripts can branch without parsing text.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import grpc

from .._version import __version__
from ..aio import AsyncClient
from ..config import ENV_ENDPOINT, ENV_TIMEOUT, ENV_TOKEN, ClientConfig, TlsConfig
from ..errors import (
    Aborted,
    AlreadyExists,
    Cancelled,
    DataLoss,
    DeadlineExceeded,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    PowerContextError,
    ResourceExhausted,
    RevisionConflict,
    Unauthenticated,
    Unavailable,
    describe,
)
from . import bridge, commands, curation, listing, refs, runtime
from .output import Printer

# Exit codes by error family; 1 is anything else (a server bug, an unknown status).
EXIT_USAGE = 2
EXIT_CODES: dict[type[PowerContextError], int] = {
    InvalidArgument: 2,
    NotFound: 3,
    RevisionConflict: 4,
    Aborted: 4,
    FailedPrecondition: 5,
    DataLoss: 6,
    Unavailable: 7,
    Cancelled: 7,
    DeadlineExceeded: 7,
    PermissionDenied: 8,
    Unauthenticated: 8,
    ResourceExhausted: 7,
    AlreadyExists: 9,
}
EXIT_INTERRUPTED = 130


# How a command finds its server (endpoints.py): RESOLVE may start the user's local server,
# FIND only uses one that runs, OWN leaves it to the command (the runtime's commands).
RESOLVE, FIND, OWN = "resolve", "find", "own"
# How long a command waits for a local server it started.
LOCAL_START_SECONDS = 30.0


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    arguments: Callable[[argparse.ArgumentParser], None]
    handler: commands.Handler
    endpoint: str = RESOLVE


# -- arguments ----------------------------------------------------------------------------------


def _connection_arguments(parser: argparse.ArgumentParser, defaults: bool) -> None:
    """Global flags, accepted before or after the command (after wins)."""

    def default(value: object) -> object:
        return value if defaults else argparse.SUPPRESS

    group = parser.add_argument_group("connection")
    group.add_argument("--endpoint", default=default(None), help=f"HOST:PORT (env {ENV_ENDPOINT})")
    group.add_argument(
        "--timeout", type=float, default=default(None), help=f"seconds per call (env {ENV_TIMEOUT})"
    )
    group.add_argument(
        "--token", default=default(None), help=f"bearer token (prefer env {ENV_TOKEN})"
    )
    group.add_argument("--tls", action="store_true", default=default(False), help="use TLS")
    group.add_argument("--tls-ca", default=default(None), help="CA file (implies --tls)")
    group.add_argument("--tls-cert", default=default(None), help="client certificate (mTLS)")
    group.add_argument("--tls-key", default=default(None), help="client key (mTLS)")
    group.add_argument(
        "-o",
        "--output",
        choices=("text", "json"),
        default=default("text"),
        help="text for people, json = proto3 JSON, one message per line",
    )


def _evidence_arguments(parser: argparse.ArgumentParser) -> None:
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


def _create(parser: argparse.ArgumentParser) -> None:
    _evidence_arguments(parser)
    _request_id(parser)


def _memory(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("memory", type=refs.memory, help="MEMORY (its head) or MEMORY@REVISION")


def _remember(parser: argparse.ArgumentParser) -> None:
    _memory(parser)
    _evidence_arguments(parser)
    _request_id(parser)


def _revise(parser: argparse.ArgumentParser) -> None:
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


def _entries(parser: argparse.ArgumentParser) -> None:
    _memory(parser)
    parser.add_argument("entry_id", nargs="+")
    parser.add_argument("--reason")
    _request_id(parser)


def _organize(parser: argparse.ArgumentParser) -> None:
    _memory(parser)
    parser.add_argument(
        "--step",
        action="append",
        default=[],
        choices=sorted(commands.ORGANIZE_STEPS),
        help="dedupe and/or normalize (default: both)",
    )
    _request_id(parser)


def _get(parser: argparse.ArgumentParser) -> None:
    _memory(parser)
    parser.add_argument("entry_id", nargs="*", help="show these entries' text")
    parser.add_argument(
        "--metadata-only", action="store_true", help="leave the manifest out (large memories)"
    )


def _search(parser: argparse.ArgumentParser) -> None:
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


def _context(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("memory", type=refs.memory, nargs="+", help="MEMORY (its head) ...")
    parser.add_argument("--query", "-q", default="", help="the task, to pick relevant entries")
    parser.add_argument(
        "--budget", type=int, default=0, help="exact UTF-8 byte budget, 256..65536 (0: 8192)"
    )


def _expand(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("citation", type=refs.citation, nargs="+", help="MEMORY@REV/ENTRY/VERSION")


def _changes(parser: argparse.ArgumentParser) -> None:
    _memory(parser)
    parser.add_argument("--since", type=int, default=0, help="after this revision (0: all)")
    parser.add_argument("--follow", "-f", action="store_true", help="then wait for new ones")


def _sources_put(parser: argparse.ArgumentParser) -> None:
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


def _sources_get(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source_id")
    parser.add_argument("--content", action="store_true", help="print the stored bytes only")


def _health(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--service", default="", help="a service name ('' = the server)")


def _nothing(parser: argparse.ArgumentParser) -> None:
    pass


COMMANDS: list[Command] = [
    Command("create", "create a memory with entries", _create, commands.create),
    Command("remember", "add entries (or JSON Lines revisions)", _remember, commands.remember),
    Command("revise", "a new version of an entry's text", _revise, commands.revise_entry),
    Command("forget", "deactivate entries (kept, not recalled)", _entries, commands.forget),
    Command("reactivate", "make forgotten entries active again", _entries, commands.reactivate),
    Command("organize", "exact dedupe, then evidence normalization", _organize, commands.organize),
    Command(
        "merge", "fold active entries into one new entry", curation.merge_arguments, curation.merge
    ),
    Command(
        "restore",
        "bring an entry back (undoing the merges that froze it)",
        curation.restore_arguments,
        curation.restore,
    ),
    Command(
        "undo-merge",
        "undo the merge that produced an entry",
        curation.undo_merge_arguments,
        curation.undo_merge,
    ),
    Command("get", "a memory's revision, or entries' text", _get, commands.get),
    Command(
        "manifest",
        "active entries' citations, kinds, descriptions, tags (no text)",
        listing.manifest_arguments,
        listing.manifest,
    ),
    Command(
        "list",
        "entries by status, kind and tags, a page at a time",
        listing.list_arguments,
        listing.list_entries,
    ),
    Command("search", "search the heads of memories", _search, commands.search),
    Command("expand", "verify citations and show the cited versions", _expand, commands.expand),
    Command("context", "the context block for an agent's next task", _context, commands.context),
    Command("changes", "the change history; --follow to stream", _changes, commands.changes),
    Command("capabilities", "what the server can do", _nothing, commands.capabilities),
    Command("health", "exit 0 when the server is SERVING", _health, commands.health, FIND),
    Command("mcp", "serve the memory as MCP tools (stdio)", bridge.arguments, bridge.run),
    Command(
        "bootstrap",
        "a repository's contract (AGENTS.md, pyproject.toml, Makefile, ...) into its memory",
        runtime.bootstrap_arguments,
        runtime.bootstrap_command,
        OWN,
    ),
    Command(
        "sync",
        "the commits since the last one into the memory",
        runtime.sync_arguments,
        runtime.sync_command,
        OWN,
    ),
    Command(
        "hook",
        "run as an agent host's hook (always exits 0)",
        runtime.hook_arguments,
        runtime.hook_command,
        OWN,
    ),
    Command(
        "setup",
        "add the hooks and the MCP server to Claude Code or Codex",
        runtime.setup_arguments,
        runtime.setup_command,
        OWN,
    ),
    Command(
        "doctor",
        "check the server, the memory, the hooks, trust and the MCP server, with fixes",
        runtime.doctor_arguments,
        runtime.doctor_command,
        OWN,
    ),
]
SOURCE_COMMANDS: list[Command] = [
    Command("put", "store a file as immutable evidence", _sources_put, commands.sources_put),
    Command("get", "show a stored source", _sources_get, commands.sources_get),
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="powercontext",
        description="Everyday operations on a PowerContext Memory server.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    _connection_arguments(parser, defaults=True)
    shared = argparse.ArgumentParser(add_help=False)
    _connection_arguments(shared, defaults=False)
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        _add(subparsers, command, shared)
    sources = subparsers.add_parser("sources", help="store and read evidence")
    nested = sources.add_subparsers(dest="sources_command", required=True, metavar="COMMAND")
    for command in SOURCE_COMMANDS:
        _add(nested, command, shared)
    return parser


def _add(
    subparsers: argparse._SubParsersAction, command: Command, shared: argparse.ArgumentParser
) -> None:
    sub = subparsers.add_parser(
        command.name, help=command.help, description=command.help, parents=[shared]
    )
    command.arguments(sub)
    sub.set_defaults(handler=command.handler, endpoint_mode=command.endpoint)


# -- running ------------------------------------------------------------------------------------


def _config(args: argparse.Namespace) -> ClientConfig:
    tls = None
    if args.tls or args.tls_ca or args.tls_cert or args.tls_key:
        tls = TlsConfig(args.tls_ca, args.tls_cert, args.tls_key)
    return ClientConfig.from_env(
        endpoint=_endpoint(args), timeout=args.timeout, token=args.token, tls=tls
    )


def _endpoint(args: argparse.Namespace) -> str | None:
    """The server of this command (endpoints.py), for the repository of the working
    directory (or the MCP bridge's --directory)."""
    mode = getattr(args, "endpoint_mode", RESOLVE)
    if mode == OWN or args.endpoint:
        return args.endpoint
    from ..endpoints import resolve
    from ..runtime.repo import locate

    found = locate(getattr(args, "directory", None) or ".")
    recorded = found.endpoint if found is not None else ""
    wait = LOCAL_START_SECONDS if mode == RESOLVE else -1.0
    endpoint = resolve(None, recorded, wait=wait)
    args.recorded_endpoint = endpoint.recorded_as  # what a memory made here is recorded with
    return endpoint.address


async def _run(args: argparse.Namespace) -> int:
    async with AsyncClient(config=_config(args)) as client:
        return await args.handler(client, args, Printer(args.output))


def error_line(error: PowerContextError) -> str:
    return f"error: {describe(error)}"


def exit_code(error: PowerContextError) -> int:
    for cls in type(error).__mro__:
        if cls in EXIT_CODES:
            return EXIT_CODES[cls]
    return 1


def main(argv: Sequence[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    if arguments[:1] == ["hook"]:  # agent hooks: straight to the handler, always exit 0
        return runtime.hook_main(arguments[1:])
    args = build_parser().parse_args(arguments)
    try:
        return asyncio.run(_run(args))
    except PowerContextError as error:
        print(error_line(error), file=sys.stderr)
        return exit_code(error)
    except (OSError, ValueError) as error:  # unreadable file, bad JSON Lines or settings
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE if isinstance(error, ValueError) else 1
    except grpc.RpcError as error:  # not from a call the client wraps; should not happen
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
