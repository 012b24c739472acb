"""The client distribution (clients/python/pyproject.toml) stays free of the server.

A user who only calls a server installs powercontext-client: its dependencies must not grow the
server's (numpy, sqlite-vec, …), and its code must import nothing that they do not bring. The
server distribution depends on the client at exactly the same version and ships none of its
files. tests/e2e/test_wheel_install.py proves the same on real wheels; these checks are cheap.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLIENT_DIR = ROOT / "clients" / "python"
SERVER = tomllib.loads((ROOT / "pyproject.toml").read_text())
CLIENT = tomllib.loads((CLIENT_DIR / "pyproject.toml").read_text())
VERSION_FILE = CLIENT_DIR / "powercontext_client" / "_version.py"
CLIENT_NAME = "powercontext-client"

# What the client may depend on: the distribution each top-level import comes from. A new
# third-party import fails below until it is declared here and in clients/python/pyproject.toml.
BASE_MODULES = {
    "grpc": "grpcio",
    "grpc_health": "grpcio-health-checking",
    "google": "protobuf",  # google.protobuf; google.rpc comes from googleapis-common-protos
    "tomlkit": "tomlkit",
}
BASE_DISTRIBUTIONS = set(BASE_MODULES.values()) | {"googleapis-common-protos"}
# The `mcp` extra: the SDK and what it brings (mcp-types, pydantic), for mcp_bridge/ only.
MCP_MODULES = {"mcp", "mcp_types", "pydantic"}
FIRST_PARTY = {"powercontext", "powercontext_client"}
# Known server-only dependencies, named so that the failure says what went wrong.
SERVER_ONLY = {
    "numpy",
    "sqlite-vec",
    "sqlean-py",
    "prometheus-client",
    "threadpoolctl",
    "grpcio-reflection",
    "asyncmy",
    "onnxruntime",
    "tokenizers",
    "powercontext-memory",
}


def _name(requirement: str) -> str:
    """The normalized distribution name of a requirement string (PEP 503)."""
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    assert match, requirement
    return re.sub(r"[-_.]+", "-", match.group(1)).lower()


def _version() -> str:
    match = re.search(r'^__version__ = "([^"]+)"$', VERSION_FILE.read_text(), re.M)
    assert match, VERSION_FILE
    return match.group(1)


def _imports(path: Path) -> set[str]:
    """The top-level modules a file imports absolutely (relative imports are its own package)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def _sources() -> list[Path]:
    files = sorted((CLIENT_DIR / "powercontext_client").rglob("*.py"))
    files += sorted((ROOT / "generated" / "powercontext").rglob("*.py"))
    assert len(files) > 20, files  # the scan really found the packages
    return files


def test_client_dependencies_are_only_what_the_client_imports() -> None:
    base = {_name(r) for r in CLIENT["project"]["dependencies"]}
    assert base == BASE_DISTRIBUTIONS
    extras = CLIENT["project"]["optional-dependencies"]
    assert {name: {_name(r) for r in reqs} for name, reqs in extras.items()} == {"mcp": {"mcp"}}
    assert not (base | {"mcp"}) & SERVER_ONLY


def test_server_only_dependencies_are_really_outside_the_client() -> None:
    # The list above is not stale: each entry is the server's own dependency or extra.
    server = {_name(r) for r in SERVER["project"]["dependencies"]}
    for reqs in SERVER["project"]["optional-dependencies"].values():
        server |= {_name(r) for r in reqs}
    assert SERVER_ONLY - {"powercontext-memory"} <= server


def test_client_code_imports_only_its_declared_dependencies() -> None:
    allowed = set(sys.stdlib_module_names) | FIRST_PARTY | set(BASE_MODULES)
    for path in _sources():
        imported = _imports(path)
        in_bridge = "mcp_bridge" in path.parts
        extra = imported - allowed - (MCP_MODULES if in_bridge else set())
        assert not extra, f"{path.relative_to(ROOT)} imports {sorted(extra)}"


def test_the_import_check_catches_a_server_import(tmp_path: Path) -> None:
    stray = tmp_path / "stray.py"
    stray.write_text("import numpy\nfrom powercontext_memory import cli\nfrom . import core\n")
    assert _imports(stray) == {"numpy", "powercontext_memory"}


def test_server_pins_the_client_to_its_own_version() -> None:
    version = _version()
    pins = [r for r in SERVER["project"]["dependencies"] if _name(r) == CLIENT_NAME]
    assert pins == [f"{CLIENT_NAME}=={version}"]
    # The server's `mcp` extra is the client's, at the same version.
    assert SERVER["project"]["optional-dependencies"]["mcp"] == [f"{CLIENT_NAME}[mcp]=={version}"]
    assert CLIENT["tool"]["hatch"]["version"]["path"] == "powercontext_client/_version.py"
    assert (
        SERVER["tool"]["hatch"]["version"]["path"]
        == "clients/python/powercontext_client/_version.py"
    )


def test_each_command_and_import_root_belongs_to_one_distribution() -> None:
    assert SERVER["project"]["scripts"] == {"powercontext-memory": "powercontext_memory.cli:main"}
    assert CLIENT["project"]["scripts"] == {"powercontext": "powercontext_client.cli:main"}
    assert SERVER["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"] == [
        "service/powercontext_memory"
    ]
    assert CLIENT["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"] == [
        "powercontext_client"
    ]
