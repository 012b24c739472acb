"""Command line: `python -m powercontext_memory COMMAND ...`.

Each command is a `Command` in COMMANDS: a function that adds its arguments to a subparser and
a function that runs with the parsed arguments and returns the exit code. To add one, write
both functions and append a Command to COMMANDS.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .app import DEFAULT_DATABASE, open_sqlite_service
from .memory import DEFAULT_PROGRESS_INTERVAL

DEFAULT_LISTEN = "127.0.0.1:50051"
ENV_LISTEN = "POWERCONTEXT_LISTEN"
ENV_DATABASE = "POWERCONTEXT_DATABASE"
ENV_PROGRESS_INTERVAL = "POWERCONTEXT_PROGRESS_INTERVAL"


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


# -- serve --------------------------------------------------------------------------------------


def _serve_arguments(parser: argparse.ArgumentParser) -> None:
    # Env vars are read here, at parse time, so a test or a wrapper can set them per run.
    parser.add_argument(
        "--listen",
        default=os.environ.get(ENV_LISTEN, DEFAULT_LISTEN),
        help=f"HOST:PORT to listen on; port 0 picks a free one (env {ENV_LISTEN}, "
        f"default {DEFAULT_LISTEN})",
    )
    parser.add_argument(
        "--database",
        default=os.environ.get(ENV_DATABASE, DEFAULT_DATABASE),
        help=f"SQLite database file, created if missing (env {ENV_DATABASE}, "
        f"default {DEFAULT_DATABASE})",
    )
    parser.add_argument(
        "--progress-interval",
        type=positive_float,
        default=os.environ.get(ENV_PROGRESS_INTERVAL, str(DEFAULT_PROGRESS_INTERVAL)),
        metavar="SECONDS",
        help="idle time before a follow stream gets a ChangesProgress "
        f"(env {ENV_PROGRESS_INTERVAL}, default {DEFAULT_PROGRESS_INTERVAL:g})",
    )


def _listen_host(address: str) -> str:
    host, _, _ = address.rpartition(":")
    return host or "[::]"  # ":PORT" makes grpc listen on every interface


async def _serve_async(args: argparse.Namespace) -> int:
    # Imported here so commands that do not serve do not load grpc.
    from .transport.server import SERVICE_NAME, start_server

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)

    service = await open_sqlite_service(args.database, progress_interval=args.progress_interval)
    try:
        running = await start_server(service, args.listen)
    except BaseException:
        await service.close()
        raise
    print(
        f"serving {SERVICE_NAME} on {_listen_host(args.listen)}:{running.port} "
        f"(sqlite: {args.database})",
        flush=True,
    )
    try:
        await stop.wait()
    finally:
        await running.stop()
    return 0


def serve(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_serve_async(args))
    except OSError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1


# -- admin: verify, rebuild-projection ----------------------------------------------------------


def _database_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--database",
        default=os.environ.get(ENV_DATABASE, DEFAULT_DATABASE),
        help=f"SQLite database file (env {ENV_DATABASE}, default {DEFAULT_DATABASE})",
    )


def _existing_database(path: str) -> bool:
    # Opening would create an empty database; an admin command on a typo must fail instead.
    if not os.path.isfile(path):
        print(f"error: no database at {path}", file=sys.stderr)
        return False
    return True


async def _verify_async(args: argparse.Namespace) -> int:
    from .verifier import verify

    service = await open_sqlite_service(args.database)
    try:
        report = await verify(service.backend)
    finally:
        await service.close()
    for problem in report.problems:
        print(f"PROBLEM {problem}")
    summary = (
        f"{report.memories} memories, {report.revisions} revisions, "
        f"{report.entry_versions} entry versions, {report.sources} sources"
    )
    if report.ok:
        print(f"OK: {summary} verified")
        return 0
    print(f"FAILED: {len(report.problems)} problem(s) in {summary}")
    return 1


def verify_command(args: argparse.Namespace) -> int:
    if not _existing_database(args.database):
        return 2
    return asyncio.run(_verify_async(args))


def _rebuild_arguments(parser: argparse.ArgumentParser) -> None:
    _database_argument(parser)
    parser.add_argument(
        "--memory",
        action="append",
        default=[],
        metavar="ARTIFACT_ID",
        help="rebuild only this memory (repeatable); default: every memory",
    )


async def _rebuild_async(args: argparse.Namespace) -> int:
    service = await open_sqlite_service(args.database)
    try:
        backend = service.backend
        if args.memory:
            ids = list(args.memory)
        else:
            async with backend.read() as session:
                ids = await session.tx.artifact_ids()
        for number, artifact_id in enumerate(ids, start=1):
            rows = await backend.rebuild_projection(artifact_id)
            print(f"[{number}/{len(ids)}] {artifact_id}: {rows} active entries projected")
    finally:
        await service.close()
    print(f"rebuilt the head projection and full-text index of {len(ids)} memories")
    return 0


def rebuild_command(args: argparse.Namespace) -> int:
    if not _existing_database(args.database):
        return 2
    from .domain.errors import MemoryServiceError

    try:
        return asyncio.run(_rebuild_async(args))
    except MemoryServiceError as error:
        print(f"error: {error.message}", file=sys.stderr)
        return 1


COMMANDS: list[Command] = [
    Command("serve", "run the gRPC server", _serve_arguments, serve),
    Command(
        "verify",
        "re-check every stored revision, entry version, source and the projection offline",
        _database_argument,
        verify_command,
    ),
    Command(
        "rebuild-projection",
        "rebuild the head projection and full-text index from the authoritative tables",
        _rebuild_arguments,
        rebuild_command,
    ),
]


# -- entry point --------------------------------------------------------------------------------


def build_parser(commands: Sequence[Command] = ()) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m powercontext_memory",
        description="PowerContext Memory: versioned, auditable memory for coding agents.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in commands or COMMANDS:
        sub = subparsers.add_parser(command.name, help=command.help, description=command.help)
        command.add_arguments(sub)
        sub.set_defaults(run=command.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(
        level=logging.INFO,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    args = build_parser().parse_args(argv)
    return args.run(args)
