"""Request ids: the caller's `x-request-id` when it is usable, else a fresh one.

The id is echoed in the response metadata (trailing for unary calls, initial for streams) and
tags every log line of the request, so a caller's id must be safe to log: 1-128 visible ASCII
characters (no spaces or control characters). Anything else is replaced, never rejected: a
bad id must not fail the call.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import Any

REQUEST_ID_KEY = "x-request-id"
MAX_REQUEST_ID_CHARS = 128
_USABLE = re.compile(rf"[\x21-\x7e]{{1,{MAX_REQUEST_ID_CHARS}}}")


def new_request_id() -> str:
    return os.urandom(16).hex()  # 128 random bits, as uuid4().hex without building a UUID


def usable_request_id(value: Any) -> bool:
    return isinstance(value, str) and _USABLE.fullmatch(value) is not None


def request_id_from(metadata: Iterable[tuple[str, Any]] | None) -> str:
    """The first `x-request-id` in the invocation metadata if usable, else a new id."""
    for key, value in metadata or ():
        if key == REQUEST_ID_KEY:
            return value if usable_request_id(value) else new_request_id()
    return new_request_id()
