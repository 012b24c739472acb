"""Every HTTP request, observed: its request id, a count by route and status, an access line.

The RPCs the door forwards are also counted, logged and traced by the gRPC server's interceptor
under the same request id; this adds what only HTTP sees: refusals before any call, the static
files, and the HTTP status each answer got. Routes are a fixed set (each RPC's path, /healthz,
`static`, `other`): a caller's paths never become labels.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Container

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware
from prometheus_client import CollectorRegistry, Counter

from ..logs import request_scope
from ..transport.request_id import REQUEST_ID_KEY, new_request_id, usable_request_id

access_logger = logging.getLogger("powercontext_memory.access")

REQUEST_ID_FIELD = web.RequestKey("request_id", str)
HEALTH_PATH = "/healthz"
CLIENT_CLOSED = 499  # nginx's name for a request whose client went away first


class HttpMetrics:
    def __init__(self, registry: CollectorRegistry) -> None:
        self.requests = Counter(
            "powercontext_http_requests",
            "HTTP requests the door answered, by route (an RPC's path, /healthz, static, other) "
            "and HTTP status",
            ["route", "status"],
            registry=registry,
        )

    def observe(self, route: str, status: int) -> None:
        self.requests.labels(route, str(status)).inc()


def route_label(request: web.Request, procedures: Container[str]) -> str:
    path = request.path
    if path in procedures or path == HEALTH_PATH:
        return path
    return "static" if request.method in ("GET", "HEAD") else "other"


def request_id(request: web.Request) -> str:
    return request.get(REQUEST_ID_FIELD, "")


def observing(
    procedures: Container[str], metrics: HttpMetrics | None, access_log: bool
) -> Middleware:
    @web.middleware
    async def observed(request: web.Request, handler: Handler) -> web.StreamResponse:
        started = time.perf_counter()
        given = request.headers.get(REQUEST_ID_KEY)
        request[REQUEST_ID_FIELD] = (
            given if given and usable_request_id(given) else new_request_id()
        )
        route = route_label(request, procedures)
        status = 500
        try:
            with request_scope(request[REQUEST_ID_FIELD], route):
                response = await handler(request)
                status = response.status
                return response
        except web.HTTPException as answer:
            status = answer.status
            raise
        except asyncio.CancelledError:
            status = CLIENT_CLOSED
            raise
        finally:
            if metrics is not None:
                metrics.observe(route, status)
            if access_log:
                milliseconds = (time.perf_counter() - started) * 1000
                with request_scope(request[REQUEST_ID_FIELD], route):
                    access_logger.info(
                        "HTTP %s %s %d %.2f ms",
                        request.method,
                        route,
                        status,
                        milliseconds,
                        extra={"code": str(status), "duration_ms": round(milliseconds, 3)},
                    )

    return observed


async def add_request_id(request: web.Request, response: web.StreamResponse) -> None:
    """on_response_prepare: every answer names the request it answers."""
    found = request.get(REQUEST_ID_FIELD)
    if found:
        response.headers[REQUEST_ID_KEY] = str(found)
