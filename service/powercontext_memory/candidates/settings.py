"""How a tool's configuration is told: the few settings that change how code is written or
checked, as plain values, never a dump of the table. Shared by pyproject.toml's [tool.X] tables
and the INI sections of tox.ini.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from .text import clip, join_bounded

MAX_LIST_ITEMS: Final = 8
MAX_VALUE_CHARS: Final = 80
PYTEST_KEYS: Final = ("testpaths", "addopts", "asyncio_mode", "minversion")


def pytest_settings(options: Mapping[str, Any]) -> list[str]:
    """pytest's settings worth knowing, from [tool.pytest.ini_options] or an INI [pytest]."""
    settings = [f"{k} = {value(options[k])}" for k in PYTEST_KEYS if k in options]
    warnings = options.get("filterwarnings") or []
    lines = warnings.split("\n") if isinstance(warnings, str) else warnings
    if "error" in [w.strip() for w in lines if isinstance(w, str)]:
        settings.append("filterwarnings = error (warnings fail the tests)")
    return settings


def plain(setting: Any) -> bool:
    """A scalar or a list of scalars (a table is not told)."""
    if isinstance(setting, list):
        return all(isinstance(v, str | int | float | bool) for v in setting)
    return isinstance(setting, str | int | float | bool)


def value(setting: Any) -> str:
    if isinstance(setting, bool):
        return "true" if setting else "false"
    if isinstance(setting, list):
        return clip(join_bounded([value(v) for v in setting], MAX_LIST_ITEMS), MAX_VALUE_CHARS)
    return clip(" ".join(str(setting).split()), MAX_VALUE_CHARS)
