"""Reading the repository's documentation as tests run it: README.md and docs/*.md.

One parser for every test that executes a documented block, so a section can move from one
file to another by changing a path. A documented section is the text between
`<!-- NAME:start -->` and `<!-- NAME:end -->` in one file; its fenced blocks are paired in order
(a block's language is what follows the opening fence, "" when nothing does). Also here: running
a section's bash blocks as one script with a marker line echoed before each block, so that each
block's output can be checked on its own, and reading the JSON documents grpcurl prints.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
GRPCURL = ROOT / ".venv" / "bin" / "grpcurl"
PORT_LINE = re.compile(r"^PORT=50051\b", re.MULTILINE)


def doc(path: str | Path) -> Path:
    """A documentation file by its path from the repository root (e.g. "docs/clients.md")."""
    found = ROOT / path
    assert found.is_file(), f"{path}: no such documentation file"
    return found


def documentation_files() -> list[Path]:
    """README.md and every Markdown file under docs/."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def section(path: str | Path, name: str) -> str:
    """The text between `<!-- NAME:start -->` and `<!-- NAME:end -->`, each exactly once."""
    text = doc(path).read_text(encoding="utf-8")
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    assert text.count(start) == 1 and text.count(end) == 1, f"{path}: the {name} section markers"
    return text.split(start, 1)[1].split(end, 1)[0]


@dataclass(frozen=True)
class Fenced:
    language: str  # what follows the opening fence; "" for a plain block
    body: str  # the lines inside, each ending with a newline


def fenced(text: str) -> list[Fenced]:
    """Every fenced block of `text`, in order (fences at the start of a line, paired in order)."""
    found: list[Fenced] = []
    language: str | None = None
    lines: list[str] = []
    for line in text.splitlines():
        if line.startswith("```"):
            if language is None:
                language, lines = line[3:].strip(), []
            else:
                found.append(Fenced(language, "\n".join(lines) + "\n"))
                language = None
            continue
        lines.append(line)
    assert language is None, "a fenced block is not closed"
    return found


def blocks(text: str, language: str) -> list[str]:
    """The bodies of the blocks in `language` ("" = plain blocks), in order."""
    return [block.body for block in fenced(text) if block.language == language]


@dataclass(frozen=True)
class Shown:
    """A bash block and the plain block that directly follows it (what it prints), if any."""

    script: str
    expected: str | None


def bash_with_output(text: str) -> list[Shown]:
    found = fenced(text)
    shown = []
    for i, block in enumerate(found):
        if block.language == "bash":
            follows = found[i + 1] if i + 1 < len(found) else None
            output = follows.body if follows is not None and follows.language == "" else None
            shown.append(Shown(block.body, output))
    return shown


def elided_match(expected: str, actual: str) -> bool:
    """Whether `actual` is `expected`, where each `…` stands for any text (ids, mostly)."""
    pattern = ".*?".join(re.escape(part) for part in expected.split("…"))
    return re.fullmatch(pattern, actual, re.DOTALL) is not None


# -- running bash blocks as one script ----------------------------------------------------------


def marker(label: str, index: int) -> str:
    return f"@@ {label} block {index} @@"


def marked_script(bodies: Sequence[str], label: str, prelude: str = "") -> str:
    """The blocks as one script, each preceded by an `echo` of its marker line."""
    parts = [prelude] if prelude else []
    for index, body in enumerate(bodies):
        parts.append(f"echo '{marker(label, index)}'")
        parts.append(body)
    return "\n".join(parts)


def split_marked(stdout: str, label: str, count: int) -> list[str]:
    """Each block's output, from the output of a `marked_script` of `count` blocks."""
    split = re.compile(rf"^@@ {re.escape(label)} block (\d+) @@\n?", re.MULTILINE)
    pieces = split.split(stdout)  # ["", "0", out0, "1", out1, ...]
    assert [int(i) for i in pieces[1::2]] == list(range(count)), "a block's output went missing"
    return pieces[2::2]


def run_bash(
    script: str,
    path: Path,
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout: float,
    merge_stderr: bool = False,
) -> subprocess.CompletedProcess[str]:
    """Run `script` as `bash -euo pipefail` from a file, so stdin stays free (`grpcurl -d @`)."""
    path.write_text(script, encoding="utf-8")
    return subprocess.run(
        ["bash", "-euo", "pipefail", str(path)],
        cwd=cwd,
        env=dict(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
        text=True,
        timeout=timeout,
    )


@dataclass(frozen=True)
class Step:
    """One bash block of a grpcurl walkthrough and what it printed."""

    script: str
    output: str

    def calls(self, method: str) -> bool:
        return f"powercontext.memory.v1.MemoryService/{method}" in self.script

    @property
    def expects_failure(self) -> bool:
        return "|| true" in self.script


def run_walkthrough(path: str | Path, name: str, port: int, tmp_path: Path) -> list[Step]:
    """A grpcurl walkthrough section as one `bash -euo pipefail` script from the repository
    root, its `PORT=50051` line pointed at `port`; each block with its own output."""
    assert GRPCURL.exists(), "grpcurl comes with requirements-dev.txt"
    found = blocks(section(path, name), "bash")
    assert len(found) >= 10, f"the {name} section of {path} lost its bash blocks"
    script, replaced = PORT_LINE.subn(f"PORT={port}", marked_script(found, name))
    assert replaced == 1, f"the {name} section must set PORT=50051 exactly once"
    env = {k: v for k, v in os.environ.items() if k != "PORT"}
    file = tmp_path / f"{name}.sh"
    done = run_bash(script, file, cwd=ROOT, env=env, timeout=180.0)
    assert done.returncode == 0, (
        f"the {name} section of {path} failed ({done.returncode}); script {file}\n"
        f"--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
    )
    outputs = split_marked(done.stdout, name, len(found))
    return [Step(block, out) for block, out in zip(found, outputs, strict=True)]


def json_documents(text: str) -> list[Any]:
    """The JSON documents printed in an output, in order (other lines are skipped)."""
    decoder = json.JSONDecoder()
    documents: list[Any] = []
    end = 0
    for match in re.finditer(r"^[{\[]", text, re.MULTILINE):
        if match.start() < end:
            continue  # a line inside the previous document
        document, end = decoder.raw_decode(text, match.start())
        documents.append(document)
    return documents


# -- links --------------------------------------------------------------------------------------

LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6}) +(.+?) *#*$")


def outside_code(text: str) -> str:
    """The text with fenced blocks and inline code spans blanked out."""
    kept, inside = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            inside = not inside
            kept.append("")
            continue
        kept.append("" if inside else re.sub(r"`[^`\n]*`", "``", line))
    return "\n".join(kept)


def links(path: Path) -> Iterator[str]:
    """The targets of the Markdown links in a file, outside code."""
    for match in LINK.finditer(outside_code(path.read_text(encoding="utf-8"))):
        yield match.group(1)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = re.sub(r"[^\w\- ]", "", text.lower().replace("`", ""))
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a Markdown file (repeated headings get -1, -2, ... as on GitHub)."""
    seen: dict[str, int] = {}
    found = set()
    inside = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            inside = not inside
            continue
        heading = None if inside else HEADING.match(line)
        if heading is None:
            continue
        base = slug(heading.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


# -- a serve block in a documented script -----------------------------------------------------

# Whatever happens, stop the background server and wait for its graceful exit.
STOP_SERVER = (
    'trap \'code=$?; if [ -n "${SERVER:-}" ]; then kill "$SERVER"; wait "$SERVER" || true; '
    "fi; exit $code' EXIT"
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def reserved_port() -> Iterator[int]:
    """A port the test binds and never listens on, held until the block ends: connecting to it
    is refused, no other bind to port 0 picks it, and a server binding with SO_REUSEADDR (gRPC
    and the metrics endpoint do) can still take it over and listen there."""
    with socket.socket() as held:
        held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        held.bind(("127.0.0.1", 0))
        yield int(held.getsockname()[1])


def in_background(body: str) -> str:
    """The serve block, started in the background; the script goes on once it serves."""
    return (
        body.rstrip("\n") + " > serve.log 2>&1 &\n"
        "SERVER=$!\n"
        'until grep -q "^serving " serve.log; do kill -0 "$SERVER"; sleep 0.1; done\n'
    )
