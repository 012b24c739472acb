"""How a zero-config local server is found and how long it runs (the client starts it for its
user: clients/python/powercontext_client/local_server.py).

* `--address-file PATH`: once listening, the server writes `HOST:PORT` there (atomically), so a
  client finds a server that picked its own port; on exit it removes the file if it is still
  its own (a newer server may have taken over).
* `--idle-exit SECONDS`: the server stops after that long without a call in flight
  (transport/idle.py).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


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
