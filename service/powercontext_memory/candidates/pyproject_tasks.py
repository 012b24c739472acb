"""Task runners configured in pyproject.toml, as Tasks per runner: poe ([tool.poe.tasks]),
Hatch environment scripts ([tool.hatch.envs.<env>.scripts], run as `hatch run <env>:<name>`),
PDM scripts ([tool.pdm.scripts]), taskipy ([tool.taskipy.tasks]) and tox ([tool.tox]).

Pure: only the parsed TOML is read. A task's command is quoted as written; a poe sequence of
task names runs those tasks; a poe/PDM script (a Python callable) is quoted as `script …`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from typing import Any, Final

from ..domain.models import Source
from . import tox_envs
from .sources import text_of
from .tasks import Task
from .text import clip, one_line

MAX_SCRIPT_CHARS: Final = 80


def tasks(data: dict[str, Any]) -> dict[str, list[Task]]:
    """Runner name (tasks.RUNNERS) -> its tasks, in file order; runners without tasks omitted."""
    tool = data.get("tool")
    if not isinstance(tool, dict):
        return {}
    found = {
        "poe": list(_poe(_table(tool, "poe", "tasks"))),
        "hatch": list(_hatch(_table(tool, "hatch", "envs"))),
        "pdm": list(_simple(_table(tool, "pdm", "scripts"), skip=("_",))),
        "taskipy": list(_simple(_table(tool, "taskipy", "tasks"))),
        "tox": tox_envs.from_toml(_table(tool, "tox")),
    }
    return {runner: found_tasks for runner, found_tasks in found.items() if found_tasks}


def defines(source: Source, runner: str, name: str) -> bool:
    """Whether this pyproject.toml defines the task `name` of `runner` (for rules naming it)."""
    try:
        data = tomllib.loads(text_of(source) or "")
    except tomllib.TOMLDecodeError:
        return False
    return any(t.name == name for t in tasks(data).get(runner, []))


def _table(tool: dict[str, Any], *keys: str) -> dict[str, Any]:
    value: Any = tool
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value if isinstance(value, dict) else {}


def _poe(table: dict[str, Any]) -> Iterator[Task]:
    for name, spec in table.items():
        if isinstance(spec, str | list):
            spec = {"cmd": spec} if isinstance(spec, str) else {"sequence": spec}
        if not isinstance(spec, dict):
            continue
        deps = tuple(d for d in spec.get("deps", []) if isinstance(d, str))
        doc = spec.get("help") if isinstance(spec.get("help"), str) else ""
        yield Task(name, deps, tuple(_poe_commands(spec)), one_line(doc or ""))


def _poe_commands(spec: dict[str, Any]) -> Iterator[str]:
    for key in ("cmd", "shell", "expr"):
        if isinstance(spec.get(key), str):
            yield one_line(spec[key])
    if isinstance(spec.get("script"), str):
        yield "script " + clip(one_line(spec["script"]), MAX_SCRIPT_CHARS)
    if isinstance(spec.get("ref"), str):
        yield "poe " + one_line(spec["ref"])
    for item in spec.get("sequence", []) if isinstance(spec.get("sequence"), list) else []:
        if isinstance(item, str):
            yield "poe " + item  # a sequence's strings name tasks
        elif isinstance(item, dict):
            yield from _poe_commands({k: v for k, v in item.items() if k != "sequence"})


def _hatch(envs: dict[str, Any]) -> Iterator[Task]:
    for env, config in envs.items():
        scripts = config.get("scripts") if isinstance(config, dict) else None
        if not isinstance(scripts, dict):
            continue
        prefix = "" if env == "default" else f"{env}:"
        for name, script in scripts.items():
            lines = [script] if isinstance(script, str) else script
            if isinstance(lines, list):
                commands = tuple(one_line(c) for c in lines if isinstance(c, str))
                yield Task(prefix + name, (), commands)


def _simple(table: dict[str, Any], skip: tuple[str, ...] = ()) -> Iterator[Task]:
    """PDM scripts and taskipy tasks: a string, or a table with cmd/shell/call and help."""
    for name, spec in table.items():
        if name.startswith(skip) or name in ("_", "pre_build", "post_build"):
            continue
        if isinstance(spec, str):
            yield Task(name, (), (one_line(spec),))
        elif isinstance(spec, dict):
            command = spec.get("cmd") or spec.get("shell") or spec.get("call")
            doc = spec.get("help") if isinstance(spec.get("help"), str) else ""
            if isinstance(command, list):
                command = " ".join(str(c) for c in command)
            if isinstance(command, str):
                yield Task(name, (), (one_line(command),), one_line(doc or ""))
