"""The grpcurl walkthrough of docs/walkthrough.md, run as written: its bash blocks against a real
server process.

Every ```bash block between the walkthrough markers runs, in order, as one `bash -euo pipefail`
script from the repository root; only the `PORT=50051` line is pointed at the test server.
An echo line between blocks lets each block's output be checked on its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.doc_blocks import Step, json_documents, run_walkthrough
from tests.serving import serve_process

DOC = "docs/walkthrough.md"

VALIDATION_V1_TEXT = "验证约定：常规代码变更运行 make test；评审前运行 make check。"
VALIDATION_V2_TEXT = (
    "验证约定：常规代码变更运行 make test；"
    "仅文档变更优先运行 make docs-test；评审前运行 make check。"
)
SITE_TEXT = "site/ 是生成输出"


# -- the walkthrough's steps --------------------------------------------------------------------


def only(steps: list[Step], method: str, *, failing: bool = False) -> Step:
    matches = [s for s in steps if s.calls(method) and s.expects_failure == failing]
    assert len(matches) == 1, f"expected one {method} block (failing={failing})"
    return matches[0]


@pytest.fixture
def server_port(tmp_path: Path) -> Iterator[int]:
    with serve_process(tmp_path / "memory.sqlite3") as served:
        yield served.port


@pytest.fixture
def steps(server_port: int, tmp_path: Path) -> list[Step]:
    return run_walkthrough(DOC, "walkthrough", server_port, tmp_path)


# -- the test -----------------------------------------------------------------------------------


def test_the_walkthrough_runs_as_written(steps: list[Step]) -> None:
    everything = "".join(step.output for step in steps)
    assert '"status": "SERVING"' in everything
    assert "powercontext.memory.v1.MemoryService\n" in everything  # from `list`
    [caps] = json_documents(only(steps, "GetCapabilities").output)
    assert caps["capabilities"]["fts"] is True and caps["capabilities"]["backend"] == "sqlite"
    # The test server has no model (--embedding none): vector and hybrid are left out, with why.
    assert "vector" not in caps["capabilities"] and "hybrid" not in caps["capabilities"]
    assert caps["capabilities"]["vector_unavailable_reason"]

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
