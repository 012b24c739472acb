"""`powercontext`: everyday operations on a PowerContext Memory server, etcdctl-style.

    powercontext [--endpoint HOST:PORT] [-o text|json] COMMAND ...

The commands live in app.py. This module only dispatches: `powercontext hook …` runs once per
agent event in a new process, so it goes straight to the runtime's hook handler without
loading the other commands (their imports cost the hook tens of milliseconds).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from typing import Any


def main(argv: Sequence[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    if arguments[:1] == ["hook"]:  # agent hooks: straight to the handler, always exit 0
        from .runtime import hook_main

        return hook_main(arguments[1:])
    from .app import main as run

    return run(arguments)


# The rest of the CLI's surface, defined in app.py and loaded on first use. A fixed list: Python
# also asks a package for submodules being imported (`from . import runtime`), and answering
# those by loading app.py would undo the hook's lean path.
_APP_NAMES = frozenset(
    {
        "COMMANDS",
        "Command",
        "EXIT_CODES",
        "EXIT_INTERRUPTED",
        "EXIT_USAGE",
        "SOURCE_COMMANDS",
        "build_parser",
        "error_line",
        "exit_code",
    }
)


def __getattr__(name: str) -> Any:
    if name not in _APP_NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.app"), name)
