"""docs/reference/cli.md is current, matches what the installed programs print for `--help`,
and lists every command; scripts/gen_cli_reference.py renders and checks it."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from scripts import gen_cli_reference as reference

BIN = Path(sys.executable).parent  # the virtualenv's console scripts sit next to its python


def page() -> str:
    return reference.PAGE.read_text(encoding="utf-8")


def shown_help(text: str, command: str) -> str:
    """The ```text block under the heading of `command` in the page."""
    found = re.search(
        rf"^### `{re.escape(command)}`\n.*?^```text\n(.*?)^```$", text, re.MULTILINE | re.DOTALL
    )
    assert found is not None, f"no section for `{command}` in {reference.PAGE.name}"
    return found.group(1)


def test_the_committed_page_is_what_the_generator_renders_now() -> None:
    diff = reference.stale_diff(page())
    assert diff == "", f"docs/reference/cli.md is stale: run python {reference.SCRIPT}\n{diff}"


def test_rendering_ignores_the_terminal_width_and_powercontext_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "40")
    monkeypatch.setenv("POWERCONTEXT_EMBEDDING", "http")
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert reference.render() == page()
    # The caller's environment is put back once the page is rendered.
    assert os.environ["COLUMNS"] == "40" and os.environ["POWERCONTEXT_EMBEDDING"] == "http"
    assert "NO_COLOR" not in os.environ


@pytest.mark.parametrize(
    "command", ["powercontext-memory serve", "powercontext search", "powercontext sources put"]
)
def test_the_page_shows_what_help_prints(command: str) -> None:
    program, *words = command.split()
    env = {k: v for k, v in os.environ.items() if not k.startswith("POWERCONTEXT_")}
    env.update(COLUMNS=str(reference.COLUMNS), NO_COLOR="1")
    done = subprocess.run(
        [str(BIN / program), *words, "--help"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert shown_help(page(), command) == done.stdout


def command_names(parser: argparse.ArgumentParser, words: tuple[str, ...]) -> Iterator[str]:
    yield " ".join(words)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from command_names(sub, (*words, name))


def test_every_command_has_a_section() -> None:
    from powercontext_client.cli.app import build_parser as client_parser
    from powercontext_memory.cli import build_parser as server_parser

    expected = [
        *command_names(server_parser(), ("powercontext-memory",)),
        *command_names(client_parser(), ("powercontext",)),
    ]
    sections = re.findall(r"^### `([^`]+)`$", page(), re.MULTILINE)
    assert sections == expected
    assert {"powercontext-memory tokens create", "powercontext sources get"} <= set(sections)


def test_the_check_reports_a_doctored_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    current = page()
    doctored = current.replace("\nshow a stored source\n", "\nshow a source\n", 1)
    assert doctored != current
    diff = reference.stale_diff(doctored, current)
    assert "\n-show a source\n+show a stored source\n" in diff
    assert reference.stale_diff(current, current) == ""

    stale = tmp_path / "cli.md"
    stale.write_text(doctored, encoding="utf-8")
    monkeypatch.setattr(reference, "PAGE", stale)
    assert reference.main(["--check"]) == 1
    out, err = capsys.readouterr()
    assert "+show a stored source" in out and f"run python {reference.SCRIPT}" in err
    stale.write_text(current, encoding="utf-8")
    assert reference.main(["--check"]) == 0


def test_the_hook_note_is_true(capsys: pytest.CaptureFixture[str]) -> None:
    from powercontext_client.cli import main

    assert main(["hook", "--help"]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("usage: powercontext hook ") and err.count("\n") == 1
    assert "`powercontext hook --help` prints only a one-line usage, on stderr" in page()
