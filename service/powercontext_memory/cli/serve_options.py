"""`serve`'s options: each defaults to the environment variable it names, else to ServeConfig's
default (serving/config.py), read at parse time so a test or a wrapper can set them per run."""

from __future__ import annotations

import argparse
import os

from ..arguments import positive_float, positive_int
from ..embedding.factory import AUTO
from ..http_door.address import DEFAULT_PORT, checked_listen
from ..serving.config import ServeConfig
from .command import ENV_DATABASE, choice, env_option, log_format, metrics_address, switch
from .embedding_options import embedding_arguments

DEFAULTS = ServeConfig()
ENV_LISTEN = "POWERCONTEXT_LISTEN"
ENV_HTTP_LISTEN = "POWERCONTEXT_HTTP_LISTEN"
ENV_PROGRESS_INTERVAL = "POWERCONTEXT_PROGRESS_INTERVAL"
ENV_METRICS_LISTEN = "POWERCONTEXT_METRICS_LISTEN"
ENV_LOG_FORMAT = "POWERCONTEXT_LOG_FORMAT"
ENV_OTEL = "POWERCONTEXT_OTEL"
ENV_ACCESS_LOG = "POWERCONTEXT_ACCESS_LOG"
ENV_WORKERS = "POWERCONTEXT_WORKERS"
ENV_EXTRACTOR_URL = "POWERCONTEXT_EXTRACTOR_URL"
ENV_EXTRACTOR_MODEL = "POWERCONTEXT_EXTRACTOR_MODEL"
ENV_DATABASE_TIMEOUT = "POWERCONTEXT_DATABASE_TIMEOUT"
ENV_MAX_STREAMS = "POWERCONTEXT_MAX_STREAMS"
ENV_MAX_STREAMS_PER_CALLER = "POWERCONTEXT_MAX_STREAMS_PER_CALLER"
ENV_AUTH = "POWERCONTEXT_AUTH"
ENV_INSECURE = "POWERCONTEXT_INSECURE"
ENV_REFLECTION = "POWERCONTEXT_REFLECTION"
ENV_TLS_CERT = "POWERCONTEXT_SERVER_TLS_CERT"
ENV_TLS_KEY = "POWERCONTEXT_SERVER_TLS_KEY"
ENV_TLS_CLIENT_CA = "POWERCONTEXT_SERVER_TLS_CLIENT_CA"
ENV_IDLE_EXIT = "POWERCONTEXT_IDLE_EXIT"


def serve_arguments(parser: argparse.ArgumentParser) -> None:
    # Env vars are read here, at parse time, so a test or a wrapper can set them per run.
    env_option(
        parser,
        "--listen",
        ENV_LISTEN,
        DEFAULTS.listen,
        "HOST:PORT to listen on; port 0 picks a free one",
    )
    env_option(
        parser,
        "--http-listen",
        ENV_HTTP_LISTEN,
        DEFAULTS.http_listen,
        "the HTTP door (curl and browsers: every RPC as JSON, and the web console): HOST:PORT "
        f"(port 0 picks a free one), off, or auto = 127.0.0.1:{DEFAULT_PORT} (127.0.0.1:0 when "
        "--listen's port is 0; skipped with a warning when taken)",
        type=http_listen,
        metavar="HOST:PORT|auto|off",
    )
    env_option(
        parser,
        "--database",
        ENV_DATABASE,
        DEFAULTS.database,
        "SQLite database file, created if missing, or an OceanBase DSN "
        "oceanbase://USER@HOST:PORT/DATABASE (password in POWERCONTEXT_OCEANBASE_PASSWORD)",
    )
    env_option(
        parser,
        "--progress-interval",
        ENV_PROGRESS_INTERVAL,
        DEFAULTS.progress_interval,
        "idle time before a follow stream gets a ChangesProgress",
        type=positive_float,
        metavar="SECONDS",
    )
    env_option(
        parser,
        "--workers",
        ENV_WORKERS,
        DEFAULTS.workers,
        "server processes sharing the port (SO_REUSEPORT), each with its own connections, "
        "caches and model; --metrics-listen PORT: worker i serves metrics on PORT+i",
        type=positive_int,
        metavar="N",
    )
    # Set by the supervisor of --workers N on each worker it starts (serving/workers.py).
    parser.add_argument("--worker-index", type=int, default=None, help=argparse.SUPPRESS)
    embedding_arguments(parser, default=AUTO)
    extractor_arguments(parser)
    observability_arguments(parser)
    security_arguments(parser)
    limits_arguments(parser)
    lifetime_arguments(parser)


def http_listen(text: str) -> str:
    try:
        return checked_listen(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def extractor_arguments(parser: argparse.ArgumentParser) -> None:
    from ..candidates.model import API_KEY_ENV

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


def limits_arguments(parser: argparse.ArgumentParser) -> None:
    env_option(
        parser,
        "--database-timeout",
        ENV_DATABASE_TIMEOUT,
        DEFAULTS.database_timeout,
        "bound on each database call, lock and connection wait: past it the call fails "
        "with UNAVAILABLE (DATABASE_TIMEOUT) and its connection is discarded",
        type=positive_float,
        metavar="SECONDS",
    )
    env_option(
        parser,
        "--max-streams",
        ENV_MAX_STREAMS,
        DEFAULTS.max_streams,
        "open Changes streams the server accepts in all; more get RESOURCE_EXHAUSTED "
        "(TOO_MANY_STREAMS)",
        type=positive_int,
        metavar="N",
    )
    env_option(
        parser,
        "--max-streams-per-caller",
        ENV_MAX_STREAMS_PER_CALLER,
        DEFAULTS.max_streams_per_caller,
        "open Changes streams per token (without auth: for all callers together)",
        type=positive_int,
        metavar="N",
    )


def security_arguments(parser: argparse.ArgumentParser) -> None:
    from ..security.exposure import AuthMode

    modes = [m.value for m in AuthMode]
    parser.add_argument(
        "--auth",
        type=choice(modes),
        default=os.environ.get(ENV_AUTH, "auto"),
        metavar="{" + ",".join(modes) + "}",
        help="bearer tokens: auto = tokens when the database holds an active token, none on a "
        "loopback address otherwise (elsewhere the server refuses to start without "
        f"--insecure); tokens = always; none = never (env {ENV_AUTH}, default auto)",
    )
    switch(
        parser,
        "--insecure",
        ENV_INSECURE,
        "allow serving without tokens on an address other machines can reach",
    )
    reflection_modes = ["token", "open", "off"]
    parser.add_argument(
        "--reflection",
        type=choice(reflection_modes),
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


def observability_arguments(parser: argparse.ArgumentParser) -> None:
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
    switch(
        parser,
        "--access-log",
        ENV_ACCESS_LOG,
        "log one INFO line per call: method, status code, duration, request id",
    )
    switch(
        parser,
        "--otel",
        ENV_OTEL,
        "trace every RPC with OpenTelemetry (needs the otel extra); exporter, service name and "
        "sampler from the standard OTEL_* variables",
    )


def lifetime_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--idle-exit",
        type=positive_float,
        default=os.environ.get(ENV_IDLE_EXIT) or None,
        metavar="SECONDS",
        help=f"stop after this long with no call in flight (default: never; env {ENV_IDLE_EXIT})",
    )
    parser.add_argument(
        "--address-file",
        default=None,
        metavar="PATH",
        help="write HOST:PORT there once listening, remove it on exit",
    )
