"""When the server checks tokens: the safe default, decided once at start.

`--auth` (env POWERCONTEXT_AUTH):

* `auto` (default): tokens when the database holds an active token; with none, open on a
  loopback address (127.0.0.0/8, ::1, localhost: only this machine can connect — the
  behaviour before tokens existed), and on any other address the server refuses to start
  unless `--insecure` says that serving every memory to anyone who can reach the port is
  intended (a trusted network, or an authenticating proxy in front).
* `tokens`: always check tokens, even while the database holds none (every call is then
  refused until `powercontext-memory tokens create` makes one; the server need not restart).
* `none`: never check tokens; off loopback this too needs `--insecure`.
"""

from __future__ import annotations

import enum
import ipaddress
from dataclasses import dataclass


class AuthMode(enum.Enum):
    AUTO = "auto"
    TOKENS = "tokens"
    NONE = "none"


class ExposureRefused(ValueError):
    """The server would serve every memory without authentication off loopback."""


@dataclass(frozen=True, slots=True)
class AuthDecision:
    tokens: bool  # check bearer tokens on every call
    why: str  # for the start-up log line


def listen_host(address: str) -> str:
    """The host of HOST:PORT ("" for ":PORT", which listens on every interface)."""
    host, _, _ = address.rpartition(":")
    return host.strip("[]")


def is_loopback(address: str) -> bool:
    """True only for addresses no other machine can reach: 127.0.0.0/8, ::1, localhost."""
    host = listen_host(address)
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # "" (every interface) or a host name, which may resolve anywhere
        return False


def decide(mode: AuthMode, address: str, active_tokens: int, *, insecure: bool) -> AuthDecision:
    """Whether to check tokens; ExposureRefused when the server must not start."""
    loopback = is_loopback(address)
    if mode is AuthMode.TOKENS:
        return AuthDecision(True, "--auth tokens")
    if mode is AuthMode.AUTO and active_tokens:
        return AuthDecision(True, f"{active_tokens} active token(s) in the database")
    if loopback:
        why = "--auth none" if mode is AuthMode.NONE else "loopback address, no active token"
        return AuthDecision(False, why)
    if insecure:
        return AuthDecision(False, f"--insecure on {address}")
    reason = (
        "--auth none was given" if mode is AuthMode.NONE else "the database holds no active token"
    )
    raise ExposureRefused(
        f"refusing to serve on {address} without authentication ({reason}): anyone who can "
        "reach this port could read and write every memory. Create a token first "
        "(powercontext-memory tokens create --name NAME --scope write --database ...), "
        "or listen on 127.0.0.1, or pass --insecure if a trusted network or an "
        "authenticating proxy protects the port"
    )
