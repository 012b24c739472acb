"""`serve` in this process: open the service, start the server, print the startup line, run
until a signal (or --idle-exit), stop. The command line imports it only to serve (grpc)."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
import threading
from typing import TYPE_CHECKING, Any

from ..http_door.address import door_address
from ..streams import StreamLimits
from ..transport.idle import IdleWatch
from ..transport.server import start_server
from ..transport.tls import ServerTls
from .address_file import remove_address, write_address
from .auth_decision import auth_decision
from .config import ServeConfig
from .follow_wakeups import connect_followers
from .model import open_configured
from .startup import http_field, serving_line

if TYPE_CHECKING:
    from ..candidates.model import ModelExtractor
    from ..transport.interceptor import CallTracer

logger = logging.getLogger("powercontext_memory.serve")


async def serve_until_stopped(config: ServeConfig) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    worker = config.worker_index
    if worker is not None:
        # Ctrl-C reaches the whole process group: the supervisor alone decides, and sends
        # SIGTERM to every worker (a worker ending first would look like a crash to it).
        loop.add_signal_handler(signal.SIGINT, lambda: None)
        _stop_when_supervisor_goes(loop, stop)

    tracer = _tracer(config)
    tls = ServerTls.from_options(config.tls_cert, config.tls_key, config.tls_client_ca)
    idle = IdleWatch() if config.idle_exit else None
    http = door_address(config.http_listen, config.listen)

    service = await open_configured(
        config,
        progress_interval=config.progress_interval,
        database_timeout=config.database_timeout,
        stream_limits=StreamLimits(config.max_streams, config.max_streams_per_caller),
        extractor=_extractor(config),
    )
    signals = None
    try:
        # Before serving: whoever reads the startup line may commit through another process.
        signals = connect_followers(config.database, service.notifier)
        auth, report_auth = await auth_decision(
            config, service, http.address if http is not None else None
        )
        running = await start_server(
            service,
            config.listen,
            metrics_listen=_worker_metrics(config.metrics_listen, worker or 0),
            tracer=tracer,
            access_log=config.access_log,
            auth=auth,
            reflection_mode=config.reflection,
            tls=tls,
            shared_port=worker is not None,
            activity=idle,
            http=http,
        )
    except BaseException:
        if signals is not None:
            signals.close()
        await service.close()
        raise
    address = f"{_listen_host(config.listen)}:{running.port}"
    if config.address_file:  # before the startup line: whoever reads that line finds the file
        write_address(config.address_file, address)
    caps = service.capabilities()
    vectors = "vectors: " + (
        caps.embedding_profile.profile_id
        if caps.vector and caps.embedding_profile
        else f"off ({caps.vector_unavailable_reason})"
    )
    location = service.backend.capabilities().location
    details = f"{caps.backend}: {location}; {vectors}"
    if running.http_url is not None:
        details += f"; {http_field(running.http_url)}"
    print(serving_line(address, details), flush=True)
    if not worker:  # with --workers N, worker 0 says it for all
        report_auth()
    try:
        await _until(stop, idle, config.idle_exit)
    finally:
        await running.stop()
        if signals is not None:
            signals.close()
        if config.address_file:
            remove_address(config.address_file, address)
    return 0


def _extractor(config: ServeConfig) -> ModelExtractor | None:
    """The model extractor the flags configure, or None (the deterministic adapters only)."""
    if not config.extractor_url and not config.extractor_model:
        return None
    from ..candidates.model import API_KEY_ENV, ModelExtractor

    if not config.extractor_url:
        raise ValueError("--extractor-model needs --extractor-url")
    return ModelExtractor(
        config.extractor_url, config.extractor_model or "", os.environ.get(API_KEY_ENV)
    )


def _tracer(config: ServeConfig) -> CallTracer | None:
    if not config.otel:
        return None
    try:
        from ..transport.tracing import OtelTracer, tracer_provider_from_env
    except ImportError as error:
        raise RuntimeError(
            f"--otel needs the otel extra: pip install 'powercontext-memory[otel]' ({error})"
        ) from error
    return OtelTracer(tracer_provider_from_env())


def _listen_host(address: str) -> str:
    host, _, _ = address.rpartition(":")
    return host or "[::]"  # ":PORT" makes grpc listen on every interface


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
