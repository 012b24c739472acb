"""The metrics endpoint: one registry in the Prometheus text format over HTTP, on its own port.

prometheus_client's WSGI server runs in a daemon thread; scrapes read the registry under its
locks, never blocking the event loop. `stop` closes the socket, so the port is free again
once the gRPC server has stopped.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, start_http_server

ALL_INTERFACES = "0.0.0.0"


def split_host_port(address: str) -> tuple[str, int]:
    """ "127.0.0.1:9464", "[::1]:9464", ":9464" (every interface) -> (host, port)."""
    host, colon, port_text = address.rpartition(":")
    if not colon or not port_text.isdigit() or int(port_text) > 65535:
        raise ValueError(f"metrics address must be HOST:PORT, got {address!r}")
    host = host.removeprefix("[").removesuffix("]")
    return host or ALL_INTERFACES, int(port_text)


@dataclass
class MetricsEndpoint:
    server: WSGIServer
    thread: threading.Thread

    @classmethod
    def start(cls, registry: CollectorRegistry, address: str) -> MetricsEndpoint:
        """Serve `registry` on `address` (port 0 picks a free port; see `port`)."""
        host, port = split_host_port(address)
        try:
            server, thread = start_http_server(port, addr=host, registry=registry)
        except OSError as error:
            raise OSError(f"cannot serve metrics on {address}: {error}") from error
        return cls(server, thread)

    @property
    def port(self) -> int:
        return int(self.server.server_port)

    @property
    def url(self) -> str:
        host = str(self.server.server_address[0])
        return f"http://{f'[{host}]' if ':' in host else host}:{self.port}/metrics"

    async def stop(self) -> None:
        # shutdown() waits for the serving loop's next poll (up to 0.5 s): not on the loop.
        await asyncio.to_thread(self.server.shutdown)
        self.server.server_close()
        self.thread.join()
