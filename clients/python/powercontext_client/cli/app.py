"""The `powercontext` commands: parser, dispatch, errors and exit codes.

    powercontext [--endpoint HOST:PORT] [-o text|json] COMMAND ...

Every command is one entry in COMMANDS: its name, help, arguments (arguments.py, or beside the
handler) and handler (commands.py, remembered.py, listing.py, memories.py, ...). An
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
from . import arguments, bridge, commands, curation, listing, memories, remembered, runtime
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


COMMANDS: list[Command] = [
    Command("create", "create a memory with entries", arguments.create, commands.create),
    Command(
        "remember", "add entries (or JSON Lines revisions)", arguments.remember, commands.remember
    ),
    Command("revise", "a new version of an entry's text", arguments.revise, commands.revise_entry),
    Command(
        "forget", "deactivate entries (kept, not recalled)", arguments.entries, commands.forget
    ),
    Command(
        "reactivate", "make forgotten entries active again", arguments.entries, commands.reactivate
    ),
    Command(
        "organize",
        "exact dedupe, then evidence normalization",
        arguments.organize,
        commands.organize,
    ),
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
    Command(
        "get",
        "a memory's revision with its entries' text, or those entries' versions",
        remembered.get_arguments,
        remembered.get,
    ),
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
    Command("search", "search the heads of memories", arguments.search, commands.search),
    Command(
        "expand", "verify citations and show the cited versions", arguments.expand, commands.expand
    ),
    Command(
        "context", "the context block for an agent's next task", arguments.context, commands.context
    ),
    Command(
        "changes",
        "what each revision changed, with the texts; --follow to stream",
        remembered.changes_arguments,
        remembered.changes,
    ),
    Command(
        "memories",
        "the memories you can see: label, head, entries, newest change",
        memories.memories_arguments,
        memories.memories,
    ),
    Command("label", "set or clear a memory's label", memories.label_arguments, memories.label),
    Command("capabilities", "what the server can do", arguments.nothing, commands.capabilities),
    Command("health", "exit 0 when the server is SERVING", arguments.health, commands.health, FIND),
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
    Command(
        "put", "store a file as immutable evidence", arguments.sources_put, commands.sources_put
    ),
    Command("get", "show a stored source", arguments.sources_get, commands.sources_get),
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
