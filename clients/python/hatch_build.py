"""Puts the generated protobuf package `powercontext` into the client's wheel and sdist.

It lives in generated/ at the repository root, outside this project folder: a build from the
checkout takes it from ../../generated, a build from the sdist (which carries it at its root)
from there. An editable install copies nothing: dev-mode-dirs puts generated/ itself on sys.path,
so what `make proto` writes is imported without reinstalling.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

PACKAGE = "powercontext"


class GeneratedCodeHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if version == "editable":
            return
        root = Path(self.root)
        for source in (root / PACKAGE, root.parent.parent / "generated" / PACKAGE):
            if (source / "memory").is_dir():
                build_data["force_include"][str(source)] = PACKAGE
                return
        raise FileNotFoundError(f"{PACKAGE}/ is neither in {root} nor in ../../generated")
