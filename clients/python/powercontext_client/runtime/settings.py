"""`powercontext setup claude|codex`: merge our hooks and MCP server into the host's settings.

| host   | --project (the repository)                  | --user                              |
|--------|---------------------------------------------|-------------------------------------|
| claude | .claude/settings.json `hooks`, .mcp.json    | ~/.claude/settings.json `hooks`     |
|        | `mcpServers.powercontext`                   | (MCP: `claude mcp add --scope user`)|
| codex  | .codex/hooks.json, .codex/config.toml       | $CODEX_HOME (~/.codex)/hooks.json,  |
|        | `[features] codex_hooks` and                | config.toml                         |
|        | `[mcp_servers.powercontext]`                |                                     |

Merging keeps everything else the user has: a hook group is added to an event only when no
command of that event already runs `powercontext … hook <host>`; an MCP server named
powercontext that exists is left as the user configured it. Running setup twice changes
nothing. Before a file is changed its old bytes are copied to `<file>.bak-<timestamp>`; every
write is atomic (temporary file + rename).

config.toml is edited as text (no TOML writer dependency): a missing table is appended, a
missing `codex_hooks = true` goes right under an existing `[features]` header; the result is
parsed with tomllib and compared with what was meant before it is written, so a file this
cannot safely extend (an inline `mcp_servers = {…}`, say) is refused, never corrupted.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

HOOK_EVENTS: Final = (
    "SessionStart",
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
    "PreCompact",
    "SessionEnd",
)
CODEX_HOOK_EVENTS: Final = ("SessionStart", "UserPromptSubmit", "Stop")
HOOK_TIMEOUT_SECONDS: Final = 10  # the hook itself gives up after 2 s
SERVER_NAME: Final = "powercontext"


class SetupError(RuntimeError):
    pass


@dataclass(frozen=True)
class Change:
    path: Path
    what: str  # "created", "updated", "unchanged", or advice
    backup: Path | None = None

    def line(self) -> str:
        saved = f" (backup {self.backup})" if self.backup else ""
        return f"{self.what}: {self.path}{saved}"


def _command(program: str, *args: str) -> str:
    return " ".join([_quote(program), *args])


def _quote(text: str) -> str:
    return text if re.fullmatch(r"[\w@%+=:,./-]+", text) else "'" + text.replace("'", "'\\''") + "'"


def _runs_our_hook(command: object, host: str) -> bool:
    return (
        isinstance(command, str)
        and re.search(rf"(^|[/\s'\"])powercontext['\"]?(\s+\S+)*\s+hook\s+{host}(\s|$)", command)
        is not None
    )


# -- files ---------------------------------------------------------------------------------------


def _write(path: Path, text: str, stamp: str) -> Change:
    old = path.read_text(encoding="utf-8") if path.exists() else None
    if old == text:
        return Change(path, "unchanged")
    path.parent.mkdir(parents=True, exist_ok=True)
    backup = None
    if old is not None:
        backup = path.with_name(f"{path.name}.bak-{stamp}")
        shutil.copy2(path, backup)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    if old is not None:
        shutil.copymode(path, tmp)
    os.replace(tmp, path)
    return Change(path, "updated" if old is not None else "created", backup)


def _load_json(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except ValueError as error:
        raise SetupError(f"{path} is not valid JSON ({error}); fix it first") from error
    if not isinstance(data, dict):
        raise SetupError(f"{path} is not a JSON object")
    return data


def _dump_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


# -- merges --------------------------------------------------------------------------------------


def merge_hooks(settings: dict[str, Any], events: tuple[str, ...], command: str, host: str) -> None:
    """Add {"hooks": [{"type": "command", "command": …}]} to each event not yet running ours."""
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise SetupError('"hooks" is not an object')
    for event in events:
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise SetupError(f'"hooks.{event}" is not a list')
        ours = any(
            _runs_our_hook(hook.get("command"), host)
            for group in groups
            if isinstance(group, dict)
            for hook in group.get("hooks", [])
            if isinstance(hook, dict)
        )
        if not ours:
            groups.append(
                {
                    "hooks": [
                        {"type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECONDS}
                    ]
                }
            )


def merge_mcp_json(settings: dict[str, Any], program: str) -> None:
    servers = settings.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise SetupError('"mcpServers" is not an object')
    servers.setdefault(SERVER_NAME, {"type": "stdio", "command": program, "args": ["mcp"]})


def merge_codex_toml(text: str, program: str) -> str:
    """config.toml with `[features] codex_hooks = true` and `[mcp_servers.powercontext]`."""
    try:
        current = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise SetupError(f"config.toml does not parse ({error}); fix it first") from error
    out = text
    features = current.get("features", {})
    if not (isinstance(features, dict) and features.get("codex_hooks") is True):
        header = re.search(r"(?m)^\[features\][ \t]*(#.*)?$", out)
        existing = re.compile(r"(?m)^[ \t]*codex_hooks[ \t]*=[ \t]*false[ \t]*(#.*)?$")
        if header and existing.search(out[header.end() :]):
            start = header.end()
            out = out[:start] + existing.sub("codex_hooks = true", out[start:], count=1)
        elif header:
            out = out[: header.end()] + "\ncodex_hooks = true" + out[header.end() :]
        else:
            out = _append(out, "[features]\ncodex_hooks = true\n")
    servers = current.get("mcp_servers", {})
    if not (isinstance(servers, dict) and SERVER_NAME in servers):
        out = _append(
            out,
            f'[mcp_servers.{SERVER_NAME}]\ncommand = {json.dumps(program)}\nargs = ["mcp"]\n',
        )
    try:
        merged = tomllib.loads(out)
    except tomllib.TOMLDecodeError as error:
        raise SetupError(
            f"cannot extend config.toml safely ({error}); add `[features] codex_hooks = true` "
            f"and `[mcp_servers.{SERVER_NAME}]` by hand"
        ) from error
    if merged.get("features", {}).get("codex_hooks") is not True or SERVER_NAME not in merged.get(
        "mcp_servers", {}
    ):
        raise SetupError("cannot extend config.toml safely; add the settings by hand")
    return out


def _append(text: str, block: str) -> str:
    if text and not text.endswith("\n"):
        text += "\n"
    return text + ("\n" if text else "") + block


# -- hosts ---------------------------------------------------------------------------------------


def setup_claude(
    *, project: Path | None, home: Path, program: str, endpoint: str | None = None
) -> list[Change]:
    """project: the repository root for --project, None for --user."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    command = _command(program, "hook", "claude", *(["--endpoint", endpoint] if endpoint else []))
    base = project if project is not None else home
    settings_path = base / ".claude" / "settings.json"
    settings = _load_json(settings_path)
    merge_hooks(settings, HOOK_EVENTS, command, "claude")
    changes = [_write(settings_path, _dump_json(settings), stamp)]
    if project is not None:
        mcp_path = project / ".mcp.json"
        mcp = _load_json(mcp_path)
        merge_mcp_json(mcp, program)
        changes.append(_write(mcp_path, _dump_json(mcp), stamp))
    else:
        advice = f"claude mcp add --scope user {SERVER_NAME} -- {_command(program, 'mcp')}"
        changes.append(
            Change(Path("~/.claude.json"), f"not edited; to add the MCP server run: {advice}")
        )
    return changes


def setup_codex(
    *, project: Path | None, codex_home: Path, program: str, endpoint: str | None = None
) -> list[Change]:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    command = _command(program, "hook", "codex", *(["--endpoint", endpoint] if endpoint else []))
    base = project / ".codex" if project is not None else codex_home
    hooks_path = base / "hooks.json"
    hooks = _load_json(hooks_path)
    merge_hooks(hooks, CODEX_HOOK_EVENTS, command, "codex")
    config_path = base / "config.toml"
    text = config_path.read_text(encoding="utf-8") if config_path.exists() else ""
    merged = merge_codex_toml(text, program)
    return [
        _write(hooks_path, _dump_json(hooks), stamp),
        _write(config_path, merged, stamp),
    ]


def program_path() -> str:
    """The `powercontext` the hosts should run: this one, by absolute path when it is on
    PATH or is the running script (hosts start hooks without the user's virtualenv)."""
    import sys

    argv0 = Path(sys.argv[0])
    if argv0.name == "powercontext" and argv0.exists():
        return str(argv0.resolve())
    found = shutil.which("powercontext")
    return str(Path(found).resolve()) if found else "powercontext"
