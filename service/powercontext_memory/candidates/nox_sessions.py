"""noxfile.py sessions as Tasks: the session's name (or `@nox.session(name=…)`), the first
paragraph of its docstring, and the commands its `session.run(…)` calls run, their literal
arguments quoted and every computed one shown as "…".

A session that hands its `session` to a helper function of the file runs that helper's commands
(`tests_impl(session)`); one that calls another session runs it (`lint(session)`: "`nox -s
lint`").

A starred argument is unpacked when its list is written in the file: a local name assigned a
list or tuple literal (`args = ["pytest", "-x"]`; `session.run(*args)`), or a call of a
function of the file that returns one (`session.run(*sphinx_command("html"))`). Nothing is
executed: the file is parsed, never imported.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from .tasks import Task
from .text import one_line

_Function = ast.FunctionDef | ast.AsyncFunctionDef
_MAX_DEPTH = 4  # sessions and helpers handing the session on, nested


def parse(text: str) -> Iterator[Task]:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return
    helpers = {n.name: n for n in tree.body if isinstance(n, _Function)}
    sessions = {
        n.name: name
        for n in tree.body
        if isinstance(n, ast.FunctionDef) and (name := _session_name(n)) is not None
    }
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or node.name not in sessions:
            continue
        commands = _commands(node, helpers, sessions, frozenset({node.name}))
        doc = one_line((ast.get_docstring(node) or "").split("\n\n")[0])
        yield Task(sessions[node.name], (), tuple(dict.fromkeys(c for c in commands if c)), doc)


def _commands(
    node: _Function, helpers: dict[str, _Function], sessions: dict[str, str], seen: frozenset[str]
) -> list[str]:
    """The commands `node` runs, in order: its `session.run(…)` calls, a helper function of the
    file it hands the session to (`tests_impl(session)`: that helper's commands), and another
    session it calls (`lint(session)`: `nox -s lint`)."""
    lists = _lists(node, {**helpers, **_nested(node)})
    session = node.args.args[0].arg if node.args.args else "session"
    out: list[str] = []
    for call in _calls_in_order(node):
        if isinstance(call.func, ast.Attribute) and call.func.attr == "run":
            out.append(" ".join(word for arg in call.args for word in _words(arg, lists)))
            continue
        callee = call.func.id if isinstance(call.func, ast.Name) else ""
        if callee not in helpers or callee in seen or not _passes(call, session):
            continue
        if callee in sessions:
            out.append(f"nox -s {sessions[callee]}")
        elif len(seen) < _MAX_DEPTH:
            out.extend(_commands(helpers[callee], helpers, sessions, seen | {callee}))
    return out


def _calls_in_order(node: _Function) -> list[ast.Call]:
    calls = [c for c in ast.walk(node) if isinstance(c, ast.Call)]
    return sorted(calls, key=lambda c: (c.lineno, c.col_offset))


def _passes(call: ast.Call, session: str) -> bool:
    """The call hands the session on (`tests_impl(session, extras=…)`)."""
    return any(isinstance(a, ast.Name) and a.id == session for a in call.args)


def _session_name(node: ast.FunctionDef) -> str | None:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Attribute) and target.attr == "session":
            if isinstance(decorator, ast.Call):
                for keyword in decorator.keywords:
                    if keyword.arg == "name" and isinstance(keyword.value, ast.Constant):
                        return str(keyword.value.value)
            return node.name
    return None


def _nested(node: _Function) -> dict[str, _Function]:
    return {n.name: n for n in ast.walk(node) if isinstance(n, _Function) and n is not node}


def _lists(node: _Function, functions: dict[str, _Function]) -> dict[str, list[ast.expr]]:
    """Local names bound to a list literal, and functions (key "name()") that return one."""
    out: dict[str, list[ast.expr]] = {}
    for statement in ast.walk(node):
        if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.List | ast.Tuple):
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    out[target.id] = list(statement.value.elts)
    for name, function in functions.items():
        returned = [
            r.value
            for r in ast.walk(function)
            if isinstance(r, ast.Return) and isinstance(r.value, ast.List | ast.Tuple)
        ]
        if len(returned) == 1:
            out[name + "()"] = list(returned[0].elts)
    return out


def _words(arg: ast.expr, lists: dict[str, list[ast.expr]]) -> list[str]:
    if not isinstance(arg, ast.Starred):
        return [_literal(arg)]
    value = arg.value
    key = value.id if isinstance(value, ast.Name) else None
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        key = value.func.id + "()"
    if isinstance(value, ast.List | ast.Tuple):
        return [_literal(e) for e in value.elts]
    return [_literal(e) for e in lists[key]] if key in lists else ["…"]


def _literal(node: ast.expr) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return f'"{node.value}"' if " " in node.value else node.value
    return "…"
