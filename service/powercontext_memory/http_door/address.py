"""Where the door listens: `serve --http-listen HOST:PORT | auto | off`, and its listening socket.

`auto` (the default) is 127.0.0.1:50080 next to gRPC's 50051 (127.0.0.1:0 when `--listen` picks
its own port, so servers started on port 0 never contend for one fixed port); when 50080 is
taken the server serves gRPC alone and says so. An address given explicitly must be free.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from typing import Any

AUTO = "auto"
OFF = "off"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 50080  # not gRPC's 50051, not the metrics examples' 9464


@dataclass(frozen=True, slots=True)
class DoorAddress:
    address: str  # HOST:PORT; port 0 picks a free one
    optional: bool = False  # `auto`: a taken port means no door, not a failed start


def split_address(address: str) -> tuple[str, int]:
    """ "127.0.0.1:50080", "[::1]:50080", ":50080" (every interface) -> (host, port)."""
    host, colon, port_text = address.rpartition(":")
    if not colon or not port_text.isdigit() or int(port_text) > 65535:
        raise ValueError(f"the HTTP address must be HOST:PORT, auto or off, got {address!r}")
    return host.removeprefix("[").removesuffix("]"), int(port_text)


def checked_listen(text: str) -> str:
    """The option's value if it is auto, off or HOST:PORT (ValueError otherwise)."""
    if text not in (AUTO, OFF):
        split_address(text)
    return text


def door_address(http_listen: str, grpc_listen: str) -> DoorAddress | None:
    """What `--http-listen` asks for next to `--listen`; None when the door is off."""
    if http_listen == OFF:
        return None
    if http_listen != AUTO:
        split_address(http_listen)
        return DoorAddress(http_listen)
    _, grpc_port = split_address(grpc_listen)
    port = 0 if grpc_port == 0 else DEFAULT_PORT
    return DoorAddress(f"{DEFAULT_HOST}:{port}", optional=True)


def listening_socket(address: str, *, shared_port: bool = False) -> socket.socket:
    """A socket bound to `address` and listening (OSError naming the address when it cannot).

    Bound the way the gRPC port and `serve --workers` bind theirs: "" or "::" means every
    interface, IPv4 and IPv6; `shared_port` sets SO_REUSEPORT, to join the port the
    supervisor of `--workers N` holds.
    """
    host, port = split_address(address)
    everywhere = host in ("", "::")
    target: tuple[Any, ...]
    if everywhere:
        family, target = socket.AF_INET6, ("::", port)
    else:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        family, target = found[0][0], found[0][4][:2]
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        if everywhere:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if shared_port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(target)
        sock.listen(128)
        sock.setblocking(False)
    except OSError as error:
        sock.close()
        raise OSError(f"cannot listen on {address}: {error.strerror or error}") from error
    return sock


def shown_host(address: str) -> str:
    """The host part as a URL shows it ("[::1]", "[::]" for every interface)."""
    host, _ = split_address(address)
    if host in ("", "::"):
        return "[::]"
    return f"[{host}]" if ":" in host else host
