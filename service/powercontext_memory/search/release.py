"""Freed heap given back to the operating system after a search index's large one-off build.

A first load of a memory's text or vector index allocates and frees hundreds of thousands of
small objects (the rows read, per-document counters); glibc keeps the freed space in its arenas,
so without a trim the server's RSS stays well above what the index needs (server RSS:
`make bench BENCH_ARGS=--large`, bench/hybrid.py). Elsewhere than glibc this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
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
