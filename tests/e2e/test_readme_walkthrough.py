"""The README walkthrough, run as written: its bash blocks against a real server process.

Every ```bash block between the walkthrough markers runs, in order, as one `bash -euo pipefail`
script from the repository root; only the `PORT=50051` line is pointed at the test server.
An echo line between blocks lets each block's output be checked on its own.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.serving import serve_process

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
GRPCURL = ROOT / ".venv" / "bin" / "grpcurl"
BASH_BLOCK = re.compile(r"^```bash\n(.*?)^```$", re.MULTILINE | re.DOTALL)
PORT_LINE = re.compile(r"^PORT=50051\b", re.MULTILINE)
STEP_MARKER = "@@ walkthrough block {} @@"
STEP_SPLIT = re.compile(r"^@@ walkthrough block (\d+) @@$", re.MULTILINE)
SCRIPT_TIMEOUT = 180.0

VALIDATION_V1_TEXT = "验证约定：常规代码变更运行 make test；评审前运行 make check。"
VALIDATION_V2_TEXT = (
    "验证约定：常规代码变更运行 make test；"
    "仅文档变更优先运行 make docs-test；评审前运行 make check。"
)
SITE_TEXT = "site/ 是生成输出"


@dataclass(frozen=True)
class Step:
    script: str
    output: str

    def calls(self, method: str) -> bool:
        return f"powercontext.memory.v1.MemoryService/{method}" in self.script

    @property
    def expects_failure(self) -> bool:
        return "|| true" in self.script


# -- running the walkthrough --------------------------------------------------------------------


def walkthrough_blocks(name: str = "walkthrough") -> list[str]:
    """The bash blocks between <!-- NAME:start --> and <!-- NAME:end -->."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    readme = README.read_text(encoding="utf-8")
    assert readme.count(start) == 1 and readme.count(end) == 1
    section = readme.split(start, 1)[1].split(end, 1)[0]
    return BASH_BLOCK.findall(section)


def build_script(blocks: list[str], port: int) -> str:
    parts = []
    for index, block in enumerate(blocks):
        parts.append(f"echo '{STEP_MARKER.format(index)}'")
        parts.append(block)
    script, replaced = PORT_LINE.subn(f"PORT={port}", "\n".join(parts))
    assert replaced == 1, "the walkthrough must set PORT=50051 exactly once"
    return script


def split_output(stdout: str, blocks: list[str]) -> list[Step]:
    pieces = STEP_SPLIT.split(stdout)  # ["", "0", out0, "1", out1, ...]
    indices = [int(i) for i in pieces[1::2]]
    assert indices == list(range(len(blocks))), "a block's output went missing"
    return [Step(block, out) for block, out in zip(blocks, pieces[2::2], strict=True)]


def json_documents(text: str) -> list[Any]:
    """The pretty-printed JSON documents in an output, in order (other lines are skipped)."""
    decoder = json.JSONDecoder()
    documents: list[Any] = []
    end = 0
    for match in re.finditer(r"^[{\[]", text, re.MULTILINE):
        if match.start() < end:
            continue  # a line inside the previous document
        document, end = decoder.raw_decode(text, match.start())
        documents.append(document)
    return documents


def only(steps: list[Step], method: str, *, failing: bool = False) -> Step:
    matches = [s for s in steps if s.calls(method) and s.expects_failure == failing]
    assert len(matches) == 1, f"expected one {method} block (failing={failing})"
    return matches[0]


@pytest.fixture
def server_port(tmp_path: Path) -> Iterator[int]:
    with serve_process(tmp_path / "memory.sqlite3") as served:
        yield served.port


def run_section(name: str, port: int, tmp_path: Path) -> list[Step]:
    """The README section's bash blocks as one `bash -euo pipefail` script, split per block."""
    assert GRPCURL.exists(), "grpcurl comes with requirements-dev.txt"
    blocks = walkthrough_blocks(name)
    assert len(blocks) >= 10, f"the {name} section lost its bash blocks"
    script = tmp_path / f"{name}.sh"  # a file rather than stdin: grpcurl -d @ reads stdin
    script.write_text(build_script(blocks, port), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PORT"}
    done = subprocess.run(
        ["bash", "-euo", "pipefail", str(script)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=SCRIPT_TIMEOUT,
    )
    assert done.returncode == 0, (
        f"walkthrough failed ({done.returncode}); script {script}\n"
        f"--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
    )
    return split_output(done.stdout, blocks)


@pytest.fixture
def steps(server_port: int, tmp_path: Path) -> list[Step]:
    return run_section("walkthrough", server_port, tmp_path)


# -- the test -----------------------------------------------------------------------------------


def test_readme_walkthrough_runs_as_written(steps: list[Step]) -> None:
    everything = "".join(step.output for step in steps)
    assert '"status": "SERVING"' in everything
    assert "powercontext.memory.v1.MemoryService\n" in everything  # from `list`
    [caps] = json_documents(only(steps, "GetCapabilities").output)
    assert caps["capabilities"]["fts"] is True and caps["capabilities"]["backend"] == "sqlite"

    writes = [s for s in steps if s.calls("Remember") and not s.expects_failure]
    r1, r2 = (json_documents(s.output)[0] for s in writes)
    assert (r1["memory"]["revision"], r2["memory"]["revision"]) == ("1", "2")
    memory_id = r1["memory"]["artifact_id"]
    validation, validation_v1 = r1["results"][1]["entry_id"], r1["results"][1]["entry_version_id"]
    site, site_v1 = r1["results"][2]["entry_id"], r1["results"][2]["entry_version_id"]
    [revise] = r2["changes"]
    assert revise["op"] == "CHANGE_OP_REVISE" and revise["reason"] == "user_correction"
    assert (revise["entry_id"], revise["from_entry_version_id"]) == (validation, validation_v1)
    validation_v2 = revise["to_entry_version_id"]

    # The stale write and the non-head search fail, with their documented reasons.
    stale = only(steps, "Remember", failing=True).output
    assert "Code: Aborted" in stale and '"reason":"REVISION_CONFLICT"' in stale
    assert '"headRevision":"2"' in stale
    non_head = only(steps, "Search", failing=True).output
    assert "Code: FailedPrecondition" in non_head and '"reason":"MEMORY_NOT_AT_HEAD"' in non_head
    assert '"headRevision":"3"' in non_head

    [r3] = json_documents(only(steps, "Forget").output)
    assert r3["memory"] == {"artifact_id": memory_id, "revision": "3"}
    [head] = json_documents(only(steps, "GetMemory").output)
    assert head["memory"]["revision"] == "3" and head["head_revision"] == "3"
    manifest = {e["entry_id"]: e for e in head["content"]["manifest"]["entries"]}
    assert manifest[site]["state"] == "ENTRY_STATE_INACTIVE"
    assert manifest[site]["entry_version_id"] == site_v1
    assert manifest[validation]["entry_version_id"] == validation_v2

    # The Chinese query finds the corrected convention at its revision-2 version, not site/.
    search_output = only(steps, "Search").output
    assert SITE_TEXT not in search_output
    [search] = json_documents(search_output)
    assert search["mode"] == "SEARCH_MODE_FTS"
    hits = {h["entry_id"]: h for h in search["hits"]}
    assert site not in hits
    hit = hits[validation]
    assert hit["text"] == VALIDATION_V2_TEXT and "make docs-test" in hit["text"]
    assert hit["entry_version_id"] == validation_v2
    assert hit["memory_ref"] == {"artifact_id": memory_id, "revision": "3"}
    assert hit["matched_by"] == ["SEARCH_CHANNEL_FTS"]

    changes = json_documents(only(steps, "Changes").output)
    assert [c["revision"]["memory_ref"]["revision"] for c in changes] == ["1", "2", "3"]
    assert [[x["op"] for x in c["revision"]["changes"]] for c in changes] == [
        ["CHANGE_OP_ADD"] * 3,
        ["CHANGE_OP_REVISE"],
        ["CHANGE_OP_DEACTIVATE"],
    ]
    assert VALIDATION_V1_TEXT not in only(steps, "Changes").output  # changes carry no text

    [expand] = json_documents(only(steps, "Expand").output)
    [expanded] = expand["entries"]
    version = expanded["version"]
    assert version["entry_version_id"] == validation_v2
    assert version["version"] == "2"
    assert version["previous_version_id"] == validation_v1
    assert len(version["source_refs"]) == 3
    assert expanded["state"] == "ENTRY_STATE_ACTIVE"
