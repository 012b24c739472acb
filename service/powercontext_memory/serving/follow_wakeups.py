"""How a serving process's follow streams learn of other processes' commits at once.

Every `serve` process (each worker of `--workers N`, or separate servers on one database)
binds a commit signal (commit_signal.py) in the directory of its database and connects it to
its head watcher: commits made here are announced to the other processes, and theirs wake the
watcher here. Where that directory is:

- SQLite: `<database file>.signals/`, next to the file (its resolved path), so every process
  that opens the file finds it.
- OceanBase: `powercontext-signals-UID-HASH/` in `$XDG_RUNTIME_DIR` (else /tmp), HASH naming
  the DSN's host:port/database as written. Only processes on one host share it: servers on
  other hosts see each other's commits at their watcher's next poll.

Offline admin commands open no signal: their commits reach followers at the next poll.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Mapping
from pathlib import Path

from ..backends.oceanbase.wire import OceanBaseDsn, is_oceanbase_dsn
from ..commit_signal import CommitSignal
from ..notifier import HeadWatcher

logger = logging.getLogger(__name__)

# off: followers here see other processes' commits only at the watcher's next poll.
ENV_COMMIT_SIGNALS = "POWERCONTEXT_COMMIT_SIGNALS"
# Seconds between the watcher's polls of the followed heads (notifier.HEAD_POLL_INTERVAL).
ENV_HEAD_POLL_INTERVAL = "POWERCONTEXT_HEAD_POLL_INTERVAL"
OFF = ("off", "0", "false", "no")
SIGNALS_SUFFIX = ".signals"
FALLBACK_RUNTIME = Path("/tmp")


def runtime_directory(key: str, environ: Mapping[str, str] = os.environ) -> Path:
    """This user's directory for the database that `key` names, in the runtime directory
    (no file of the database is on this host to put it beside)."""
    runtime = environ.get("XDG_RUNTIME_DIR", "")
    base = Path(runtime) if runtime and os.path.isabs(runtime) else FALLBACK_RUNTIME
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return base / f"powercontext-signals-{os.geteuid()}-{digest}"


def signal_directory(database: str, environ: Mapping[str, str] = os.environ) -> Path | None:
    """The directory every process serving `database` on this host shares; None for a
    database no other process can open (SQLite :memory:)."""
    if is_oceanbase_dsn(database):
        dsn = OceanBaseDsn.parse(database, password="")
        return runtime_directory(f"oceanbase:{dsn.host}:{dsn.port}/{dsn.database}", environ)
    if database == ":memory:":
        return None
    path = Path(database).resolve()
    return path.with_name(path.name + SIGNALS_SUFFIX)


def head_poll_interval(environ: Mapping[str, str] = os.environ) -> float | None:
    """The poll interval the environment sets, or None (the watcher's default)."""
    text = environ.get(ENV_HEAD_POLL_INTERVAL, "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{ENV_HEAD_POLL_INTERVAL}: not a number: {text!r}") from None
    if not value > 0:
        raise ValueError(f"{ENV_HEAD_POLL_INTERVAL}: must be > 0, got {text}")
    return value


def connect_followers(
    database: str, watcher: HeadWatcher, environ: Mapping[str, str] = os.environ
) -> CommitSignal | None:
    """Set the watcher's poll interval and connect it to this database's other processes;
    the signal to close on stop, or None when it is off or cannot be had (then the poll alone
    brings their commits, as it always did)."""
    interval = head_poll_interval(environ)
    if interval is not None:
        watcher.interval = interval
    if environ.get(ENV_COMMIT_SIGNALS, "").strip().lower() in OFF:
        return None
    directory = signal_directory(database, environ)
    if directory is None:
        return None
    try:
        signal = CommitSignal.bind(directory, watcher.wake)
    except OSError as error:
        logger.warning(
            "no commit signals (%s): follow streams here see other processes' commits within %g s",
            error,
            watcher.interval,
        )
        return None
    watcher.peers = signal
    logger.debug("commit signals in %s", directory)
    return signal
