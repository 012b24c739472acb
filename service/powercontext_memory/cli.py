"""Server command line: `powercontext-memory COMMAND ...` (also `python -m powercontext_memory`).

Each command is a `Command` in COMMANDS: a function that adds its arguments to a subparser and
a function that runs with the parsed arguments and returns the exit code. To add one, write
both functions and append a Command to COMMANDS.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .app import DEFAULT_DATABASE, open_service
from .backends.oceanbase_wire import is_oceanbase_dsn
from .embedding.factory import (
    DEFAULT_API_KEY_ENV,
    EMBEDDING_KINDS,
    EmbeddingConfig,
    open_embedding_model,
)
from .logs import LOG_FORMATS, configure_logging
from .memory import DEFAULT_PROGRESS_INTERVAL, MemoryService

if TYPE_CHECKING:
    from .transport.interceptor import CallTracer

DEFAULT_LISTEN = "127.0.0.1:50051"
ENV_LISTEN = "POWERCONTEXT_LISTEN"
ENV_DATABASE = "POWERCONTEXT_DATABASE"
ENV_PROGRESS_INTERVAL = "POWERCONTEXT_PROGRESS_INTERVAL"
ENV_METRICS_LISTEN = "POWERCONTEXT_METRICS_LISTEN"
ENV_LOG_FORMAT = "POWERCONTEXT_LOG_FORMAT"
ENV_OTEL = "POWERCONTEXT_OTEL"
ENV_ACCESS_LOG = "POWERCONTEXT_ACCESS_LOG"


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


def log_format(text: str) -> str:
    # A type rather than choices: argparse checks choices only on the command line, and the
    # default may come from the environment.
    if text not in LOG_FORMATS:
        raise argparse.ArgumentTypeError(f"{text!r} is not one of {', '.join(LOG_FORMATS)}")
    return text


def metrics_address(text: str) -> str:
    from .transport.metrics_endpoint import split_host_port

    try:
        split_host_port(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def boolean(text: str) -> bool:
    value = text.strip().lower()
    if value in ("", "0", "false", "no", "off"):
        return False
    if value in ("1", "true", "yes", "on"):
        return True
    raise argparse.ArgumentTypeError(f"{text!r} is not a boolean (1/0, true/false, yes/no)")


# -- embedding options (serve and the admin commands) -------------------------------------------

ENV_EMBEDDING = "POWERCONTEXT_EMBEDDING"
ENV_EMBEDDING_URL = "POWERCONTEXT_EMBEDDING_URL"
ENV_EMBEDDING_MODEL = "POWERCONTEXT_EMBEDDING_MODEL"
ENV_EMBEDDING_DIMENSION = "POWERCONTEXT_EMBEDDING_DIMENSION"


def _embedding_arguments(parser: argparse.ArgumentParser, default: str = "none") -> None:
    parser.add_argument(
        "--embedding",
        choices=EMBEDDING_KINDS,
        default=os.environ.get(ENV_EMBEDDING, default),
        help="embedding model: none (full text only), minilm (offline all-MiniLM-L6-v2, "
        "English) or http (OpenAI-compatible endpoint; key from env "
        f"{DEFAULT_API_KEY_ENV}) (env {ENV_EMBEDDING}, default {default})",
    )
    parser.add_argument(
        "--embedding-url",
        default=os.environ.get(ENV_EMBEDDING_URL),
        help=f"http: base URL, e.g. http://127.0.0.1:8080/v1 (env {ENV_EMBEDDING_URL})",
    )
    parser.add_argument(
        "--embedding-model",
        default=os.environ.get(ENV_EMBEDDING_MODEL),
        help=f"http: model name (env {ENV_EMBEDDING_MODEL})",
    )
    parser.add_argument(
        "--embedding-dimension",
        type=int,
        default=os.environ.get(ENV_EMBEDDING_DIMENSION),
        help=f"http: vector dimension (env {ENV_EMBEDDING_DIMENSION})",
    )


def _embedding_config(args: argparse.Namespace) -> EmbeddingConfig:
    dimension = args.embedding_dimension
    return EmbeddingConfig(
        kind=args.embedding,
        url=args.embedding_url,
        model=args.embedding_model,
        dimension=int(dimension) if dimension is not None else None,
    )


async def _open(args: argparse.Namespace, **options: Any) -> MemoryService:
    """The service over --database with the --embedding model (if any)."""
    model = await open_embedding_model(_embedding_config(args))
    try:
        return await open_service(args.database, embedding=model, **options)
    except BaseException:
        if model is not None:
            await model.close()
        raise


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
        help="SQLite database file, created if missing, or an OceanBase DSN "
        "oceanbase://USER@HOST:PORT/DATABASE (password in POWERCONTEXT_OCEANBASE_PASSWORD) "
        f"(env {ENV_DATABASE}, default {DEFAULT_DATABASE})",
    )
    parser.add_argument(
        "--progress-interval",
        type=positive_float,
        default=os.environ.get(ENV_PROGRESS_INTERVAL, str(DEFAULT_PROGRESS_INTERVAL)),
        metavar="SECONDS",
        help="idle time before a follow stream gets a ChangesProgress "
        f"(env {ENV_PROGRESS_INTERVAL}, default {DEFAULT_PROGRESS_INTERVAL:g})",
    )
    _embedding_arguments(parser)
    _observability_arguments(parser)


def _observability_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--metrics-listen",
        type=metrics_address,
        default=os.environ.get(ENV_METRICS_LISTEN) or None,
        metavar="HOST:PORT",
        help="serve Prometheus metrics at http://HOST:PORT/metrics; port 0 picks a free one "
        f"(logged) (env {ENV_METRICS_LISTEN}, default off)",
    )
    parser.add_argument(
        "--log-format",
        type=log_format,
        default=os.environ.get(ENV_LOG_FORMAT, "text"),
        metavar="{text,json}",
        help=f"log lines on stderr as text or one JSON object per line (env {ENV_LOG_FORMAT}, "
        "default text)",
    )
    _switch(
        parser,
        "--access-log",
        ENV_ACCESS_LOG,
        "log one INFO line per call: method, status code, duration, request id",
    )
    _switch(
        parser,
        "--otel",
        ENV_OTEL,
        "trace every RPC with OpenTelemetry (needs the otel extra); exporter, service name and "
        "sampler from the standard OTEL_* variables",
    )


def _switch(parser: argparse.ArgumentParser, flag: str, env: str, help: str) -> None:
    """An off-by-default flag that the environment can turn on (`env`=1/true/yes/on)."""
    parser.add_argument(
        flag,
        type=boolean,
        nargs="?",
        const=True,
        default=os.environ.get(env, "false"),
        metavar="BOOL",
        help=f"{help} (env {env}=1, default off)",
    )


def _tracer(args: argparse.Namespace) -> CallTracer | None:
    if not args.otel:
        return None
    try:
        from .transport.tracing import OtelTracer, tracer_provider_from_env
    except ImportError as error:
        raise RuntimeError(
            f"--otel needs the otel extra: pip install 'powercontext-memory[otel]' ({error})"
        ) from error
    return OtelTracer(tracer_provider_from_env())


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

    tracer = _tracer(args)
    service = await _open(args, progress_interval=args.progress_interval)
    try:
        running = await start_server(
            service,
            args.listen,
            metrics_listen=args.metrics_listen,
            tracer=tracer,
            access_log=args.access_log,
        )
    except BaseException:
        await service.close()
        raise
    caps = service.capabilities()
    vectors = "vectors: " + (
        caps.embedding_profile.profile_id
        if caps.vector and caps.embedding_profile
        else f"off ({caps.vector_unavailable_reason})"
    )
    print(
        f"serving {SERVICE_NAME} on {_listen_host(args.listen)}:{running.port} "
        f"({caps.backend}: {service.backend.adapter.location}; {vectors})",
        flush=True,
    )
    try:
        await stop.wait()
    finally:
        await running.stop()
    return 0


def _operator_error(error: Exception) -> bool:
    """An error the operator fixes (bad address, options, model file, schema, an unreachable or
    refusing OceanBase), reported in one line rather than as a traceback."""
    if isinstance(error, OSError | ValueError | RuntimeError):
        return True
    if "asyncmy" not in sys.modules:  # the oceanbase extra is optional; never import it here
        return False
    from asyncmy.errors import MySQLError

    return isinstance(error, MySQLError)


def serve(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_serve_async(args))
    except Exception as error:
        if not _operator_error(error):
            raise
        print(f"error: {error}", file=sys.stderr)
        return 1


# -- admin: verify, rebuild-projection ----------------------------------------------------------


def _database_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--database",
        default=os.environ.get(ENV_DATABASE, DEFAULT_DATABASE),
        help="SQLite database file or OceanBase DSN oceanbase://USER@HOST:PORT/DATABASE "
        f"(env {ENV_DATABASE}, default {DEFAULT_DATABASE})",
    )


def _existing_database(path: str) -> bool:
    # Opening would create an empty database; an admin command on a typo must fail instead.
    # (An OceanBase database must exist already: the server refuses unknown ones.)
    if not is_oceanbase_dsn(path) and not os.path.isfile(path):
        print(f"error: no database at {path}", file=sys.stderr)
        return False
    return True


async def _verify_async(args: argparse.Namespace) -> int:
    from .verifier import verify

    service = await open_service(args.database)
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
    if report.missing_vectors:
        print(
            f"note: {report.missing_vectors} active entries have no vector "
            "(run rebuild-vectors to complete vector search)"
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


def _admin_arguments(parser: argparse.ArgumentParser) -> None:
    _database_argument(parser)
    _embedding_arguments(parser)


async def _admin_async(args: argparse.Namespace) -> int:
    from . import admin

    service = await _open(args)
    try:
        if args.command == "migrate-embedding":
            report = await admin.migrate(service, progress=print)
        else:
            reembed = args.command == "rebuild-vectors" and args.all
            report = await admin.rebuild(service, reembed_all=reembed, progress=print)
    finally:
        await service.close()
    print(
        f"rebuilt {report.memories} memories: {report.rows} active entries, "
        f"{report.embedded} embedded, {report.kept} vectors kept"
    )
    if service.backend.profile is None:
        print("no embedding profile: full text only")
        return 0
    if report.complete:
        print(f"vector projection complete ({service.backend.profile.profile_id})")
        return 0
    print(
        f"INCOMPLETE vector projection in {len(report.without_vector)} memories: "
        + ", ".join(report.without_vector)
    )
    return 1


def admin_command(args: argparse.Namespace) -> int:
    if not _existing_database(args.database):
        return 2
    from .domain.errors import MemoryServiceError

    if args.command in ("rebuild-vectors", "migrate-embedding") and args.embedding == "none":
        print(f"error: {args.command} needs --embedding", file=sys.stderr)
        return 2
    try:
        return asyncio.run(_admin_async(args))
    except (MemoryServiceError, ValueError) as error:
        print(f"error: {getattr(error, 'message', error)}", file=sys.stderr)
        return 1


def _rebuild_vectors_arguments(parser: argparse.ArgumentParser) -> None:
    _admin_arguments(parser)
    parser.add_argument(
        "--all", action="store_true", help="re-embed every entry, not only missing/invalid ones"
    )


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
        "offline: rebuild every memory's head projection and full-text index (keeps valid "
        "vectors; embeds missing ones when --embedding is given)",
        _admin_arguments,
        admin_command,
    ),
    Command(
        "rebuild-vectors",
        "offline: embed every active entry that lacks a valid vector (--all: every entry)",
        _rebuild_vectors_arguments,
        admin_command,
    ),
    Command(
        "migrate-embedding",
        "offline: switch the database to the --embedding model's profile and re-embed all",
        _admin_arguments,
        admin_command,
    ),
]


# -- entry point --------------------------------------------------------------------------------


def build_parser(commands: Sequence[Command] = ()) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="powercontext-memory",
        description="PowerContext Memory: versioned, auditable memory for coding agents.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in commands or COMMANDS:
        sub = subparsers.add_parser(command.name, help=command.help, description=command.help)
        command.add_arguments(sub)
        sub.set_defaults(run=command.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    configure_logging(getattr(args, "log_format", "text"))
    return args.run(args)
