"""A shell code block of commands whose comments name them, as AGENTS.md / CLAUDE.md files often
write their workflow, with or without a lead-in:

    # Lint and style                          Lint and style — Check for issues and fix
    # Check for issues and fix automatically  automatically: `python -m ruff check . --fix`;
    python -m ruff check . --fix              `python -m ruff format .`
    python -m ruff format .
                                              Typecheck: `python -m mypy src/`
    # Typecheck
    python -m mypy src/

Each group — the comment lines and the commands under them, up to a blank line or the next
comment — is one rule, in the comment's words; a command with a comment of its own after it
(`uv run pytest  # run tests`) is told with it ("`uv run pytest` (run tests)"), or alone
("run tests: `uv run pytest`") when no comment names its group. A comment holding a modal
("don't extract rules here") is a remark, not a name. Nothing is inferred: a command no comment
names makes no rule. A block that holds anything but commands (output, code) makes
none, and neither does a group that sets up a person's checkout or machine or opens an
interactive UI.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Final

from .commands import looks_like_command
from .for_a_person import for_a_person
from .markdown_blocks import Block
from .modality import emphasised, marker_kind
from .refusals import SETUP_COMMAND
from .script_lines import SHELL_INFO, Line, read
from .text import clip

MAX_GROUP_CHARS: Final = 600


def named(block: Block) -> bool:
    """A shell code block of commands only, at least one of them named by a comment."""
    if block.kind != "code" or block.info.lower() not in SHELL_INFO:
        return False
    lines = read(block.lines)
    commands = [line.command for line in lines if line.command]
    if not commands or not all(map(looks_like_command, commands)):
        return False
    return any(line.comment for line in lines)


def rules(block: Block) -> Iterator[str]:
    """The block's groups of commands, each in its comment's words (see the module text)."""
    if not named(block):
        return
    lines = read(block.lines)
    if any(SETUP_COMMAND.search(line.command) for line in lines):
        return  # a person's setup of a checkout or a machine, step by step
    for title, group in _groups(lines):
        if any(for_a_person(f"{line.command} {line.comment}") for line in group):
            continue
        if title:
            quoted = "; ".join(_with_comment(line) for line in group)
            yield clip(f"{title}: {quoted}", MAX_GROUP_CHARS)
        else:
            for line in group:
                if _names(line.comment):
                    yield f"{_label(line.comment)}: `{line.command}`"


def _groups(lines: Sequence[Line]) -> Iterator[tuple[str, list[Line]]]:
    """(the comment lines above a group, joined; the group's command lines)."""
    title: list[str] = []
    group: list[Line] = []
    for line in lines:
        if line.command:
            group.append(line)
            continue
        if group or line.blank:
            if group:
                yield " — ".join(title), group
            title, group = [], []
        if _names(line.comment):
            title.append(_label(line.comment))
    if group:
        yield " — ".join(title), group


def _names(comment: str) -> bool:
    """A comment that can name a command: not empty, and no remark of its own — a comment
    holding a modal ("don't extract rules here", "must be run first") says something about
    the block, it is not the command's name."""
    return bool(comment) and marker_kind(comment) is None and not emphasised(comment)


def _label(comment: str) -> str:
    """A comment as the name of what follows it ("Run tests." -> "Run tests"; "etc." stays)."""
    label = comment.rstrip(" :")
    return label if label.endswith("etc.") else label.rstrip(" .")


def _with_comment(line: Line) -> str:
    return f"`{line.command}`" + (f" ({line.comment})" if line.comment else "")
