"""The one line a server prints on stdout once it listens: whoever starts it in a process (the
tests, the bench, an operator's script) reads its address from that line, and the HTTP door's
from its `http: URL` field (after the backend and vectors, when the door serves)."""

from __future__ import annotations

import re

from ..transport.server import SERVICE_NAME

SERVING_LINE = re.compile(r"^serving (\S+) on (\S+):(\d+) ")
HTTP_FIELD = re.compile(r"; http: (https?)://(\S+):(\d+)/[;)]")


def serving_line(address: str, details: str) -> str:
    return f"serving {SERVICE_NAME} on {address} ({details})"


def serving_port(line: str) -> int | None:
    """The port a startup line names, or None when `line` is not one."""
    match = SERVING_LINE.match(line)
    return int(match[3]) if match and match[1] == SERVICE_NAME else None


def http_field(url: str) -> str:
    """The details' field naming the HTTP door (url: http(s)://HOST:PORT/)."""
    return f"http: {url}"


def serving_http_port(line: str) -> int | None:
    """The HTTP door's port a startup line names, or None (not a startup line, or no door)."""
    if serving_port(line) is None:
        return None
    match = HTTP_FIELD.search(line)
    return int(match[3]) if match else None
