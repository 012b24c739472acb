"""Memory held by the per-process search indexes: freed heap given back to the operating
system after a large one-off build, and one copy of the ids both indexes keep per entry.

A first load of a memory's text or vector index allocates and frees hundreds of thousands of
small objects (the rows read, per-document counters); glibc keeps the freed space in its arenas,
so the server's RSS stayed ~230 MB above what it held after indexing a 100,000-entry memory
(measured: 890 MB -> 661 MB with malloc_trim). Elsewhere than glibc this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from functools import cache


@cache
def _trim() -> ctypes._CFuncPtr | None:  # type: ignore[name-defined]
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):  # not glibc
        return None


def release_free_memory() -> None:
    trim = _trim()
    if trim is not None:
        trim(0)


def shared_key(entry_id: str, version_id: str, content_hash: str) -> tuple[str, str, str]:
    """An entry's ids as the text and vector indexes keep them: interned, so that both hold
    one copy (~290 bytes an entry) rather than one each, read from their own rows."""
    return sys.intern(entry_id), sys.intern(version_id), sys.intern(content_hash)
