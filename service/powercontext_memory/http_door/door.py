"""The door's life next to the gRPC server (transport/server.py start_server and RunningServer).

1. `BoundDoor.bind`, before the gRPC port: the HTTP socket (so a taken port fails the start
   before gRPC holds its own) and a private directory (0700) for the gRPC server's second,
   Unix-socket listener, which only this process's user can reach.
2. `open`, once gRPC serves: the aiohttp application on that socket, in the same event loop,
   forwarding over a grpc.aio channel to the Unix socket.
3. `stop_accepting` before the gRPC server's graceful shutdown, `close` after it: calls in
   flight finish (follow streams end with the server's UNAVAILABLE), then the connections, the
   channel and the directory go.
"""

from __future__ import annotations

import logging
import shutil
import socket
import ssl
import tempfile
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web
from prometheus_client import CollectorRegistry

from ..transport.tls import ServerTls
from .address import DoorAddress, listening_socket, shown_host, split_address
from .app import DoorSettings, build_app
from .forward import Upstream
from .observe import HttpMetrics
from .security import Guard

logger = logging.getLogger(__name__)

SOCKET_NAME = "grpc.sock"
# How long connections still busy after the gRPC server stopped get before they are closed.
CLOSE_SECONDS = 2.0


@dataclass(frozen=True, slots=True)
class PrivateSocket:
    directory: Path  # mode 0700 (mkdtemp)

    @classmethod
    def create(cls) -> PrivateSocket:
        return cls(Path(tempfile.mkdtemp(prefix="powercontext-grpc-")))

    @property
    def target(self) -> str:
        """What grpc binds and dials: unix:/…/grpc.sock."""
        return f"unix:{self.directory / SOCKET_NAME}"

    def remove(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)


@dataclass
class HttpDoor:
    runner: web.AppRunner
    site: web.SockSite
    upstream: Upstream
    private: PrivateSocket
    port: int
    url: str  # http(s)://HOST:PORT/

    async def stop_accepting(self) -> None:
        if self.site in self.runner.sites:
            await self.site.stop()

    async def close(self) -> None:
        try:
            await self.runner.cleanup()
            await self.upstream.close()
        finally:
            self.private.remove()


@dataclass
class BoundDoor:
    address: DoorAddress
    sock: socket.socket
    private: PrivateSocket

    @classmethod
    def bind(cls, address: DoorAddress, *, shared_port: bool = False) -> BoundDoor | None:
        """The bound door; None when an optional address (`auto`) is taken (logged)."""
        try:
            sock = listening_socket(address.address, shared_port=shared_port)
        except OSError as error:
            if not address.optional:
                raise
            logger.warning(
                "no HTTP door: %s (--http-listen auto); give --http-listen HOST:PORT, or off",
                error,
            )
            return None
        return cls(address, sock, PrivateSocket.create())

    @property
    def grpc_target(self) -> str:
        return self.private.target

    async def open(
        self,
        *,
        tokens: bool,
        max_message_bytes: int,
        tls: ServerTls | None = None,
        access_log: bool = False,
        registry: CollectorRegistry | None = None,
    ) -> HttpDoor:
        host, _ = split_address(self.address.address)
        settings = DoorSettings(
            Guard(tokens, host),
            max_message_bytes,
            HttpMetrics(registry) if registry is not None else None,
            access_log,
        )
        upstream = Upstream(self.private.target, max_message_bytes)
        runner = web.AppRunner(
            build_app(upstream, settings),
            handler_cancellation=True,  # a caller that goes away ends its call (and stream)
            access_log=None,  # observe.py logs each request, in the server's own format
            shutdown_timeout=CLOSE_SECONDS,
        )
        try:
            await runner.setup()
            site = web.SockSite(runner, self.sock, ssl_context=_ssl_context(tls))
            await site.start()
        except BaseException:
            await runner.cleanup()
            await upstream.close()
            raise
        port = int(self.sock.getsockname()[1])
        scheme = "https" if tls is not None else "http"
        url = f"{scheme}://{shown_host(self.address.address)}:{port}/"
        logger.info("HTTP door on %s", url)
        return HttpDoor(runner, site, upstream, self.private, port, url)

    def discard(self) -> None:
        """Never opened (the gRPC server failed to start): let the port and directory go."""
        self.sock.close()
        self.private.remove()


def _ssl_context(tls: ServerTls | None) -> ssl.SSLContext | None:
    """The gRPC port's TLS for the door too (mutual TLS: the same client CA is required)."""
    if tls is None:
        return None
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tls.cert_file, tls.key_file)
    if tls.client_ca_file is not None:
        context.load_verify_locations(cafile=tls.client_ca_file)
        context.verify_mode = ssl.CERT_REQUIRED
    return context
