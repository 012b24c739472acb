"""The user's state directory: the runtime manifest and the local server live there.

$POWERCONTEXT_RUNTIME_HOME, else $XDG_STATE_HOME/powercontext, else
~/.local/state/powercontext.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

ENV_HOME: Final = "POWERCONTEXT_RUNTIME_HOME"


def state_dir() -> Path:
    explicit = os.environ.get(ENV_HOME)
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_STATE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "state"
    return base / "powercontext"
