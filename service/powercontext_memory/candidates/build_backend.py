"""The build backend of a pyproject.toml, named by the distribution that provides it.

A backend module is named by its dotted path, not by its first part: `pdm.pep517.api` is
pdm-pep517 and `pdm.backend` is its successor pdm-backend; `poetry.core.masonry.api` is
poetry-core and `poetry.masonry.api` is Poetry itself. A module no known path covers is named
by the `[build-system] requires` entry that provides it (`uv_build` by `uv-build`), and
otherwise not named at all: the sentence then quotes the module alone.
"""

from __future__ import annotations

import re
from typing import Any, Final

# Dotted module prefix -> the distribution providing it; the longest prefix wins.
KNOWN: Final = {
    "hatchling": "Hatchling",
    "setuptools": "setuptools",
    "poetry.core": "poetry-core",
    "poetry.masonry": "Poetry",
    "pdm.backend": "pdm-backend",
    "pdm.pep517": "pdm-pep517",
    "flit_core": "Flit",
    "maturin": "maturin",
    "mesonpy": "meson-python",
    "scikit_build_core": "scikit-build-core",
    "uv_build": "uv_build",
}
_REQUIREMENT_NAME: Final = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_SEPARATORS: Final = re.compile(r"[-_.]+")


def sentence(backend: str, requires: Any) -> str:
    """ "The package is built with pdm-pep517 (build backend pdm.pep517.api)."."""
    module = backend.strip().split(":")[0]
    name = _known(module) or _required(module, requires)
    if name is None:
        return f"The package is built with the build backend {backend.strip()}."
    return f"The package is built with {name} (build backend {backend.strip()})."


def _known(module: str) -> str | None:
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        name = KNOWN.get(".".join(parts[:end]))
        if name is not None:
            return name
    return None


def _required(module: str, requires: Any) -> str | None:
    """The `requires` entry whose name is a dotted prefix of the module (`uv-build`)."""
    parts = module.split(".")
    prefixes = {_normal("-".join(parts[:end])) for end in range(1, len(parts) + 1)}
    for requirement in requires if isinstance(requires, list) else []:
        match = _REQUIREMENT_NAME.match(requirement) if isinstance(requirement, str) else None
        if match and _normal(match.group(1)) in prefixes:
            return match.group(1)
    return None


def _normal(name: str) -> str:
    return _SEPARATORS.sub("-", name.lower())
