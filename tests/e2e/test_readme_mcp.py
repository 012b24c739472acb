"""The Python MCP example of docs/agents.md, run as written (top-level await, as in an async
function) against a real server: in a repository with a memory it prints the hits; in a directory
without one it prints the tool's error instead of failing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.doc_blocks import blocks, section

from ..serving import CLIENT_COMMAND, serve_process, server_env

DOC = "docs/agents.md"

RUNNER = """
import ast, asyncio, sys
source = sys.stdin.read()
code = compile(source, "agents.md", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
result = eval(code, {"__name__": "__main__"})
if result is not None:
    asyncio.run(result)
"""


def test_the_mcp_python_example_runs_as_written(tmp_path: Path) -> None:
    (example,) = blocks(section(DOC, "mcp-python"), "python")
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "AGENTS.md").write_text(
        "# Rules\n\n- Docs must be built with `make docs`, never by hand.\n"
    )
    with serve_process(tmp_path / "memory.sqlite3") as served:
        env = server_env(
            {
                "POWERCONTEXT_ENDPOINT": f"127.0.0.1:{served.port}",
                "POWERCONTEXT_RUNTIME_HOME": str(tmp_path / "state"),
                "PATH": f"{Path(CLIENT_COMMAND).parent}:/usr/bin:/bin",
            }
        )
        boot = subprocess.run(
            [CLIENT_COMMAND, "bootstrap"], cwd=repo, env=env, capture_output=True, text=True
        )
        assert boot.returncode == 0, boot.stderr

        def run(cwd: Path) -> str:
            done = subprocess.run(
                [sys.executable, "-c", RUNNER],
                input=example,
                cwd=cwd,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert done.returncode == 0, done.stderr
            return done.stdout

        assert "make docs" in run(repo)
        outside = tmp_path / "elsewhere"
        outside.mkdir()
        assert run(outside).startswith("NO_MEMORY (FAILED_PRECONDITION)")
