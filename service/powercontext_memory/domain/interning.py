"""One copy of an entry's ids per process.

A large memory's ids are held in several places at once: the cached head manifest's rows, the
full-text index's and the vector index's keys. Read from different rows (a manifest piece, the
projection), each place would otherwise hold its own copy of the same strings, a cost that
grows with every entry (server RSS: `make bench BENCH_ARGS=--large`, bench/hybrid.py; see
docs/design/performance-history.md). Interned strings are freed like any
other once nothing holds them.
"""

from __future__ import annotations

import sys


def shared_ids(entry_id: str, version_id: str, content_hash: str) -> tuple[str, str, str]:
    return sys.intern(entry_id), sys.intern(version_id), sys.intern(content_hash)
