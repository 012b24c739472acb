"""The pinned agent hosts: tests/hosts/npm/package.json is the one place a version is named.

Each dependency there is an npm alias, `"<host>-<version>": "npm:<package>@<version>"`, so
several versions of one host install side by side; the suite runs every alias it finds. To
upgrade a pin, change its line (then `npm install` there refreshes the lock) — the tests
parametrized over the pins judge the new version without another edit.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

NPM = Path(__file__).resolve().parent / "npm"
NODE_MODULES = NPM / "node_modules"
NODE_BIN = NODE_MODULES / ".bin"  # where npm puts each host's command, as on a user's PATH
PACKAGES = {
    "claude-code": "@anthropic-ai/claude-code",
    "codex": "@openai/codex",
    "gemini-cli": "@google/gemini-cli",
}
# Where each package's launcher is inside its install: Claude Code's postinstall puts its
# native binary at bin/claude.exe; Codex's bin/codex.js picks its platform's native binary;
# Gemini CLI is one bundled Node script.
LAUNCHERS = {
    "claude-code": ("bin", "claude.exe"),
    "codex": ("bin", "codex.js"),
    "gemini-cli": ("bundle", "gemini.js"),
}
# What the reports call each host, as its makers name it.
PRODUCTS = {"claude-code": "Claude Code", "codex": "Codex", "gemini-cli": "Gemini CLI"}
# What `powercontext setup` and `powercontext doctor` call each host.
SETUP_NAMES = {"claude-code": "claude", "codex": "codex", "gemini-cli": "gemini"}


@dataclass(frozen=True)
class Pin:
    host: str  # "claude-code" | "codex" | "gemini-cli"
    version: str
    alias: str  # the directory under node_modules

    @property
    def title(self) -> str:
        """The host and its version, as the reports print them: "Claude Code 2.1.197"."""
        return f"{PRODUCTS[self.host]} {self.version}"

    @property
    def setup_name(self) -> str:
        return SETUP_NAMES[self.host]

    @property
    def launcher(self) -> Path:
        return NODE_MODULES.joinpath(self.alias, *LAUNCHERS[self.host])

    def command(self) -> list[str]:
        """How to start it (Codex's and Gemini CLI's launchers are Node scripts)."""
        launcher = str(self.launcher)
        return ["node", launcher] if launcher.endswith(".js") else [launcher]

    def installed_version(self) -> str:
        manifest = NODE_MODULES / self.alias / "package.json"
        return str(json.loads(manifest.read_text())["version"])


def versions(found: list[Pin]) -> list[str]:
    """The pins' test ids: their versions."""
    return [pin.version for pin in found]


def pins(host: str) -> list[Pin]:
    manifest = json.loads((NPM / "package.json").read_text())
    found = []
    for alias, spec in manifest["dependencies"].items():
        match = re.fullmatch(r"npm:(@[^@]+)@(\d+\.\d+\.\d+)", spec)
        assert match, f"{alias}: pin an exact version as npm:PACKAGE@X.Y.Z, not {spec!r}"
        if match[1] == PACKAGES[host]:
            found.append(Pin(host, match[2], alias))
    return found
