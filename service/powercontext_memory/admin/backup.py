"""`powercontext-memory backup`: a consistent copy of a live SQLite database.

SQLite's online backup API copies the database through a read transaction. All pages are
copied in one step: in WAL mode that step reads one snapshot while the server keeps committing
(writers are never blocked; only WAL checkpoints wait for the copy), and a single step is never
restarted by those commits, which a copy in small steps would be, again and again, on a busy
server. The copy is written next to the output under a temporary name, switched to a rollback
journal (one self-contained file; a server opening it switches it back to WAL) and renamed into
place only when complete, so an interrupted backup never leaves a file that looks like one.

OceanBase has no such file: use export (portable) or OceanBase's own physical backup.
"""

from __future__ import annotations

import contextlib
import os
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

import sqlean


@dataclass(frozen=True, slots=True)
class BackupReport:
    memories: int
    revisions: int
    bytes: int


def _connect_existing(path: Path) -> sqlean.Connection:
    """A connection to an existing file (never creates one)."""
    uri = "file:" + urllib.parse.quote(str(path.resolve())) + "?mode=rw"
    db = sqlean.connect(uri, uri=True, isolation_level=None)
    db.execute("PRAGMA busy_timeout = 10000")
    return db


def backup(database: Path, output: Path) -> BackupReport:
    """Copy `database` (which may be serving) to `output`, which must not exist."""
    if output.exists():
        raise FileExistsError(f"{output} exists: remove it or choose another path")
    if output.resolve() == database.resolve():
        raise ValueError("the copy must be another file than the database")
    output.parent.mkdir(parents=True, exist_ok=True)
    partial = output.with_name(output.name + ".partial")
    source = _connect_existing(database)
    try:
        tables = {r[0] for r in source.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not {"schema_meta", "artifact_revisions", "artifact_heads"} <= tables:
            raise ValueError(f"{database} is not a PowerContext Memory database")
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()  # left by an interrupted backup
        copy = sqlean.connect(str(partial), isolation_level=None)
        try:
            source.backup(copy)  # every page in one step: one snapshot, never restarted
            copy.execute("PRAGMA journal_mode = DELETE")
            memories, revisions = copy.execute(
                "SELECT COUNT(*), COALESCE(SUM(revision), 0) FROM artifact_heads"
            ).fetchone()
        finally:
            copy.close()
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
        raise
    finally:
        source.close()
    os.replace(partial, output)
    return BackupReport(int(memories), int(revisions), output.stat().st_size)
