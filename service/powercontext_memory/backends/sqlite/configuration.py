"""What every connection is opened with: sqlite-vec loaded, lock wait, durability, page cache."""

from __future__ import annotations

import sqlite_vec

from .statements import Db

DEFAULT_BUSY_MS = 10_000  # lock wait without a server timeout (offline commands)

# Page cache per connection, KiB. Readers serve point reads (heads, versions, pieces) and the
# indexes' one-off loads, which the OS page cache serves as well; the writer's commits touch
# more. Kept small because it is paid on each of the six connections (bench/hybrid.py reports
# the server's RSS at scale).
WRITER_CACHE_KIB = 4_000
READER_CACHE_KIB = 2_000


def configure(db: Db, busy_ms: int = DEFAULT_BUSY_MS, cache_kib: int = READER_CACHE_KIB) -> None:
    # sqlite-vec (vec0) for the vector projection; extension loading is closed right after.
    db.enable_load_extension(True)
    try:
        sqlite_vec.load(db)
    finally:
        db.enable_load_extension(False)
    db.execute("PRAGMA foreign_keys = ON")
    db.execute(f"PRAGMA busy_timeout = {int(busy_ms)}")
    db.execute("PRAGMA synchronous = NORMAL")
    db.execute(f"PRAGMA cache_size = -{int(cache_kib)}")
