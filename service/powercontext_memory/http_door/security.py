"""What keeps a browser's other tabs out: the checks every request passes before it reaches a
handler, and the headers every response carries.

* No token in a URL: a query parameter `token`, `access_token` or `authorization` is refused
  (URLs end up in logs, history and Referer headers); tokens go in `Authorization: Bearer`.
* DNS rebinding: without tokens, the Host must be an IP address, `localhost` (or a name under
  `.localhost`) or the listen host itself. A rebinding page reaches the door under a name its
  attacker controls, so the browser sends that name; IP literals cannot be rebound.
* Cross-site requests: a request whose `Origin` is present must come from the door's own origin
  (the Host it was sent to). No CORS header is ever sent, so other origins cannot read answers
  either; and the door takes only Connect media types (handlers check them), never the
  text/plain or form bodies a page may send anywhere without asking.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

from ..domain.errors import InvalidArgumentError, PermissionDeniedError
from .connect_errors import ConnectError, from_domain

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}
TOKEN_PARAMETERS = frozenset({"token", "access_token", "authorization"})
DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True, slots=True)
class Guard:
    tokens: bool  # the server checks bearer tokens (then any Host name may reach it)
    listen_host: str  # the host part of the door's address

    def refusal(self, request: web.Request) -> ConnectError | None:
        """Why this request must not reach a handler, or None."""
        if any(key.lower() in TOKEN_PARAMETERS for key in request.query):
            return from_domain(
                InvalidArgumentError(
                    "url",
                    "never put a token in a URL: send the header 'Authorization: Bearer <token>'",
                    reason="TOKEN_IN_URL",
                )
            )
        host = request.headers.get("Host", "")
        if not self.tokens and not host_allowed(host, self.listen_host):
            return from_domain(
                PermissionDeniedError(
                    f"this server answers only its own addresses, not the Host {host!r}: use "
                    "an IP address or localhost, or give it tokens",
                    reason="HOST_NOT_ALLOWED",
                )
            )
        origin = request.headers.get("Origin")
        if origin is not None and not same_origin(origin, host):
            return from_domain(
                PermissionDeniedError(
                    f"requests from the origin {origin!r} are refused: only pages this server "
                    "serves may call it",
                    reason="CROSS_ORIGIN",
                )
            )
        return None


def split_host(host: str, default_port: int) -> tuple[str, int] | None:
    """ "Example.com:80" -> ("example.com", 80); "[::1]" -> ("::1", default); None if unusable."""
    if host.startswith("["):
        name, bracket, rest = host[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            return None
        port_text = rest[1:]
    else:
        name, colon, port_text = host.rpartition(":")
        if not colon:
            name, port_text = host, ""
    if port_text and not port_text.isdigit():
        return None
    name = name.lower().rstrip(".")
    return (name, int(port_text) if port_text else default_port) if name else None


def host_allowed(host: str, listen_host: str) -> bool:
    found = split_host(host, 0)
    if found is None:
        return False
    name = found[0]
    if name == "localhost" or name.endswith(".localhost") or name == listen_host.lower():
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def same_origin(origin: str, host: str) -> bool:
    """Whether `origin` is the origin a page loaded from this Host has. The scheme is not
    compared: behind a proxy that terminates TLS, pages are https and the door plain http."""
    try:
        url = urlsplit(origin)
        origin_port = url.port
    except ValueError:
        return False
    if url.scheme not in DEFAULT_PORTS or not url.hostname:
        return False
    default = DEFAULT_PORTS[url.scheme]
    requested = split_host(host, default)
    return requested is not None and requested == (url.hostname.lower(), origin_port or default)


def guarding(guard: Guard, answer: Callable[[ConnectError], web.Response]) -> Middleware:
    @web.middleware
    async def guarded(request: web.Request, handler: Handler) -> web.StreamResponse:
        refusal = guard.refusal(request)
        if refusal is not None:
            return answer(refusal)
        return await handler(request)

    return guarded


async def add_security_headers(request: web.Request, response: web.StreamResponse) -> None:
    """on_response_prepare: every answer, API, files and errors alike."""
    response.headers.update(SECURITY_HEADERS)
