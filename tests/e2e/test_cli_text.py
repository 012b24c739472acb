"""What `powercontext get`, `list`, `changes` and `memories` show a person, run as a user runs
them against a real server process: in a terminal (a pseudo-terminal here) the remembered text,
kind, tags and description, what each revision changed (old text → new text, the reason), ids
only with --ids; in a pipe the ids as well (--no-ids leaves them out); every line once; and
`-o json` as it was."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.doc_blocks import blocks, elided_match, section

from ..serving import CLIENT_COMMAND, Lines, Served, serve_process
from .test_powercontext_cli import Cli

RUN_SECONDS = 60.0
BUILD = "Builds use uv; the backend is Hatchling."
TESTS_OLD = "Run make test before every commit."
TESTS_NEW = "Run make test before every push.\nRun make check before review."
SITE = "site/ is generated output: never edit it."
ID_PREFIXES = ("mem_ent_", "mem_ver_")
WHEN = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    database = tmp_path_factory.mktemp("cli-text") / "memory.sqlite3"
    with serve_process(database) as running:
        yield running


class TerminalCli(Cli):
    def terminal(self, *args: str, code: int = 0) -> str:
        """stdout of `powercontext ARGS` run with a terminal as stdout (stderr must be empty)."""
        main, child = pty.openpty()
        with subprocess.Popen(
            [CLIENT_COMMAND, *args],
            stdin=subprocess.DEVNULL,
            stdout=child,
            stderr=subprocess.PIPE,
            env=self.env,
            cwd=self.cwd,
        ) as proc:
            os.close(child)
            chunks = []
            until = time.monotonic() + RUN_SECONDS
            while True:
                ready, _, _ = select.select([main], [], [], max(0.0, until - time.monotonic()))
                if not ready:
                    proc.kill()
                    raise AssertionError(f"{args} still running after {RUN_SECONDS} s")
                try:
                    chunk = os.read(main, 65536)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not chunk:
                    break
                chunks.append(chunk)
            assert proc.stderr is not None
            errors = proc.stderr.read().decode()
            assert proc.wait(timeout=RUN_SECONDS) == code, (args, errors)
        os.close(main)
        assert errors == "", errors  # nothing goes to both streams, nothing extra to stderr
        return b"".join(chunks).decode().replace("\r\n", "\n")


@pytest.fixture
def cli(served: Served, tmp_path: Path) -> TerminalCli:
    return TerminalCli(served.port, tmp_path)


def _once(text: str) -> list[str]:
    """The lines of `text`, after checking that none is printed twice."""
    lines = text.splitlines()
    twice = [line for line, count in Counter(lines).items() if count > 1]
    assert not twice, f"printed more than once: {twice}\n{text}"
    return lines


def _once_per_revision(text: str) -> list[str]:
    """The lines of a history, after checking that no revision prints a line twice (an entry's
    text is shown again by each later revision that changes it)."""
    lines = text.splitlines()
    starts = [n for n, line in enumerate(lines) if line.startswith("revision ")] + [len(lines)]
    assert starts[0] == 0, text
    for start, end in zip(starts, starts[1:], strict=False):
        _once("\n".join(lines[start:end]))
    return lines


def _no_ids(text: str) -> None:
    assert not any(prefix in text for prefix in ID_PREFIXES), text


def _history(cli: TerminalCli) -> tuple[str, dict[str, str]]:
    """A memory of five revisions: create, add (with a description), revise, add, forget."""
    created = cli.json("create", BUILD, "--kind", "fact", "--tag", "build")
    memory = created["memory"]["artifact_id"]
    build = created["results"][0]
    tests = cli.json(
        "remember", memory, TESTS_OLD, "--kind", "preference", "--description", "when tests run"
    )["results"][0]
    revised = cli.json(
        "revise", memory, tests["entry_id"], TESTS_NEW, "--reason", "user_correction"
    )
    site = cli.json("remember", memory, SITE, "--kind", "constraint")["results"][0]
    cli("forget", memory, site["entry_id"], "--reason", "user_requested")
    return memory, {
        "build": build["entry_id"],
        "build_version": build["entry_version_id"],
        "tests": tests["entry_id"],
        "tests_old": tests["entry_version_id"],
        "tests_new": revised["changes"][0]["to_entry_version_id"],
        "site": site["entry_id"],
    }


def test_get_shows_the_remembered_text_and_ids_only_with_the_flag(cli: TerminalCli) -> None:
    memory, ids = _history(cli)
    shown = cli.terminal("get", memory)
    lines = _once(shown)
    _no_ids(shown)
    assert "hash" not in shown
    assert lines[0] == f"memory    {memory}@5 (head)"
    assert "entries   2 active, 1 inactive" in lines
    at = lines.index("  fact  [build]")
    assert lines[at + 1] == f"    {BUILD}"
    at = lines.index("  preference")  # its description derived from the new text: not shown
    assert lines[at + 1 : at + 3] == [f"    {line}" for line in TESTS_NEW.splitlines()]
    assert lines[-2:] == ["  constraint (inactive)", f"    {SITE}"]  # active entries first

    with_ids = _once(cli.terminal("get", memory, "--ids"))
    assert f"    {memory}@5/{ids['build']}/{ids['build_version']}" in with_ids
    assert any(line.startswith("hash      ") for line in with_ids)

    one = _once(cli.terminal("get", memory, ids["tests"]))
    assert one == ["preference  version 2", *(f"  {line}" for line in TESTS_NEW.splitlines())]
    one_with_ids = _once(cli.terminal("get", memory, ids["tests"], "--ids"))
    assert f"  previous {ids['tests_old']}" in one_with_ids


def test_changes_show_what_changed_old_text_then_new(cli: TerminalCli) -> None:
    memory, ids = _history(cli)
    shown = cli.terminal("changes", memory)
    lines = _once_per_revision(shown)
    _no_ids(shown)
    revisions = [line for line in lines if line.startswith("revision ")]
    assert [line.split()[1] for line in revisions] == ["1", "2", "3", "4", "5"]
    at = lines.index("  add         fact  [build]")
    assert lines[at + 1] == f"    {BUILD}"
    assert "  add         preference  — when tests run" in lines
    at = lines.index("  revise      preference  (user_correction)")
    new_first, new_second = TESTS_NEW.splitlines()
    assert lines[at + 1 : at + 4] == [f"    {TESTS_OLD}", f"  → {new_first}", f"    {new_second}"]
    at = lines.index("  deactivate  constraint  (user_requested)")
    assert lines[at + 1] == f"    {SITE}"

    with_ids = _once_per_revision(cli.terminal("changes", memory, "--since", "2", "--ids"))
    assert with_ids[0].startswith("revision 3  ") and f"{memory}@3  " in with_ids[0]
    assert f"    {ids['tests']}  {ids['tests_old']} -> {ids['tests_new']}" in with_ids

    # A pipe gets the ids with the text (for scripts that pick them out), unless --no-ids.
    piped = cli("changes", memory).stdout
    assert f"{ids['tests_old']} -> {ids['tests_new']}" in piped and f"  → {new_first}" in piped
    _once_per_revision(piped)
    plain = cli("changes", memory, "--no-ids").stdout
    _no_ids(plain)
    assert plain == shown


def test_list_shows_texts_and_citations_only_with_the_flag(cli: TerminalCli) -> None:
    memory, ids = _history(cli)
    shown = cli.terminal("list", memory, "--status", "active", "--status", "inactive")
    lines = _once(shown)
    _no_ids(shown)
    assert lines[lines.index("fact  [build]") + 1] == f"  {BUILD}"
    assert lines[lines.index("constraint (inactive)") + 1] == f"  {SITE}"
    with_ids = _once(cli.terminal("list", memory, "--ids", "--kind", "fact"))
    assert with_ids == [
        "fact  [build]",
        f"  {BUILD}",
        f"  {memory}@5/{ids['build']}/{ids['build_version']}",
    ]
    assert cli("list", memory, "--kind", "fact").stdout.splitlines() == with_ids  # a pipe
    assert cli("list", memory, "--kind", "fact", "--no-ids").stdout.splitlines() == with_ids[:2]


def test_json_output_is_unchanged(cli: TerminalCli) -> None:
    memory, ids = _history(cli)
    view = cli.json("get", memory)
    assert set(view) >= {"memory", "content", "content_hash", "lineage", "head_revision"}
    assert {e["entry_id"] for e in view["content"]["manifest"]["entries"]} == {
        ids["build"],
        ids["tests"],
        ids["site"],
    }
    listed = cli.json("list", memory)
    assert all(entry["text"] == "" for entry in listed["entries"])  # text only with --text
    assert {e["text"] for e in cli.json("list", memory, "--text")["entries"]} == {BUILD, TESTS_NEW}
    history = [
        json.loads(line) for line in cli("-o", "json", "changes", memory).stdout.splitlines()
    ]
    assert [h["memory_ref"]["revision"] for h in history] == ["1", "2", "3", "4", "5"]
    assert history[2]["changes"][0]["from_entry_version_id"] == ids["tests_old"]
    assert all("text" not in change for h in history for change in h["changes"])
    expanded = cli.json("get", memory, ids["tests"])
    assert expanded["entries"][0]["version"]["text"] == TESTS_NEW


def test_a_history_of_merges_and_restores_reads_every_text(cli: TerminalCli) -> None:
    created = cli.json("create", "Tests use pytest.", "--kind", "fact", "--tag", "pytest")
    memory = created["memory"]["artifact_id"]
    first = created["results"][0]["entry_id"]
    second = cli.json("remember", memory, "Tests run in CI.", "--tag", "ci")["results"][0]
    merged = "Tests use pytest and run in CI."
    cli("merge", memory, first, second["entry_id"], "--text", merged, "--reason", "same topic")
    cli("restore", memory, first, "--reason", "need it")
    shown = cli.terminal("changes", memory)
    lines = _once_per_revision(shown)
    _no_ids(shown)
    at = lines.index("  deactivate  fact  [pytest]  merged  (same topic)")
    assert lines[at + 1] == "    Tests use pytest."
    at = lines.index("  add         fact  [ci, pytest]  (same topic)")
    assert lines[at + 1] == f"    {merged}"
    at = lines.index("  reactivate  fact  [ci]  (need it)")
    assert lines[at + 1] == "    Tests run in CI."
    at = lines.index("  deactivate  fact  [ci, pytest]  (need it)")  # the merge result, retired
    assert lines[at + 1] == f"    {merged}"
    assert "merged into mem_ent_" in cli.terminal("changes", memory, "--ids")


def test_follow_prints_each_new_revision_with_its_text(cli: TerminalCli) -> None:
    memory = cli.json("create", "first text")["memory"]["artifact_id"]
    follower = subprocess.Popen(
        [CLIENT_COMMAND, "changes", memory, "--follow", "--no-ids"],
        stdout=subprocess.PIPE,
        text=True,
        env=cli.env,
        cwd=cli.cwd,
    )
    try:
        assert follower.stdout is not None
        out = Lines(follower.stdout)  # a follower that prints nothing fails, never hangs
        out.wait_for("    first text")
        cli("remember", memory, "second text", "--kind", "decision")
        assert out.wait_for("revision 2").startswith("revision 2  ")
        assert out.next_line() == "  add         decision"
        assert out.next_line() == "    second text"
    finally:
        follower.terminate()
        follower.wait(timeout=10)


def test_memories_and_their_labels(cli: TerminalCli) -> None:
    memory = cli.json("create", "a labelled memory")["memory"]["artifact_id"]
    cli.json("create", "another memory")
    listed = _once(cli.terminal("memories"))
    [line] = [line for line in listed if line.startswith(memory)]
    assert line.startswith(f"{memory}  revision 1  1 active  0 inactive  remember ")
    assert line.endswith(" UTC")  # no label yet

    set_line = cli("label", memory, "Build conventions").stdout
    assert set_line.startswith(f"{memory}  label Build conventions  (version 1, set ")
    [line] = [line for line in cli.terminal("memories").splitlines() if memory in line]
    assert line.endswith(" UTC  — Build conventions")
    again = cli.json("label", memory, "Build and test conventions")  # reads version 1 first
    assert again["label_version"] == "2" and again["label"] == "Build and test conventions"
    stale = cli.error(4, "label", memory, "a stale label", "--label-version", "1")
    assert "LABEL_CONFLICT (ABORTED)" in stale
    cleared = cli("label", memory, "", "--label-version", "2").stdout
    assert cleared.startswith(f"{memory}  label cleared  (version 3")
    assert "NOT_FOUND" in cli.error(3, "label", "mem_art_" + "9" * 32, "nobody's")

    every = [json.loads(line) for line in cli("-o", "json", "memories").stdout.splitlines()]
    assert memory in {m["head"]["artifact_id"] for page in every for m in page["memories"]}
    one = _once(cli.terminal("memories", "--limit", "1"))
    assert len(one) == 2 and one[1] == "more memories: --limit 1 stopped the listing (0: all)"
    assert cli("memories", "--limit", "-1", code=2).stderr.startswith("usage: ")


@pytest.mark.parametrize("doc", ["README.md", "docs/clients.md"])
def test_the_documented_history_is_what_a_terminal_shows(doc: str, cli: TerminalCli) -> None:
    """The tour's `changes` output, after the same commands (the tour itself runs in
    tests/e2e/test_readme_clients.py, in a pipe)."""
    shown = blocks(section(doc, "cli"), "")[1]
    memory = cli.json("create", "Run make test before every commit.", "--kind", "constraint")
    memory = memory["memory"]["artifact_id"]
    cli("remember", memory, "Reviews need make check.", "--kind", "preference")
    entry = cli.json("list", memory, "--kind", "constraint")["entries"][0]["citation"]["entry_id"]
    cli("revise", memory, entry, "Run make test before every push.", "--reason", "user_correction")
    cli("forget", memory, entry, "--reason", "user_requested")
    cli("reactivate", memory, entry)
    lines = cli.terminal("changes", memory).splitlines()
    expected = shown.splitlines()
    assert len(lines) == len(expected), lines
    for want, line in zip(expected, lines, strict=True):
        assert elided_match(WHEN.sub("…", want), WHEN.sub("…", line)), (want, line)
