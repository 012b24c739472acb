"""Small text helpers the adapters share: one line, bounded, never cut inside a character."""

from __future__ import annotations

import re
from typing import Final

_SPACE: Final = re.compile(r"\s+")
ELLIPSIS: Final = "…"


def one_line(text: str) -> str:
    """Whitespace runs (newlines included) become one space; trimmed."""
    return _SPACE.sub(" ", text).strip()


def clip(text: str, limit: int) -> str:
    """At most `limit` characters; a cut text ends with an ellipsis (counted in the limit)."""
    if len(text) <= limit:
        return text
    return text[: max(limit - 1, 0)].rstrip() + ELLIPSIS


def join_bounded(items: list[str], limit: int, sep: str = ", ") -> str:
    """The first `limit` items joined; more are counted ("a, b (+3 more)")."""
    shown = sep.join(items[:limit])
    return shown if len(items) <= limit else f"{shown} (+{len(items) - limit} more)"


def has_cjk(text: str) -> bool:
    return any("\u3400" <= c <= "\u9fff" or "\uf900" <= c <= "\ufaff" for c in text)
