"""The one line a server prints on stdout once it listens: whoever starts it in a process (the
tests, the bench, an operator's script) reads its address from that line."""

from __future__ import annotations

import re

from ..transport.server import SERVICE_NAME

SERVING_LINE = re.compile(r"^serving (\S+) on (\S+):(\d+) ")


def serving_line(address: str, details: str) -> str:
    return f"serving {SERVICE_NAME} on {address} ({details})"


def serving_port(line: str) -> int | None:
    """The port a startup line names, or None when `line` is not one."""
    match = SERVING_LINE.match(line)
    return int(match[3]) if match and match[1] == SERVICE_NAME else None
