"""Server command line: `powercontext-memory COMMAND ...` (also `python -m powercontext_memory`).

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
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .app import DEFAULT_DATABASE, open_service
from .arguments import boolean, positive_float, positive_int
from .backends.oceanbase_wire import is_oceanbase_dsn
from .embedding.factory import (
    AUTO,
    DEFAULT_API_KEY_ENV,
    EMBEDDING_KINDS,
    MODEL_CACHE_OFF,
    EmbeddingConfig,
    default_model_cache,
    model_cache_directory,
    open_embedding_model,
)
from .lifetime import lifetime_arguments, remove_address, write_address
from .logs import LOG_FORMATS, configure_logging
from .memory import DEFAULT_PROGRESS_INTERVAL, MemoryService

if TYPE_CHECKING:
    from .candidates.model import ModelExtractor
    from .transport.idle import IdleWatch
    from .transport.interceptor import CallTracer

logger = logging.getLogger("powercontext_memory.serve")

DEFAULT_LISTEN = "127.0.0.1:50051"
ENV_LISTEN = "POWERCONTEXT_LISTEN"
ENV_DATABASE = "POWERCONTEXT_DATABASE"
ENV_PROGRESS_INTERVAL = "POWERCONTEXT_PROGRESS_INTERVAL"
ENV_METRICS_LISTEN = "POWERCONTEXT_METRICS_LISTEN"
ENV_LOG_FORMAT = "POWERCONTEXT_LOG_FORMAT"
ENV_OTEL = "POWERCONTEXT_OTEL"
ENV_ACCESS_LOG = "POWERCONTEXT_ACCESS_LOG"
ENV_WORKERS = "POWERCONTEXT_WORKERS"


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


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


# -- embedding options (serve and the admin commands) -------------------------------------------

ENV_EMBEDDING = "POWERCONTEXT_EMBEDDING"
ENV_EMBEDDING_URL = "POWERCONTEXT_EMBEDDING_URL"
ENV_EMBEDDING_MODEL = "POWERCONTEXT_EMBEDDING_MODEL"
ENV_EMBEDDING_DIMENSION = "POWERCONTEXT_EMBEDDING_DIMENSION"
ENV_MODEL_CACHE = "POWERCONTEXT_MODEL_CACHE"


def _embedding_arguments(parser: argparse.ArgumentParser, default: str = "none") -> None:
    parser.add_argument(
        "--embedding",
        choices=(AUTO, *EMBEDDING_KINDS),
        default=os.environ.get(ENV_EMBEDDING, default),
        help="embedding model: none (full text only), minilm (offline all-MiniLM-L6-v2, "
        "English), multilingual (offline USE-multilingual v3, English, Chinese and 14 more), "
        "http (OpenAI-compatible endpoint; key from env "
        f"{DEFAULT_API_KEY_ENV}) or auto (a database's stored profile; multilingual for a new "
        f"database) (env {ENV_EMBEDDING}, default {default})",
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
    parser.add_argument(
        "--model-cache",
        type=model_cache_argument,
        default=os.environ.get(ENV_MODEL_CACHE, default_model_cache()),
        metavar="DIR",
        help="multilingual: directory its 65 MB token table is mapped from (written there from "
        "the verified weights; only the rows in use stay in memory), or "
        f"{MODEL_CACHE_OFF} to hold it in the heap (env {ENV_MODEL_CACHE}, default "
        "$XDG_CACHE_HOME/powercontext-memory or ~/.cache/powercontext-memory)",
    )


def model_cache_argument(text: str) -> Path | None:
    try:
        return model_cache_directory(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


async def _embedding_config(
    args: argparse.Namespace, database_timeout: float | None = None
) -> EmbeddingConfig:
    dimension = args.embedding_dimension
    kind = args.embedding
    if kind == AUTO:
        from .embedding_choice import choose_for

        choice = await choose_for(
            args.database,
            http_configured=bool(args.embedding_url and args.embedding_model and dimension),
            timeout=database_timeout,
        )
        kind = choice.kind
    return EmbeddingConfig(
        kind=kind,
        url=args.embedding_url,
        model=args.embedding_model,
        dimension=int(dimension) if dimension is not None else None,
        model_cache=args.model_cache,
    )


async def _open(args: argparse.Namespace, **options: Any) -> MemoryService:
    """The service over --database with the --embedding model (if any)."""
    config = await _embedding_config(args, options.get("database_timeout"))
    model = await open_embedding_model(config)
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
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=os.environ.get(ENV_WORKERS, "1"),
        metavar="N",
        help="server processes sharing the port (SO_REUSEPORT), each with its own connections, "
        "caches and model; --metrics-listen PORT: worker i serves metrics on PORT+i "
        f"(env {ENV_WORKERS}, default 1)",
    )
    # Set by the supervisor of --workers N on each worker it starts (workers.py), not by hand.
    parser.add_argument("--worker-index", type=int, default=None, help=argparse.SUPPRESS)
    _embedding_arguments(parser, default=AUTO)
    _extractor_arguments(parser)
    _observability_arguments(parser)
    _security_arguments(parser)
    _limits_arguments(parser)
    lifetime_arguments(parser)


# -- serve: the optional model-assisted candidate extractor (README "Candidate pipeline") -------

ENV_EXTRACTOR_URL = "POWERCONTEXT_EXTRACTOR_URL"
ENV_EXTRACTOR_MODEL = "POWERCONTEXT_EXTRACTOR_MODEL"


def _extractor_arguments(parser: argparse.ArgumentParser) -> None:
    from .candidates.model import API_KEY_ENV

    parser.add_argument(
        "--extractor-url",
        default=os.environ.get(ENV_EXTRACTOR_URL) or None,
        metavar="URL",
        help="OpenAI-compatible chat completions base URL (e.g. http://127.0.0.1:8080/v1) of "
        f"an optional model extractor for Remember EXTRACT; key from env {API_KEY_ENV}; off "
        f"by default (env {ENV_EXTRACTOR_URL})",
    )
    parser.add_argument(
        "--extractor-model",
        default=os.environ.get(ENV_EXTRACTOR_MODEL) or None,
        metavar="NAME",
        help=f"the model extractor's model name (env {ENV_EXTRACTOR_MODEL})",
    )


def _extractor(args: argparse.Namespace) -> ModelExtractor | None:
    """The model extractor the flags configure, or None (the deterministic adapters only)."""
    if not args.extractor_url and not args.extractor_model:
        return None
    from .candidates.model import API_KEY_ENV, ModelExtractor

    if not args.extractor_url:
        raise ValueError("--extractor-model needs --extractor-url")
    return ModelExtractor(
        args.extractor_url, args.extractor_model or "", os.environ.get(API_KEY_ENV)
    )


# -- serve: limits (README "Limits") -------------------------------------------------------------

ENV_DATABASE_TIMEOUT = "POWERCONTEXT_DATABASE_TIMEOUT"
ENV_MAX_STREAMS = "POWERCONTEXT_MAX_STREAMS"
ENV_MAX_STREAMS_PER_CALLER = "POWERCONTEXT_MAX_STREAMS_PER_CALLER"


def _limits_arguments(parser: argparse.ArgumentParser) -> None:
    from .backends.timeouts import DEFAULT_DATABASE_TIMEOUT
    from .streams import DEFAULT_MAX_STREAMS, DEFAULT_MAX_STREAMS_PER_CALLER

    parser.add_argument(
        "--database-timeout",
        type=positive_float,
        default=os.environ.get(ENV_DATABASE_TIMEOUT, str(DEFAULT_DATABASE_TIMEOUT)),
        metavar="SECONDS",
        help="bound on each database call, lock and connection wait: past it the call fails "
        "with UNAVAILABLE (DATABASE_TIMEOUT) and its connection is discarded "
        f"(env {ENV_DATABASE_TIMEOUT}, default {DEFAULT_DATABASE_TIMEOUT:g})",
    )
    parser.add_argument(
        "--max-streams",
        type=positive_int,
        default=os.environ.get(ENV_MAX_STREAMS, str(DEFAULT_MAX_STREAMS)),
        metavar="N",
        help="open Changes streams the server accepts in all; more get RESOURCE_EXHAUSTED "
        f"(TOO_MANY_STREAMS) (env {ENV_MAX_STREAMS}, default {DEFAULT_MAX_STREAMS})",
    )
    parser.add_argument(
        "--max-streams-per-caller",
        type=positive_int,
        default=os.environ.get(ENV_MAX_STREAMS_PER_CALLER, str(DEFAULT_MAX_STREAMS_PER_CALLER)),
        metavar="N",
        help="open Changes streams per token (without auth: for all callers together) "
        f"(env {ENV_MAX_STREAMS_PER_CALLER}, default {DEFAULT_MAX_STREAMS_PER_CALLER})",
    )


# -- serve: tokens and TLS (README "Running on a network") ---------------------------------------

ENV_AUTH = "POWERCONTEXT_AUTH"
ENV_INSECURE = "POWERCONTEXT_INSECURE"
ENV_REFLECTION = "POWERCONTEXT_REFLECTION"
# Not POWERCONTEXT_TLS_CERT/KEY: those are a client's own certificate (clients read them), and
# a shell that sets them for a client must not hand them to a server started from it.
ENV_TLS_CERT = "POWERCONTEXT_SERVER_TLS_CERT"
ENV_TLS_KEY = "POWERCONTEXT_SERVER_TLS_KEY"
ENV_TLS_CLIENT_CA = "POWERCONTEXT_SERVER_TLS_CLIENT_CA"


def _choice(values: Sequence[str]) -> Callable[[str], str]:
    """A type rather than choices: argparse checks choices only on the command line."""

    def parse(text: str) -> str:
        if text not in values:
            raise argparse.ArgumentTypeError(f"{text!r} is not one of {', '.join(values)}")
        return text

    return parse


def _security_arguments(parser: argparse.ArgumentParser) -> None:
    from .security.exposure import AuthMode

    modes = [m.value for m in AuthMode]
    parser.add_argument(
        "--auth",
        type=_choice(modes),
        default=os.environ.get(ENV_AUTH, "auto"),
        metavar="{" + ",".join(modes) + "}",
        help="bearer tokens: auto = tokens when the database holds an active token, none on a "
        "loopback address otherwise (elsewhere the server refuses to start without "
        f"--insecure); tokens = always; none = never (env {ENV_AUTH}, default auto)",
    )
    _switch(
        parser,
        "--insecure",
        ENV_INSECURE,
        "allow serving without tokens on an address other machines can reach",
    )
    reflection_modes = ["token", "open", "off"]
    parser.add_argument(
        "--reflection",
        type=_choice(reflection_modes),
        default=os.environ.get(ENV_REFLECTION, "token"),
        metavar="{" + ",".join(reflection_modes) + "}",
        help="server reflection (grpcurl without proto files): token = needs a token when "
        "tokens are checked, open = never, off = not served "
        f"(env {ENV_REFLECTION}, default token)",
    )
    parser.add_argument(
        "--tls-cert",
        default=os.environ.get(ENV_TLS_CERT) or None,
        metavar="PEM",
        help=f"serve TLS with this certificate chain (env {ENV_TLS_CERT})",
    )
    parser.add_argument(
        "--tls-key",
        default=os.environ.get(ENV_TLS_KEY) or None,
        metavar="PEM",
        help=f"the certificate's private key (env {ENV_TLS_KEY})",
    )
    parser.add_argument(
        "--tls-client-ca",
        default=os.environ.get(ENV_TLS_CLIENT_CA) or None,
        metavar="PEM",
        help=f"mutual TLS: require client certificates issued by this CA (env {ENV_TLS_CLIENT_CA})",
    )


async def _auth_decision(
    args: argparse.Namespace, service: MemoryService
) -> tuple[bool, Callable[[], None]]:
    """Whether to check tokens (ExposureRefused: do not start), and what to log once serving."""
    from .security.exposure import AuthMode, decide
    from .security.tokens import TokenStatus

    mode = AuthMode(args.auth)
    now = time.time_ns() // 1_000_000
    active = 0
    if mode is not AuthMode.NONE:
        tokens = await service.backend.access_tokens()
        active = sum(1 for token in tokens if token.status(now) is TokenStatus.ACTIVE)
    decision = decide(mode, args.listen, active, insecure=args.insecure)
    return decision.tokens, lambda: _report_auth(args, decision.tokens, decision.why, active)


def _report_auth(args: argparse.Namespace, tokens: bool, why: str, active: int) -> None:
    from .security.exposure import is_loopback

    if tokens:
        logger.info("authentication: bearer tokens (%s)", why)
        if not active:
            logger.warning(
                "the database holds no active token: every call but health is refused until "
                "`powercontext-memory tokens create` makes one"
            )
        if args.tls_cert is None and not is_loopback(args.listen):
            logger.warning(
                "tokens travel in plaintext on %s: serve with --tls-cert/--tls-key, or "
                "terminate TLS in front of this port",
                args.listen,
            )
    elif is_loopback(args.listen):
        logger.info("authentication: off (%s)", why)
    else:
        logger.warning(
            "authentication: OFF on %s (%s): anyone who can reach it can read and write every "
            "memory",
            args.listen,
            why,
        )


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
    from .transport.tls import ServerTls

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    worker = args.worker_index
    if worker is not None:
        # Ctrl-C reaches the whole process group: the supervisor alone decides, and sends
        # SIGTERM to every worker (a worker ending first would look like a crash to it).
        loop.add_signal_handler(signal.SIGINT, lambda: None)
        _stop_when_supervisor_goes(loop, stop)

    tracer = _tracer(args)
    tls = ServerTls.from_options(args.tls_cert, args.tls_key, args.tls_client_ca)
    from .streams import StreamLimits
    from .transport.idle import IdleWatch

    idle = IdleWatch() if args.idle_exit else None

    service = await _open(
        args,
        progress_interval=args.progress_interval,
        database_timeout=args.database_timeout,
        stream_limits=StreamLimits(args.max_streams, args.max_streams_per_caller),
        extractor=_extractor(args),
    )
    try:
        auth, report_auth = await _auth_decision(args, service)
        running = await start_server(
            service,
            args.listen,
            metrics_listen=_worker_metrics(args.metrics_listen, worker or 0),
            tracer=tracer,
            access_log=args.access_log,
            auth=auth,
            reflection_mode=args.reflection,
            tls=tls,
            shared_port=worker is not None,
            activity=idle,
        )
    except BaseException:
        await service.close()
        raise
    address = f"{_listen_host(args.listen)}:{running.port}"
    if args.address_file:  # before the startup line: whoever reads that line finds the file
        write_address(args.address_file, address)
    caps = service.capabilities()
    vectors = "vectors: " + (
        caps.embedding_profile.profile_id
        if caps.vector and caps.embedding_profile
        else f"off ({caps.vector_unavailable_reason})"
    )
    print(
        f"serving {SERVICE_NAME} on {address} "
        f"({caps.backend}: {service.backend.capabilities().location}; {vectors})",
        flush=True,
    )
    if not worker:  # with --workers N, worker 0 says it for all
        report_auth()
    try:
        await _until(stop, idle, args.idle_exit)
    finally:
        await running.stop()
        if args.address_file:
            remove_address(args.address_file, address)
    return 0


async def _until(stop: asyncio.Event, idle: IdleWatch | None, idle_exit: float | None) -> None:
    """A signal, or (with --idle-exit) that long without a call in flight."""
    waits: list[asyncio.Future[Any]] = [asyncio.ensure_future(stop.wait())]
    if idle is not None and idle_exit:
        waits.append(asyncio.ensure_future(idle.wait_idle(idle_exit)))
    done, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    if waits[0] not in done:
        logger.info("no call for %gs: stopping (--idle-exit)", idle_exit)


def _operator_error(error: Exception) -> bool:
    """An error the operator fixes (bad address, options, model file, schema, an unreachable or
    refusing OceanBase), reported in one line rather than as a traceback."""
    if isinstance(error, OSError | ValueError | RuntimeError):
        return True
    if "asyncmy" not in sys.modules:  # the oceanbase extra is optional; never import it here
        return False
    from asyncmy.errors import MySQLError

    return isinstance(error, MySQLError)


def _worker_metrics(address: str | None, worker: int) -> str | None:
    """Worker i of `--workers N` serves its metrics on PORT+i (port 0: each picks one)."""
    if address is None or not worker:
        return address
    host, _, port = address.rpartition(":")
    return address if port == "0" else f"{host}:{int(port) + worker}"


def _stop_when_supervisor_goes(loop: asyncio.AbstractEventLoop, stop: asyncio.Event) -> None:
    """A worker's stdin is a pipe from its supervisor: end of file means the supervisor is gone
    (even killed), and a worker must not serve on without it."""

    def wait() -> None:
        # The raw descriptor, not sys.stdin: a thread blocked in a buffered read would hold
        # its lock while the interpreter exits.
        while os.read(sys.stdin.fileno(), 4096):
            pass
        loop.call_soon_threadsafe(stop.set)

    threading.Thread(target=wait, name="supervisor-watch", daemon=True).start()


def _one_blas_thread() -> None:
    """Hold the server's BLAS to one thread. Its NumPy work is small and per request (the
    vector channel's top-k, the model's forward pass): OpenBLAS's extra threads only spin
    while they wait, and burned the other core (hybrid at 10,000 entries in process: 11.0 ms
    of CPU per search with its default threads, 6.5 ms with one, the same wall time)."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")  # for the process's life


def serve(args: argparse.Namespace) -> int:
    try:
        if args.workers > 1 and args.worker_index is None:
            from .workers import supervise

            return supervise(args.argv, args.workers, args.listen)
        _one_blas_thread()
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


async def _migrate_manifests_async(args: argparse.Namespace) -> int:
    service = await open_service(args.database)
    try:
        migrated, failed = await service.backend.migrate_manifests(
            progress=lambda done: print(f"{done} revisions stored as manifest pieces", flush=True)
        )
    finally:
        await service.close()
    for key in failed:
        print(f"PROBLEM artifact_revisions[{key}]: content does not match its hash, left whole")
    print(f"migrated {migrated} revisions to manifest pieces; {len(failed)} left whole")
    return 1 if failed else 0


def migrate_manifests_command(args: argparse.Namespace) -> int:
    if not _existing_database(args.database):
        return 2
    return asyncio.run(_migrate_manifests_async(args))


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


# -- admin: tokens -------------------------------------------------------------------------------


def _tokens_arguments(parser: argparse.ArgumentParser) -> None:
    from .admin import tokens

    tokens.add_arguments(parser, _database_argument)


def tokens_command(args: argparse.Namespace) -> int:
    # create may make the database (a token before the first start); the others need one.
    if args.tokens_action != "create" and not _existing_database(args.database):
        return 2
    from .admin import tokens

    return tokens.run(args)


# -- admin: signing keys of page and preview tokens (admin/signing_keys.py) ---------------------


def rotate_signing_key_command(args: argparse.Namespace) -> int:
    if not is_oceanbase_dsn(args.database) and not _existing_database(args.database):
        return 2
    from .admin import signing_keys

    return signing_keys.run(args)


# -- admin: export, import, backup (admin/transfer.py) -------------------------------------------


def _export_arguments(parser: argparse.ArgumentParser) -> None:
    from .admin import transfer

    _database_argument(parser)
    transfer.export_arguments(parser)


def export_command(args: argparse.Namespace) -> int:
    if not _existing_database(args.database):
        return 2
    from .admin import transfer

    return transfer.export_run(args)


def _import_arguments(parser: argparse.ArgumentParser) -> None:
    from .admin import transfer

    transfer.import_arguments(parser)
    _database_argument(parser)  # the target: a new SQLite file is created
    _embedding_arguments(parser)


def import_command(args: argparse.Namespace) -> int:
    from .admin import transfer

    return transfer.import_run(args, _open)


def _backup_arguments(parser: argparse.ArgumentParser) -> None:
    from .admin import transfer

    _database_argument(parser)
    transfer.backup_arguments(parser)


def backup_command(args: argparse.Namespace) -> int:
    from .admin import transfer

    if not is_oceanbase_dsn(args.database) and not _existing_database(args.database):
        return 2
    return transfer.backup_run(args)


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
    Command(
        "migrate-manifests",
        "offline: store revisions written before manifest pieces as pieces (resumable, "
        "idempotent; each revision's hash is checked first)",
        _database_argument,
        migrate_manifests_command,
    ),
    Command(
        "tokens",
        "bearer tokens for clients: create (shown once), list, revoke",
        _tokens_arguments,
        tokens_command,
    ),
    Command(
        "rotate-signing-key",
        "add a new key for page and preview tokens and keep only the previous one (older "
        "keys' tokens are refused); running servers take it within a minute",
        _database_argument,
        rotate_signing_key_command,
    ),
    Command(
        "export",
        "write memories (default: all) to a portable, self-verifying JSON Lines file",
        _export_arguments,
        export_command,
    ),
    Command(
        "import",
        "load an export file into --database (SQLite or OceanBase): verified, idempotent, "
        "resumable",
        _import_arguments,
        import_command,
    ),
    Command(
        "backup",
        "copy a live SQLite database consistently (online backup API) while it serves",
        _backup_arguments,
        backup_command,
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
    args.argv = list(sys.argv[1:] if argv is None else argv)  # serve --workers passes them on
    configure_logging(
        getattr(args, "log_format", "text"), worker=getattr(args, "worker_index", None)
    )
    return args.run(args)
