"""The grpc.aio server: MemoryService, health, reflection, observability, graceful shutdown,
and, when asked, bearer tokens (auth.py), TLS (tls.py) and the HTTP door (http_door/)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2_grpc

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc

from ..http_door.address import DoorAddress
from ..http_door.door import BoundDoor, HttpDoor
from ..memory import MemoryService
from ..security.token_cache import DEFAULT_TTL_SECONDS, TokenCache
from .auth import Authenticator, AuthInterceptor
from .interceptor import CallActivity, CallTracer, ObservingInterceptor
from .metrics import PrometheusMetrics
from .metrics_endpoint import MetricsEndpoint
from .reflection import CommentedReflection
from .servicer import MemoryServicer
from .tls import ServerTls

logger = logging.getLogger(__name__)

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["MemoryService"].full_name
MAX_MESSAGE_BYTES = 32 * 1024 * 1024
DEFAULT_GRACE_SECONDS = 5.0
# Reflection: "token" needs a token whenever the server checks tokens (open otherwise), "open"
# never does, "off" does not serve it.
REFLECTION_MODES = ("token", "open", "off")

SERVER_OPTIONS: tuple[tuple[str, int], ...] = (
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
    # Follow streams can stay idle for long: ping to detect dead peers, and let clients ping too.
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
    # Without this, a second server on the same port binds silently and splits the traffic.
    ("grpc.so_reuseport", 0),
)
# `serve --workers N` (serving/workers.py): each worker joins the port its supervisor holds.
SHARED_PORT_OPTION = ("grpc.so_reuseport", 1)


@dataclass
class RunningServer:
    """A started server; `stop` is the graceful shutdown and may be called more than once."""

    server: grpc.aio.Server
    port: int
    memory_service: MemoryService
    health: health.aio.HealthServicer
    metrics: PrometheusMetrics | None = None
    metrics_endpoint: MetricsEndpoint | None = None
    tracer: CallTracer | None = None
    door: HttpDoor | None = None
    _stopped: bool = field(default=False, init=False)

    async def stop(self, grace: float | None = DEFAULT_GRACE_SECONDS) -> None:
        if self._stopped:
            return
        self._stopped = True
        if self.door is not None:  # no new HTTP connection; those open finish with gRPC's calls
            await self.door.stop_accepting()
        try:
            await shutdown(self.server, self.memory_service, self.health, grace)
        finally:
            if self.door is not None:
                await self.door.close()
            if self.metrics_endpoint is not None:
                await self.metrics_endpoint.stop()
            if self.tracer is not None:
                self.tracer.close()

    @property
    def http_url(self) -> str | None:
        """Where the HTTP door serves (http(s)://HOST:PORT/), None without one."""
        return self.door.url if self.door is not None else None

    async def wait_for_termination(self) -> None:
        await self.server.wait_for_termination()


def build_server(
    memory_service: MemoryService,
    interceptor: ObservingInterceptor | None = None,
    *,
    auth: AuthInterceptor | None = None,
    reflection_mode: str = "token",
    shared_port: bool = False,
) -> tuple[grpc.aio.Server, health.aio.HealthServicer]:
    """`auth` runs inside the observing interceptor: refusals are logged and counted too;
    `shared_port`: bind with SO_REUSEPORT, as one of several worker processes."""
    if reflection_mode not in REFLECTION_MODES:
        raise ValueError(f"reflection must be one of {', '.join(REFLECTION_MODES)}")
    interceptors: list[grpc.aio.ServerInterceptor] = [interceptor or ObservingInterceptor()]
    if auth is not None:
        interceptors.append(auth)
    options = list(SERVER_OPTIONS)
    if shared_port:  # replaced, not appended: one value per option
        options = [o for o in options if o[0] != SHARED_PORT_OPTION[0]] + [SHARED_PORT_OPTION]
    server = grpc.aio.server(interceptors=interceptors, options=options)
    pb_grpc.add_MemoryServiceServicer_to_server(MemoryServicer(memory_service), server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    if reflection_mode != "off":
        names = (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME)
        reflection_pb2_grpc.add_ServerReflectionServicer_to_server(
            CommentedReflection(names), server
        )
    return server, health_servicer


def token_auth(
    memory_service: MemoryService,
    *,
    reflection_mode: str = "token",
    cache_seconds: float = DEFAULT_TTL_SECONDS,
) -> AuthInterceptor:
    """Tokens checked against the service's database, each record cached `cache_seconds`."""
    cache = TokenCache(memory_service.backend.access_token, ttl=cache_seconds)
    return AuthInterceptor(Authenticator(cache), open_reflection=reflection_mode == "open")


async def start_server(
    memory_service: MemoryService,
    address: str,
    *,
    metrics_listen: str | None = None,
    tracer: CallTracer | None = None,
    access_log: bool = False,
    auth: bool = False,
    reflection_mode: str = "token",
    tls: ServerTls | None = None,
    token_cache_seconds: float = DEFAULT_TTL_SECONDS,
    shared_port: bool = False,
    activity: CallActivity | None = None,
    http: DoorAddress | None = None,
) -> RunningServer:
    """Bind `address` (port 0 picks a free port), start serving, report SERVING.

    With `metrics_listen` (HOST:PORT, port 0 picks one) the server's Prometheus metrics are
    served there until it stops; `tracer` gets a span per call and is closed on stop;
    `access_log` logs one line per call. With `auth`, every call but health needs a token of
    the database (reflection per `reflection_mode`); with `tls`, the port speaks only TLS.
    With `shared_port`, other worker processes serve the same port (SO_REUSEPORT);
    `activity` is told when each call begins and ends (idle.py). With `http`, the HTTP door
    serves there too (http_door/), forwarding to a private Unix-socket listener of this server.
    """
    credentials = tls.credentials() if tls is not None else None  # bad files: before binding
    metrics = endpoint = None
    if metrics_listen is not None:  # first: a gRPC port once bound stays taken until exit
        metrics = PrometheusMetrics()
        endpoint = MetricsEndpoint.start(metrics.registry, metrics_listen)
        memory_service.observe(metrics)
        logger.info("metrics on %s", endpoint.url)
    bound = None
    try:
        if http is not None:  # before the gRPC port too, for the same reason
            bound = BoundDoor.bind(http, shared_port=shared_port)
        server, health_servicer = build_server(
            memory_service,
            ObservingInterceptor(metrics, tracer, access_log=access_log, activity=activity),
            auth=(
                token_auth(
                    memory_service,
                    reflection_mode=reflection_mode,
                    cache_seconds=token_cache_seconds,
                )
                if auth
                else None
            ),
            reflection_mode=reflection_mode,
            shared_port=shared_port,
        )
        port = _bind(server, address, credentials)
        if bound is not None:
            _bind(server, bound.grpc_target)
        await server.start()
        try:
            door = None
            if bound is not None:
                door = await bound.open(
                    tokens=auth,
                    max_message_bytes=MAX_MESSAGE_BYTES,
                    tls=tls,
                    access_log=access_log,
                    registry=metrics.registry if metrics is not None else None,
                )
        except BaseException:
            await server.stop(None)
            raise
    except BaseException:
        if bound is not None:
            bound.discard()
        if endpoint is not None:
            await endpoint.stop()
        raise
    for name in (health.OVERALL_HEALTH, SERVICE_NAME):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    logger.info("serving %s on port %d", SERVICE_NAME, port)
    return RunningServer(
        server, port, memory_service, health_servicer, metrics, endpoint, tracer, door
    )


def _bind(
    server: grpc.aio.Server, address: str, credentials: grpc.ServerCredentials | None = None
) -> int:
    try:
        if credentials is None:
            port = server.add_insecure_port(address)
        else:
            port = server.add_secure_port(address, credentials)
    except RuntimeError as error:  # grpc raises RuntimeError when the address is unusable
        raise OSError(f"cannot listen on {address}: {error}") from error
    if port == 0:
        raise OSError(f"cannot listen on {address}")
    return port


async def shutdown(
    server: grpc.aio.Server,
    memory_service: MemoryService,
    health_servicer: health.aio.HealthServicer,
    grace: float | None = DEFAULT_GRACE_SECONDS,
) -> None:
    """Stop taking traffic, end follow streams (UNAVAILABLE), drain, then close storage."""
    await health_servicer.enter_graceful_shutdown()
    # Before server.stop: followers must wake, send SHUTTING_DOWN and finish within the grace.
    memory_service.notifier.close()
    try:
        await server.stop(grace)
    finally:
        await memory_service.close()
    logger.info("stopped %s", SERVICE_NAME)
