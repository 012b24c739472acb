"""`powercontext`, the client CLI, run as a subprocess against a real server process, as a user
runs it: docs/walkthrough.md's worked example, output formats, input forms, exit codes,
one-line errors."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..serving import CLIENT_COMMAND, Lines, Served, serve_process, server_env

QUERY = "修改文档前需要知道哪些构建和验证约定？"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    database = tmp_path_factory.mktemp("cli") / "memory.sqlite3"
    with serve_process(database, "--progress-interval", "0.2") as running:
        yield running


class Cli:
    """Runs `powercontext ARGS` with POWERCONTEXT_ENDPOINT pointing at the server."""

    def __init__(self, port: int, cwd: Path) -> None:
        self.env = server_env({"POWERCONTEXT_ENDPOINT": f"127.0.0.1:{port}"})
        self.cwd = cwd

    def __call__(
        self, *args: str, stdin: str | None = None, code: int = 0
    ) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [CLIENT_COMMAND, *args],
            input=stdin,
            capture_output=True,
            text=True,
            env=self.env,
            cwd=self.cwd,
            timeout=60,
        )
        assert done.returncode == code, (args, done.returncode, done.stdout, done.stderr)
        return done

    def json(self, *args: str, stdin: str | None = None) -> Any:
        return json.loads(self("-o", "json", *args, stdin=stdin).stdout)

    def error(self, code: int, *args: str, stdin: str | None = None) -> str:
        """The one stderr line of a failed command (never a traceback)."""
        done = self(*args, stdin=stdin, code=code)
        lines = done.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
        assert "Traceback" not in done.stderr
        return lines[0]


@pytest.fixture
def cli(served: Served, tmp_path: Path) -> Cli:
    return Cli(served.port, tmp_path)


def _put(cli: Cli, tmp_path: Path, name: str, text: str, kind: str = "file") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    stored = cli.json("sources", "put", str(path), "--kind", kind, "--uri", f"repo://{name}")
    source = stored["source"]
    return f"{source['source_id']}:{source['content_hash']}"


def test_the_rfc_worked_example(cli: Cli, tmp_path: Path) -> None:
    outcome = _put(
        cli, tmp_path, "outcome.txt", "Task 001: how powercontext is built.", "task_outcome"
    )
    agents = _put(
        cli,
        tmp_path,
        "AGENTS.md",
        "- Dependencies: uv. Build backend: Hatchling.\n"
        "- Run make test; make check before review.\n"
        "- site/ is generated output: never edit it as source.\n",
    )
    pyproject = _put(
        cli, tmp_path, "pyproject.toml", '[build-system]\nbuild-backend = "hatchling.build"\n'
    )
    makefile = _put(cli, tmp_path, "Makefile", "test:\ncheck:\ndocs-test:\n")

    def cites(*refs: str) -> list[dict[str, str]]:
        return [dict(zip(("source_id", "content_hash"), r.split(":"), strict=True)) for r in refs]

    entries = [
        {
            "kind": "fact",
            "text": "powercontext 使用 uv 管理依赖并使用 Hatchling 构建。",
            "sources": cites(agents, pyproject),
        },
        {
            "kind": "preference",
            "text": "验证约定：常规代码变更运行 make test；评审前运行 make check。",
            "sources": cites(agents, makefile),
        },
        {
            "kind": "constraint",
            "text": "site/ 是生成输出，不作为源材料修改。",
            "sources": cites(agents),
        },
    ]
    jsonl = "\n".join(json.dumps(e, ensure_ascii=False) for e in entries) + "\n"
    r1 = cli.json(
        "create",
        "--jsonl",
        "-",
        *(f"--source={s}" for s in (outcome, agents, pyproject, makefile)),
        stdin=jsonl,
    )
    memory = r1["memory"]["artifact_id"]
    assert (
        r1["memory"]["revision"] == "1"
        and [c["op"] for c in r1["changes"]] == ["CHANGE_OP_ADD"] * 3
    )
    validation, site = r1["results"][1], r1["results"][2]

    # Revision 2: the user's correction, as a revise of the validation entry citing the note.
    note = _put(
        cli,
        tmp_path,
        "note.txt",
        "改文档时不用跑完整 make test，优先跑 make docs-test。",
        "user_note",
    )
    corrected = (
        "验证约定：常规代码变更运行 make test；仅文档变更优先运行 make docs-test；"
        "评审前运行 make check。"
    )
    r2 = cli.json(
        "revise",
        memory,
        validation["entry_id"],
        corrected,
        "--source",
        note.split(":")[0],
        "--reason",
        "user_correction",
    )
    assert r2["memory"]["revision"] == "2"
    (change,) = r2["changes"]
    assert change["op"] == "CHANGE_OP_REVISE" and change["reason"] == "user_correction"
    assert change["from_entry_version_id"] == validation["entry_version_id"]
    validation_v2 = change["to_entry_version_id"]

    # A writer still on revision 1 is refused: exit 4, one line with the reason and the head.
    line = cli.error(
        4, "remember", f"{memory}@1", "构建前先运行 uv sync。", "--kind", "working_note"
    )
    assert "REVISION_CONFLICT (ABORTED)" in line and "[head 2]" in line

    # Revision 3: forget the site/ constraint (its version is kept).
    r3 = cli("forget", memory, site["entry_id"], "--reason", "user_requested").stdout
    assert r3.startswith(f"{memory}@3  new revision") and "deactivate" in r3
    assert site["entry_version_id"] in r3 and "(user_requested)" in r3

    head = cli("get", memory).stdout.splitlines()  # a pipe: the texts, and their citations
    assert f"memory    {memory}@3 (head)" in head and "entries   2 active, 1 inactive" in head
    at = head.index("  constraint (inactive)")
    assert head[at + 1 :] == [
        "    site/ 是生成输出，不作为源材料修改。",
        f"    {memory}@3/{site['entry_id']}/{site['entry_version_id']}",
    ]

    found = cli("search", QUERY, "-m", memory, "--mode", "fts").stdout.splitlines()
    assert found[0] == "mode fts, 1 hit(s)"
    citation = f"{memory}@3/{validation['entry_id']}/{validation_v2}"
    assert found[1].startswith("1. ") and "fts" in found[1] and found[1].endswith(citation)
    assert "make docs-test" in found[2]

    line = cli.error(5, "search", QUERY, "-m", f"{memory}@2")
    assert "MEMORY_NOT_AT_HEAD (FAILED_PRECONDITION)" in line

    history = [json.loads(x) for x in cli("-o", "json", "changes", memory).stdout.splitlines()]
    assert [h["memory_ref"]["revision"] for h in history] == ["1", "2", "3"]
    assert [c["op"] for c in history[2]["changes"]] == ["CHANGE_OP_DEACTIVATE"]

    # The handoff citation of revision 2 verifies and shows version 2 with its evidence.
    cited = cli("expand", f"{memory}@2/{validation['entry_id']}/{validation_v2}").stdout
    assert "version 2 (active), kind preference" in cited and "make docs-test" in cited
    assert f"previous {validation['entry_version_id']}" in cited
    assert cited.count("  source   ") == 3
    line = cli.error(3, "expand", f"{memory}@1/{validation['entry_id']}/{validation_v2}")
    assert "CITATION_MISMATCH (NOT_FOUND)" in line


def test_remember_from_arguments_files_and_json_lines(cli: Cli, tmp_path: Path) -> None:
    memory = cli.json("create", "first")["memory"]["artifact_id"]
    (tmp_path / "note.md").write_text("from a file\n", encoding="utf-8")
    added = cli.json(
        "remember",
        memory,
        "second",
        "third",
        "--kind",
        "decision",
        "--file",
        "note.md",
        "--jsonl",
        "-",
        stdin='{"kind": "constraint", "text": "from stdin"}\n\n{"kind": "fact", "text": "first"}\n',
    )
    outcomes = [r["outcome"] for r in added["results"]]
    assert outcomes == ["ENTRY_OUTCOME_ADDED"] * 4 + ["ENTRY_OUTCOME_DUPLICATE"]
    texts = cli.json("get", memory, *[r["entry_id"] for r in added["results"][:4]])
    assert [(e["version"]["kind"], e["version"]["text"]) for e in texts["entries"]] == [
        ("decision", "second"),
        ("decision", "third"),
        ("decision", "from a file"),
        ("constraint", "from stdin"),
    ]
    line = cli.error(2, "remember", memory, "--jsonl", "-", stdin='{"kind": 7}\n')
    assert "-:1: not an EntryInput" in line
    line = cli.error(2, "remember", memory, "   ")
    assert "INVALID_ARGUMENT" in line and "entries[0].text" in line


def test_forget_reactivate_organize_and_unknown_entries(cli: Cli) -> None:
    created = cli.json("create", "keep", "drop", "drop again")
    memory = created["memory"]["artifact_id"]
    drop = created["results"][1]["entry_id"]
    cli("forget", memory, drop)
    assert cli.json("forget", memory, drop)["changed"] is False  # idempotent, same revision
    assert cli.json("reactivate", memory, drop)["memory"]["revision"] == "3"
    organized = cli.json("organize", memory, "--step", "dedupe")
    assert organized["changed"] is False  # the texts differ: nothing to dedupe
    line = cli.error(3, "forget", memory, "mem_ent_" + "0" * 32)
    assert "ENTRY_NOT_IN_MEMORY" in line


def test_revise_refuses_to_overwrite_a_concurrent_revision(cli: Cli) -> None:
    created = cli.json("create", "v1 text")
    memory = created["memory"]["artifact_id"]
    entry = created["results"][0]
    cli("revise", memory, entry["entry_id"], "someone else's v2")
    line = cli.error(
        4, "revise", memory, entry["entry_id"], "my v2", "--version", entry["entry_version_id"]
    )
    assert "someone else revised it" in line
    assert cli.json("get", memory, entry["entry_id"])["entries"][0]["version"]["text"] == (
        "someone else's v2"
    )


def test_follow_prints_each_new_revision(cli: Cli) -> None:
    memory = cli.json("create", "r1")["memory"]["artifact_id"]
    follower = subprocess.Popen(
        [CLIENT_COMMAND, "-o", "json", "changes", memory, "--follow"],
        stdout=subprocess.PIPE,
        text=True,
        env=cli.env,
        cwd=cli.cwd,
    )
    try:
        assert follower.stdout is not None
        out = Lines(follower.stdout)  # a follower that prints nothing fails, never hangs
        first = json.loads(out.next_line())
        cli("remember", memory, "r2")
        second = json.loads(out.next_line())
        assert [first["memory_ref"]["revision"], second["memory_ref"]["revision"]] == ["1", "2"]
    finally:
        follower.send_signal(signal.SIGINT)
        try:
            assert follower.wait(timeout=10) == 130
        finally:
            follower.kill()  # only if it ignored SIGINT
            follower.wait()


def test_sources_capabilities_health_and_exit_codes(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "raw.bin").write_bytes(b"\x00\x01evidence\xff")
    stored = cli("sources", "put", "raw.bin", "--kind", "file", "--meta", "commit=abc123").stdout
    source_id = stored.split(":")[0]
    assert stored.splitlines()[0].endswith("created") and "commit = abc123" in stored
    again = cli("sources", "put", "raw.bin", "--kind", "file", "--meta", "commit=abc123").stdout
    assert again.splitlines()[0].endswith("already stored")
    raw = subprocess.run(
        [CLIENT_COMMAND, "sources", "get", source_id, "--content"],
        capture_output=True,
        env=cli.env,
        timeout=60,
        check=True,
    )
    assert raw.stdout == b"\x00\x01evidence\xff"
    memory = cli.json("create", "Evidence is kept as sources.")["memory"]["artifact_id"]
    recorded = cli.json(
        "sources", "put", "raw.bin", "--kind", "file", "--meta", "commit=abc123", "--memory", memory
    )  # the same record, now recorded for the memory as well: the same source
    assert recorded["source"]["source_id"] == source_id and not recorded.get("created")
    assert "MEMORY_NOT_FOUND (NOT_FOUND)" in cli.error(
        3, "sources", "put", "raw.bin", "--kind", "file", "--memory", "mem_art_" + "9" * 32
    )

    caps = cli.json("capabilities")["capabilities"]
    assert caps["backend"] == "sqlite" and caps["fts"] is True
    text = cli("capabilities").stdout
    assert "vector      no (no embedding model is configured)" in text
    assert "adapters    git-change, pyproject, build-targets, agent-rules" in text
    assert cli("health").stdout == "SERVING\n"
    assert cli.json("health") == {"status": "SERVING"}

    assert "MEMORY_NOT_FOUND (NOT_FOUND)" in cli.error(3, "get", "mem_art_" + "9" * 32)
    assert "CAPABILITY_NOT_SUPPORTED" in cli.error(
        5, "search", "x", "-m", cli.json("create", "x")["memory"]["artifact_id"], "--mode", "vector"
    )
    unreachable = cli.error(7, "--endpoint", "127.0.0.1:1", "health", "--timeout", "2")
    assert "UNAVAILABLE" in unreachable
    usage = cli("get", code=2)  # argparse: a missing argument
    assert "usage: powercontext get" in usage.stderr


def _imported(cli: Cli, statement: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", statement],
        capture_output=True,
        text=True,
        env=cli.env,
        timeout=60,
        check=True,
    )
    return {line.split("|")[-1].strip() for line in done.stderr.splitlines()}


def test_the_cli_does_not_load_the_server(cli: Cli) -> None:
    """Start-up time is measured by make bench; this keeps its main cost out: the CLI imports
    the client and the generated code only, never the server's modules or NumPy."""
    imported = _imported(cli, "import powercontext_client.cli.app")
    assert "powercontext_client.cli.app" in imported
    assert not any(name.startswith(("powercontext_memory", "numpy")) for name in imported)


def test_the_hook_path_loads_only_what_a_hook_needs(cli: Cli) -> None:
    """`powercontext hook` runs once per agent event, in a new process: it skips the other
    commands and the asyncio client (make bench measures the time)."""
    imported = _imported(
        cli, "from powercontext_client.cli import runtime; import powercontext_client.runtime.hooks"
    )
    assert "powercontext_client.runtime.hooks" in imported
    for heavy in ("powercontext_client.cli.app", "powercontext_client.aio", "numpy"):
        assert heavy not in imported
    assert not any(name.startswith("powercontext_memory") for name in imported)
