"""How long `serve` runs, for the zero-config local server a client starts for its user
(clients/python/powercontext_client/local_server.py).

* `--address-file PATH`: once listening, the server writes `HOST:PORT` there (atomically), so a
  client finds a server that picked its own port; on exit it removes the file if it is still
  its own (a newer server may have taken over).
* `--idle-exit SECONDS`: the server stops after that long without a call in flight
  (transport/idle.py).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import tempfile
from pathlib import Path

from .arguments import positive_float

ENV_IDLE_EXIT = "POWERCONTEXT_IDLE_EXIT"


def lifetime_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--idle-exit",
        type=positive_float,
        default=os.environ.get(ENV_IDLE_EXIT) or None,
        metavar="SECONDS",
        help=f"stop after this long with no call in flight (default: never; env {ENV_IDLE_EXIT})",
    )
    parser.add_argument(
        "--address-file",
        default=None,
        metavar="PATH",
        help="write HOST:PORT there once listening, remove it on exit",
    )


def write_address(path: str, address: str) -> None:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}-", dir=target.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(address + "\n")
    os.replace(tmp, target)


def remove_address(path: str, address: str) -> None:
    """Remove the file if it still names `address`."""
    with contextlib.suppress(OSError):
        if Path(path).read_text(encoding="utf-8").strip() == address:
            os.unlink(path)
