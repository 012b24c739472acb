"""The host half of `powercontext doctor`: hooks installed (and found on PATH), Codex's and
Gemini CLI's trust, the MCP entry answering with its tools, and the host's version against the
tested ones."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from . import settings
from .findings import HOOKS, MCP, TRUST, Finding
from .jsonrpc import RpcFailed, StdioPeer

# The host versions tests/hosts runs against (a test keeps them equal to its pins).
TESTED_VERSIONS: Final[Mapping[str, tuple[str, ...]]] = {
    "claude": ("2.1.197", "2.1.332"),
    "codex": ("0.171.0",),
    "gemini": ("0.61.0",),
}
HOST_COMMANDS: Final = {"claude": "claude", "codex": "codex", "gemini": "gemini"}
MCP_TOOL: Final = "search_memory"


@dataclass(frozen=True)
class HostContext:
    """Where the checks look: the directory asked about, and the environment hosts run in."""

    path: Path
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))

    def codex_home(self) -> Path:
        return Path(self.environ.get("CODEX_HOME") or Path.home() / ".codex")

    def gemini_dir(self) -> Path:
        """The user's .gemini/ ($GEMINI_CLI_HOME/.gemini, else ~/.gemini)."""
        return Path(self.environ.get("GEMINI_CLI_HOME") or Path.home()) / ".gemini"


Check = Callable[[HostContext, Path | None], Finding]


# -- hooks ---------------------------------------------------------------------------------------


def _hook_commands(path: Path, host: str) -> dict[str, str]:
    """Event -> the command of our hook in that settings file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    found: dict[str, str] = {}
    hooks = data.get("hooks") if isinstance(data, dict) else None
    for event, groups in (hooks or {}).items():
        for group in groups if isinstance(groups, list) else []:
            for hook in group.get("hooks", []) if isinstance(group, dict) else []:
                if isinstance(hook, dict) and settings.runs_our_hook(hook.get("command"), host):
                    found[event] = str(hook["command"])
    return found


def _hooks_finding(
    host: str, candidates: list[Path], events: tuple[str, ...], setup: str
) -> tuple[Finding, Path | None]:
    for path in candidates:
        commands = _hook_commands(path, host)
        if not commands:
            continue
        missing = [e for e in events if e not in commands]
        program = next(iter(commands.values())).split()[0].strip("'\"")
        if missing:
            return (
                Finding(
                    "hooks",
                    False,
                    f"{path} runs our hook on {len(commands)} of {len(events)} events "
                    f"(missing {', '.join(missing)})",
                    f"run `{setup}`",
                    HOOKS,
                ),
                path,
            )
        if shutil.which(program) is None:
            return (
                Finding(
                    "hooks",
                    False,
                    f"{path}: the hook runs `{program}`, which is not on this PATH",
                    "install powercontext where the host finds it (`pipx install "
                    "'powercontext-memory[mcp]'`) or add its directory to PATH",
                    HOOKS,
                ),
                path,
            )
        return Finding("hooks", True, f"{path}: {', '.join(events)}"), path
    return (
        Finding("hooks", False, "none of our hooks is installed", f"run `{setup}`", HOOKS),
        None,
    )


def _claude_hook_files(host: HostContext, root: Path | None) -> list[Path]:
    return [p / ".claude" / "settings.json" for p in (root, Path.home()) if p is not None]


def _codex_hook_files(host: HostContext, root: Path | None) -> list[Path]:
    return ([root / ".codex" / "hooks.json"] if root else []) + [host.codex_home() / "hooks.json"]


def _claude_hooks(host: HostContext, root: Path | None) -> Finding:
    paths = _claude_hook_files(host, root)
    return _hooks_finding("claude", paths, settings.HOOK_EVENTS, "powercontext setup claude")[0]


def _codex_hooks(host: HostContext, root: Path | None) -> Finding:
    paths = _codex_hook_files(host, root)
    finding, path = _hooks_finding(
        "codex", paths, settings.CODEX_HOOK_EVENTS, "powercontext setup codex"
    )
    if not finding.ok or path is None:
        return finding
    config = _toml(path.parent / "config.toml")
    features = config.get("features", {}) if isinstance(config.get("features"), dict) else {}
    if features.get("hooks") is not True:
        return Finding(
            "hooks",
            False,
            f"{path.parent / 'config.toml'} does not turn hooks on ([features] hooks = true)",
            "run `powercontext setup codex`",
            HOOKS,
        )
    return finding


def _codex_trust(host: HostContext, root: Path | None) -> Finding:
    user = _toml(host.codex_home() / "config.toml")
    if root is not None and (root / ".codex").is_dir():
        projects = user.get("projects", {})
        level = (
            projects.get(str(root), {}).get("trust_level") if isinstance(projects, dict) else None
        )
        if level != "trusted":
            return Finding(
                "trust",
                False,
                f"Codex does not trust {root}, so it ignores its .codex/ (hooks and MCP server)",
                f"start `codex` in {root} and trust the folder when it asks",
                TRUST,
            )
    statuses = _codex_hook_trust(host, root)
    if statuses is None:
        return Finding(
            "trust",
            True,
            "codex is not on PATH here: its hook trust cannot be asked",
            warning=True,
        )
    untrusted = sorted(event for event, status in statuses.items() if status != "trusted")
    if untrusted:
        return Finding(
            "trust",
            False,
            f"Codex has not trusted our hooks for {', '.join(untrusted)}: it skips them "
            "(headless `codex exec` says nothing)",
            'start `codex` in the repository and choose "Trust all and continue" on the '
            "hooks it lists",
            TRUST,
        )
    return Finding("trust", True, "Codex trusts the project and our hooks")


def _codex_hook_trust(host: HostContext, root: Path | None) -> dict[str, str] | None:
    """Event -> Codex's own trust status of our hook there, from `codex app-server`."""
    codex = shutil.which("codex", path=host.environ.get("PATH"))
    if codex is None:
        return None
    cwd = root or host.path
    try:
        with StdioPeer([codex, "app-server"], cwd=cwd, env=host.environ) as peer:
            peer.call("initialize", {"clientInfo": {"name": "powercontext-doctor", "version": "1"}})
            peer.notify("initialized")
            listed = peer.call("hooks/list", {"cwds": [str(cwd)]})
    except (RpcFailed, OSError):
        return None
    statuses: dict[str, str] = {}
    for entry in listed.get("data", []):
        for hook in entry.get("hooks", []):
            if settings.runs_our_hook(hook.get("command"), "codex"):
                statuses[_event_name(str(hook.get("eventName", "")))] = str(hook.get("trustStatus"))
    return statuses


def _event_name(wire: str) -> str:
    """`sessionStart` / `session_start` -> SessionStart."""
    parts = re.split(r"_|(?=[A-Z])", wire)
    return "".join(p[:1].upper() + p[1:] for p in parts if p)


def _gemini_settings(host: HostContext, root: Path | None) -> list[Path]:
    """Gemini's settings files setup writes, the project's first."""
    project = [root / ".gemini" / "settings.json"] if root else []
    return [*project, host.gemini_dir() / "settings.json"]


def _gemini_hooks(host: HostContext, root: Path | None) -> Finding:
    paths = _gemini_settings(host, root)
    finding, path = _hooks_finding(
        "gemini", paths, settings.GEMINI_HOOK_EVENTS, "powercontext setup gemini"
    )
    if not finding.ok or path is None:
        return finding
    commands = set(_hook_commands(path, "gemini").values()) | {settings.HOOK_NAME}
    for candidate in paths:
        data = _json(candidate)
        config = data.get("hooksConfig")
        disabled = config.get("disabled") if isinstance(config, dict) else None
        named = sorted(commands & set(disabled)) if isinstance(disabled, list) else []
        if settings.gemini_hooks_off(data) or named:
            what = f"disables {', '.join(named)}" if named else "turns every hook off"
            return Finding(
                "hooks",
                False,
                f"{candidate} {what} (hooksConfig): Gemini runs none of ours",
                f"remove it from hooksConfig in {candidate}",
                HOOKS,
            )
    return finding


def _gemini_trust(host: HostContext, root: Path | None) -> Finding:
    """Gemini reads a project's .gemini/ and runs any hook only in a trusted folder (its
    `security.folderTrust`, on by default; the user's choices in trustedFolders.json)."""
    folder = root or host.path
    if host.environ.get("GEMINI_CLI_TRUST_WORKSPACE") == "true":
        return Finding(
            "trust",
            True,
            "GEMINI_CLI_TRUST_WORKSPACE=true trusts every folder for this shell only",
            warning=True,
        )
    user = _json(host.gemini_dir() / "settings.json")
    security = user.get("security") if isinstance(user.get("security"), dict) else {}
    folder_trust = security.get("folderTrust") if isinstance(security, dict) else None
    if isinstance(folder_trust, dict) and folder_trust.get("enabled") is False:
        return Finding("trust", True, "Gemini's folder trust is off: every folder is trusted")
    path = Path(
        host.environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
        or host.gemini_dir() / "trustedFolders.json"
    )
    level = _gemini_trust_level(_json(path), folder)
    if level in ("TRUST_FOLDER", "TRUST_PARENT"):
        return Finding("trust", True, f"Gemini trusts {folder} ({path})")
    said = "was told not to trust" if level == "DO_NOT_TRUST" else "does not trust"
    return Finding(
        "trust",
        False,
        f"Gemini {said} {folder}, so it ignores its .gemini/ and runs no hook there "
        "(headless `gemini -p` refuses to start)",
        f'start `gemini` in {folder} and choose "Trust folder" (or /permissions to change it)',
        TRUST,
    )


def _gemini_trust_level(rules: Mapping[str, Any], folder: Path) -> str:
    """The level of the longest rule covering `folder`, as Gemini picks it ("" when none): a
    TRUST_PARENT rule covers its path's parent."""
    target = os.path.realpath(folder)
    best, level = -1, ""
    for rule, value in rules.items():
        base = os.path.dirname(rule) if value == "TRUST_PARENT" else rule
        covered = os.path.realpath(base)
        inside = target == covered or target.startswith(covered.rstrip(os.sep) + os.sep)
        if inside and len(rule) > best:
            best, level = len(rule), str(value)
    return level


# -- MCP -----------------------------------------------------------------------------------------


def _mcp_entry(name: str, host: HostContext, root: Path | None) -> Mapping[str, Any] | None:
    """Our MCP server's entry in the host's files, the project's first (None: there is none)."""
    if name == "claude":
        found = [_json(root / ".mcp.json").get("mcpServers")] if root else []
    elif name == "codex":
        codex = ([root / ".codex"] if root else []) + [host.codex_home()]
        found = [_toml(d / "config.toml").get("mcp_servers") for d in codex]
    else:
        found = [_json(p).get("mcpServers") for p in _gemini_settings(host, root)]
    for servers in found:
        entry = servers.get(settings.SERVER_NAME) if isinstance(servers, dict) else None
        if isinstance(entry, dict):
            return entry
    return None


MCP_MISSING: Final = {
    "claude": ".mcp.json has no powercontext server",
    "codex": "no powercontext MCP server in Codex's config.toml",
    "gemini": "no powercontext MCP server in Gemini's settings.json",
}


def _mcp(name: str) -> Check:
    def check(host: HostContext, root: Path | None) -> Finding:
        if name == "claude" and root is None:
            return Finding("mcp", True, "not in a repository: see `claude mcp list`", warning=True)
        entry = _mcp_entry(name, host, root)
        if entry is None:
            where = f"{root}/" if name == "claude" and root else ""
            fix = f"run `powercontext setup {name}`"
            return Finding("mcp", False, where + MCP_MISSING[name], fix, MCP)
        return _mcp_answers(host, root or host.path, entry)

    return check


def _mcp_answers(host: HostContext, cwd: Path, entry: Mapping[str, Any]) -> Finding:
    """Start the entry's command as the host would and ask it for its tools."""
    program = shutil.which(str(entry.get("command", "")), path=host.environ.get("PATH"))
    if program is None:
        return Finding(
            "mcp",
            False,
            f"the MCP server runs `{entry.get('command')}`, which is not on this PATH",
            "install powercontext where the host finds it, or run setup again",
            MCP,
        )
    args = [str(a) for a in entry.get("args", []) if isinstance(a, str)]
    try:
        with StdioPeer([program, *args], cwd=cwd, env=host.environ) as peer:
            peer.call(
                "initialize",
                {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "powercontext-doctor", "version": "1"},
                },
            )
            peer.notify("notifications/initialized")
            tools = [t.get("name") for t in peer.call("tools/list", {}).get("tools", [])]
    except (RpcFailed, OSError) as error:
        return Finding(
            "mcp",
            False,
            f"`{program} {' '.join(args)}` did not answer: {error}",
            "run it by hand to see why",
            MCP,
        )
    if MCP_TOOL not in tools:
        return Finding(
            "mcp",
            False,
            f"the MCP server offers no {MCP_TOOL}",
            "run `powercontext setup` again",
            MCP,
        )
    return Finding(
        "mcp", True, f"`{entry.get('command')} {' '.join(args)}` answers with {len(tools)} tools"
    )


# -- versions ------------------------------------------------------------------------------------


def _version(name: str) -> Check:
    def check(host: HostContext, root: Path | None) -> Finding:
        program = shutil.which(HOST_COMMANDS[name], path=host.environ.get("PATH"))
        if program is None:
            return Finding("version", True, f"{HOST_COMMANDS[name]} is not on PATH here")
        try:
            done = subprocess.run(
                [program, "--version"],
                capture_output=True,
                text=True,
                timeout=30,
                env=dict(host.environ),
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            return Finding("version", True, f"{program} --version failed: {error}", warning=True)
        found = re.search(r"\d+\.\d+\.\d+", done.stdout + done.stderr)
        version = found[0] if found else "unknown"
        tested = TESTED_VERSIONS[name]
        if version in tested:
            return Finding("version", True, f"{name} {version} (tested)")
        return Finding(
            "version",
            False,
            f"{name} {version} is not among the tested versions ({', '.join(tested)}): hooks "
            "may meet payloads the tests never saw",
            warning=True,
        )

    return check


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return {}


HOST_CHECKS: Final[Mapping[str, tuple[Check, ...]]] = {
    "claude": (_claude_hooks, _mcp("claude"), _version("claude")),
    "codex": (_codex_hooks, _codex_trust, _mcp("codex"), _version("codex")),
    "gemini": (_gemini_hooks, _gemini_trust, _mcp("gemini"), _version("gemini")),
}
HOOK_FILES: Final[Mapping[str, Callable[[HostContext, Path | None], list[Path]]]] = {
    "claude": _claude_hook_files,
    "codex": _codex_hook_files,
    "gemini": _gemini_settings,
}


def set_up_hosts(host: HostContext, root: Path | None) -> tuple[str, ...]:
    """The hosts whose files hold our hooks or our MCP server: what `doctor` checks by default."""
    return tuple(
        name
        for name, files in HOOK_FILES.items()
        if any(_hook_commands(path, name) for path in files(host, root))
        or _mcp_entry(name, host, root) is not None
    )
