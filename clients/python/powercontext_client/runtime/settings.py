"""`powercontext setup claude|codex|gemini`: merge our hooks and MCP server into the host's
settings.

| host   | --project (files a team commits)            | --user (the user's own files)        |
|--------|---------------------------------------------|--------------------------------------|
| claude | .claude/settings.json `hooks`, .mcp.json    | ~/.claude/settings.json `hooks`      |
|        | `mcpServers.powercontext`                   | (MCP: `claude mcp add --scope user`) |
| codex  | .codex/hooks.json, .codex/config.toml       | $CODEX_HOME (~/.codex)/hooks.json,   |
|        | `[features] hooks`, `[mcp_servers.…]`       | config.toml                          |
| gemini | .gemini/settings.json `hooks`,              | $GEMINI_CLI_HOME (~)/.gemini/        |
|        | `mcpServers.powercontext`                   | settings.json, the same keys         |

Project files hold the bare command `powercontext` (the host finds it on PATH) and no
endpoint, so they are the same on every machine: the endpoint setup is given is recorded for
the repository in the user's runtime manifest (manifest.py), where the hooks and the MCP
bridge read it. User files may hold this machine's absolute path and the endpoint.

Claude Code and Codex get hooks for SessionStart (it fires again after a compaction, source
"compact"), UserPromptSubmit and Stop; Gemini CLI for its SessionStart, BeforeAgent and
AfterAgent, the same three moments (events.GEMINI_EVENTS), with a timeout in milliseconds and
the hook name `powercontext` (what Gemini's /hooks commands and its new-hook warning show).
Gemini needs no flag (hooks are on unless `hooksConfig.enabled` is false, which setup reports
and leaves to the user). Gemini reads a project's .gemini/ only in a folder the user trusted:
setup says so, and never trusts on the user's behalf. Codex: `[features] hooks = true` (the
deprecated `codex_hooks` key is removed); the MCP server gets the POWERCONTEXT_* variables
through `env_vars` (Codex passes an MCP server only a whitelist of the environment otherwise).
Codex runs a project's `.codex/` only in a trusted project, and a hook only once the user
trusted it: setup says so, and never trusts on the user's behalf.

Merging keeps everything else: our hooks and MCP entry are recognised (a command running
`powercontext … hook HOST`, a server running `powercontext mcp`) and brought up to date in
place, so an older setup's absolute path becomes the portable command; anything else the user
has stays. Running setup twice changes nothing. Before a file is changed its old bytes are
copied to `<file>.bak-<timestamp>`; every write is atomic (temporary file + rename).
config.toml is edited with tomlkit, which keeps the user's comments and layout.
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

import tomlkit
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import InlineTable

from .events import GEMINI_EVENTS

# The events whose hook does something (runtime/hooks.py), the same in both hosts: SessionStart
# fires again after a compaction (source "compact"), which re-injects the context. A hook on any
# other event would only cost a process per event; setup removes ours from those.
HOOK_EVENTS: Final = ("SessionStart", "UserPromptSubmit", "Stop")
CODEX_HOOK_EVENTS: Final = HOOK_EVENTS
GEMINI_HOOK_EVENTS: Final = tuple(GEMINI_EVENTS)
HOOK_TIMEOUT_SECONDS: Final = 10  # the hook itself gives up after 2 s
GEMINI_HOOK_TIMEOUT_MS: Final = HOOK_TIMEOUT_SECONDS * 1000  # Gemini reads milliseconds
HOOK_NAME: Final = "powercontext"
SERVER_NAME: Final = "powercontext"
PROGRAM: Final = "powercontext"  # what project files run: found on PATH
# What the MCP server needs of the user's environment (Codex forwards only what is named).
FORWARDED_ENV: Final = (
    "POWERCONTEXT_ENDPOINT",
    "POWERCONTEXT_TOKEN",
    "POWERCONTEXT_TLS_CA",
    "POWERCONTEXT_TLS_CERT",
    "POWERCONTEXT_TLS_KEY",
    "POWERCONTEXT_TIMEOUT",
    "POWERCONTEXT_RUNTIME_HOME",
    "POWERCONTEXT_LOCAL_SERVER",
    "XDG_STATE_HOME",
)
DEPRECATED_CODEX_FEATURE: Final = "codex_hooks"


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


def command(program: str, *args: str) -> str:
    return " ".join([_quote(program), *(_quote(a) for a in args)])


def _quote(text: str) -> str:
    return text if re.fullmatch(r"[\w@%+=:,./-]+", text) else "'" + text.replace("'", "'\\''") + "'"


def runs_our_hook(command_line: object, host: str) -> bool:
    return (
        isinstance(command_line, str)
        and re.search(
            rf"(^|[/\s'\"])powercontext['\"]?(\s+\S+)*\s+hook\s+{host}(\s|$)", command_line
        )
        is not None
    )


def is_our_server(entry: object) -> bool:
    """An MCP server entry that runs `powercontext mcp` (by any path)."""
    if not isinstance(entry, dict):
        return False
    program, args = entry.get("command"), entry.get("args")
    return (
        isinstance(program, str)
        and Path(program).name == PROGRAM
        and isinstance(args, list)
        and args[:1] == ["mcp"]
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


def merge_hooks(
    settings: dict[str, Any],
    events: tuple[str, ...],
    command_line: str,
    host: str,
    *,
    extra: dict[str, Any] | None = None,
) -> None:
    """Each of `events` runs `command_line` once: our existing hook is updated in place, else a
    group {"hooks": [{"type": "command", "command": …, "timeout": …, **extra}]} is added. Our
    hooks on other events (an older setup's) are removed; nobody else's are touched."""
    extra = extra if extra is not None else {"timeout": HOOK_TIMEOUT_SECONDS}
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise SetupError('"hooks" is not an object')
    for event in [e for e in hooks if e not in events]:
        _drop_ours(hooks, event, host)
    for event in events:
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise SetupError(f'"hooks.{event}" is not a list')
        ours = [
            hook
            for group in groups
            if isinstance(group, dict)
            for hook in group.get("hooks", [])
            if isinstance(hook, dict) and runs_our_hook(hook.get("command"), host)
        ]
        for hook in ours:
            hook["command"] = command_line
        if not ours:
            groups.append({"hooks": [{"type": "command", "command": command_line, **extra}]})


def _drop_ours(hooks: dict[str, Any], event: str, host: str) -> None:
    groups = hooks.get(event)
    if not isinstance(groups, list):
        return
    kept = []
    for group in groups:
        if isinstance(group, dict) and isinstance(group.get("hooks"), list):
            others = [h for h in group["hooks"] if not _is_our_hook(h, host)]
            if not others:
                continue  # the group held only ours
            group = {**group, "hooks": others}
        kept.append(group)
    if kept:
        hooks[event] = kept
    else:
        del hooks[event]


def _is_our_hook(hook: object, host: str) -> bool:
    return isinstance(hook, dict) and runs_our_hook(hook.get("command"), host)


def merge_mcp_json(
    settings: dict[str, Any], program: str, args: list[str], *, typed: bool = True
) -> None:
    """`mcpServers.powercontext` runs `program args`; `typed`: with "type": "stdio" (.mcp.json;
    Gemini's entries have no type for stdio)."""
    servers = settings.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise SetupError('"mcpServers" is not an object')
    current = servers.get(SERVER_NAME)
    if current is None or is_our_server(current):
        kind = {"type": "stdio"} if typed else {}
        servers[SERVER_NAME] = {**kind, "command": program, "args": args}


def merge_codex_toml(text: str, program: str, args: list[str]) -> str:
    """config.toml with `[features] hooks = true` (no `codex_hooks`) and our MCP server."""
    try:
        tomllib.loads(text)
        document = tomlkit.parse(text)
    except (tomllib.TOMLDecodeError, TOMLKitError) as error:
        raise SetupError(f"config.toml does not parse ({error}); fix it first") from error
    try:
        features = document.setdefault("features", tomlkit.table())
        features.pop(DEPRECATED_CODEX_FEATURE, None)
        features["hooks"] = True
        servers = document.setdefault("mcp_servers", tomlkit.table(is_super_table=True))
        current = servers.get(SERVER_NAME)
        if current is None or is_our_server(current):
            inline = isinstance(servers, InlineTable)  # `mcp_servers = { … }` takes inline ones
            server = tomlkit.inline_table() if inline else tomlkit.table()
            server["command"] = program
            server["args"] = args
            server["env_vars"] = list(FORWARDED_ENV)
            servers[SERVER_NAME] = server
    except (TOMLKitError, AttributeError, TypeError, ValueError) as error:
        raise SetupError(
            f"cannot extend config.toml safely ({error}); add `[features] hooks = true` and "
            f"`[mcp_servers.{SERVER_NAME}]` by hand"
        ) from error
    out = tomlkit.dumps(document)
    merged = tomllib.loads(out)  # what Codex will read
    if merged.get("features", {}).get("hooks") is not True or SERVER_NAME not in merged.get(
        "mcp_servers", {}
    ):
        raise SetupError("cannot extend config.toml safely; add the settings by hand")
    return out


# -- hosts ---------------------------------------------------------------------------------------


def setup_claude(
    *, project: Path | None, home: Path, program: str, endpoint: str | None = None
) -> list[Change]:
    """project: the repository root for --project, None for --user (whose files may name
    `program` by absolute path and carry the endpoint)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    extra = ["--endpoint", endpoint] if endpoint and project is None else []
    hook = command(program, "hook", "claude", *extra)
    base = project if project is not None else home
    settings_path = base / ".claude" / "settings.json"
    settings = _load_json(settings_path)
    merge_hooks(settings, HOOK_EVENTS, hook, "claude")
    changes = [_write(settings_path, _dump_json(settings), stamp)]
    if project is not None:
        mcp_path = project / ".mcp.json"
        mcp = _load_json(mcp_path)
        merge_mcp_json(mcp, program, ["mcp"])
        changes.append(_write(mcp_path, _dump_json(mcp), stamp))
    else:
        advice = f"claude mcp add --scope user {SERVER_NAME} -- {command(program, 'mcp', *extra)}"
        changes.append(
            Change(Path("~/.claude.json"), f"not edited; to add the MCP server run: {advice}")
        )
    return changes


def setup_codex(
    *, project: Path | None, codex_home: Path, program: str, endpoint: str | None = None
) -> list[Change]:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    extra = ["--endpoint", endpoint] if endpoint and project is None else []
    base = project / ".codex" if project is not None else codex_home
    hooks_path = base / "hooks.json"
    hooks = _load_json(hooks_path)
    merge_hooks(hooks, CODEX_HOOK_EVENTS, command(program, "hook", "codex", *extra), "codex")
    config_path = base / "config.toml"
    text = config_path.read_text(encoding="utf-8") if config_path.exists() else ""
    merged = merge_codex_toml(text, program, ["mcp", *extra])
    return [
        _write(hooks_path, _dump_json(hooks), stamp),
        _write(config_path, merged, stamp),
    ]


def codex_trust_advice(project: Path | None) -> list[str]:
    """What the user does once before Codex runs these hooks (setup never does it for them)."""
    where = f" in {project}" if project is not None else ""
    lines = [
        f"Codex runs new hooks only once you trust them: start `codex`{where} and choose "
        '"Trust all and continue" when it lists the powercontext hooks (a headless '
        "`codex exec` skips untrusted hooks without a word).",
    ]
    if project is not None:
        lines.append(
            "Codex reads a project's .codex/ only in a trusted project: answer yes when "
            "codex asks whether to trust this folder."
        )
    lines.append("`powercontext doctor codex` checks both.")
    return lines


def setup_gemini(
    *, project: Path | None, gemini_home: Path, program: str, endpoint: str | None = None
) -> list[Change]:
    """gemini_home: where Gemini keeps the user's .gemini/ ($GEMINI_CLI_HOME, else ~)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    extra = ["--endpoint", endpoint] if endpoint and project is None else []
    path = (project if project is not None else gemini_home) / ".gemini" / "settings.json"
    settings = _load_json(path)
    hook = {"name": HOOK_NAME, "timeout": GEMINI_HOOK_TIMEOUT_MS}
    merge_hooks(
        settings,
        GEMINI_HOOK_EVENTS,
        command(program, "hook", "gemini", *extra),
        "gemini",
        extra=hook,
    )
    merge_mcp_json(settings, program, ["mcp", *extra], typed=False)
    return [_write(path, _dump_json(settings), stamp)]


def gemini_hooks_off(settings: object) -> bool:
    """Whether a Gemini settings object turns every hook off (`hooksConfig.enabled: false`)."""
    config = settings.get("hooksConfig") if isinstance(settings, dict) else None
    return isinstance(config, dict) and config.get("enabled") is False


def gemini_advice(project: Path | None, gemini_home: Path) -> list[str]:
    """What the user does once before Gemini runs these hooks (setup never does it for them)."""
    where = f"in {project}" if project is not None else "in each repository you use it in"
    lines = [
        "Gemini CLI runs hooks (and reads a project's .gemini/) only in a folder you trusted, "
        f"and headless `gemini -p` refuses to start in any other: start `gemini` {where} once "
        'and choose "Trust folder".'
    ]
    if project is not None:
        lines.append(
            "Its first session there then lists the powercontext hooks once, as Gemini does "
            "for every new project hook: they are ours."
        )
    files = [gemini_home / ".gemini" / "settings.json"]
    if project is not None:
        files.insert(0, project / ".gemini" / "settings.json")
    for path in files:
        try:
            off = gemini_hooks_off(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            off = False
        if off:
            lines.append(
                f"warning: {path} turns every hook off (hooksConfig.enabled: false): remove "
                "it, or Gemini runs none of ours"
            )
    lines.append("`powercontext doctor gemini` checks it.")
    return lines


def program_path() -> str:
    """This `powercontext` by absolute path (for the user's own files: hosts start hooks
    without the user's virtualenv)."""
    import sys

    argv0 = Path(sys.argv[0])
    if argv0.name == PROGRAM and argv0.exists():
        return str(argv0.resolve())
    found = shutil.which(PROGRAM)
    return str(Path(found).resolve()) if found else PROGRAM


def on_path() -> bool:
    """Whether a host started from this shell finds `powercontext` on its PATH."""
    return shutil.which(PROGRAM) is not None
