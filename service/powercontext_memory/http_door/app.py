"""The door's aiohttp application: its routes and the layers every request passes.

Routes: one per procedure of the service descriptors (POST only), `GET /healthz` (200 while
the gRPC server reports SERVING, else 503), the console's static files for any other GET or
HEAD, and a Connect `unimplemented` 404 for a POST to anything else. Layers, outermost first:
observation (request id, metrics, access line), then the security checks (security.py); every
response then gets the security headers and its `x-request-id` as it is prepared.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import grpc
from aiohttp import web
from aiohttp.typedefs import Handler

from . import static
from .calls import Calls, error_response
from .codec import ENVELOPE_HEADER_BYTES, json_bytes
from .connect_errors import ConnectError
from .forward import Upstream
from .observe import HEALTH_PATH, HttpMetrics, add_request_id, observing
from .routes import procedures
from .security import Guard, add_security_headers, guarding


@dataclass(frozen=True, slots=True)
class DoorSettings:
    guard: Guard
    max_message_bytes: int
    metrics: HttpMetrics | None = None
    access_log: bool = False
    static_root: Path | None = None  # None: the package's console/static/


def build_app(upstream: Upstream, settings: DoorSettings) -> web.Application:
    served = procedures()
    app = web.Application(
        middlewares=[
            observing(served, settings.metrics, settings.access_log),
            guarding(settings.guard, error_response),
        ],
        # A streaming request is one envelope around a message of at most the gRPC limit.
        client_max_size=settings.max_message_bytes + ENVELOPE_HEADER_BYTES,
    )
    calls = Calls(upstream, settings.max_message_bytes)
    for path, procedure in served.items():
        app.router.add_route("*", path, calls.handler(procedure))
    app.router.add_get(HEALTH_PATH, _health(upstream))
    app.router.add_post("/{path:.*}", _no_such_procedure)
    app.router.add_get(
        "/{path:.*}", static.static_handler(settings.static_root or static.STATIC_ROOT)
    )
    app.on_response_prepare.append(add_security_headers)
    app.on_response_prepare.append(add_request_id)
    return app


def _health(upstream: Upstream) -> Handler:
    async def health(request: web.Request) -> web.StreamResponse:
        status = await upstream.serving()
        return web.Response(
            status=200 if status == "SERVING" else 503,
            body=json_bytes({"status": status}),
            content_type="application/json",
        )

    return health


async def _no_such_procedure(request: web.Request) -> web.StreamResponse:
    return error_response(
        ConnectError(
            grpc.StatusCode.UNIMPLEMENTED,
            f"{request.path} is not a procedure of this server",
            http_status=404,
        )
    )
