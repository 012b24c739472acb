"""The recall/merge/restore walkthrough of docs/walkthrough.md, run as written against a real
server process (the blocks between the curation markers, as one script), and what each block
prints."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.doc_blocks import json_documents, run_walkthrough
from tests.serving import serve_process

DOC = "docs/walkthrough.md"


@pytest.fixture
def server_port(tmp_path: Path) -> Iterator[int]:
    with serve_process(tmp_path / "memory.sqlite3") as served:
        yield served.port


CHANGE_REACTIVATE, CHANGE_DEACTIVATE = "CHANGE_OP_REACTIVATE", "CHANGE_OP_DEACTIVATE"


def ids(items: list[dict[str, Any]]) -> list[str]:
    return [i["citation"]["entry_id"] if "citation" in i else i["entry_id"] for i in items]


def ops(changes: list[dict[str, Any]]) -> set[tuple[str, str, str]]:
    return {(c["op"], c["entry_id"], c.get("reason", "")) for c in changes}


def test_the_curation_walkthrough_runs_as_written(server_port: int, tmp_path: Path) -> None:
    steps = run_walkthrough(DOC, "curation", server_port, tmp_path)
    assert len(steps) == 13
    out = [s.output for s in steps]

    [r1] = json_documents(out[1])
    assert r1["memory"]["revision"] == "1"
    a, b, d, pref = (r["entry_id"] for r in r1["results"])
    versions = {r["entry_id"]: r["entry_version_id"] for r in r1["results"]}

    # 2: two pages of two, in entry id order, metadata only.
    first, second = json_documents(out[2])
    assert first["code"] == second["code"] == "RECALL_MANIFEST_CODE_PAGE"
    assert first["next_page_token"] and "next_page_token" not in second
    listed = first["items"] + second["items"]
    assert ids(listed) == sorted([a, b, d, pref])
    assert all("text" not in item for item in listed)
    by_id = {item["citation"]["entry_id"]: item for item in listed}
    assert by_id[a]["description"] == "公开 API 保持异步" and by_id[a]["tags"] == ["api"]
    derived = by_id[pref]["description"]
    assert len(derived) == 200 and derived.endswith("…") and "\n" not in derived
    assert derived.startswith("Run make test before every push. The CI runs")

    # 3: the token with another filter.
    assert "Code: InvalidArgument" in out[3] and '"reason":"PAGE_TOKEN_MISMATCH"' in out[3]

    # 4: filters inside listing and search.
    listing, search = json_documents(out[4])
    assert sorted(ids(listing["entries"])) == sorted([b, d])
    assert all(e["text"] for e in listing["entries"])
    assert sorted(ids(search["hits"])) == sorted([a, b])

    # 5: A + B -> C, C + D -> E.
    m2, m3 = json_documents(out[5])
    c, e = m2["result"]["entry_id"], m3["result"]["entry_id"]
    assert (m2["memory"]["revision"], m3["memory"]["revision"]) == ("2", "3")
    into = {ch["entry_id"]: ch.get("merged_into_entry_id") for ch in m2["changes"]}
    assert into == {a: c, b: c, c: None}
    assert ops(m3["changes"]) == {
        (CHANGE_DEACTIVATE, c, "one decision about sync and async"),
        (CHANGE_DEACTIVATE, d, "one decision about sync and async"),
        ("CHANGE_OP_ADD", e, "one decision about sync and async"),
    }

    # 6: what is merged into what.
    [merged] = json_documents(out[6])
    assert {x["citation"]["entry_id"]: x["merged_into_entry_id"] for x in merged["entries"]} == {
        a: c,
        b: c,
        c: e,
        d: e,
    }
    assert {x["status"] for x in merged["entries"]} == {"ENTRY_STATUS_MERGED"}

    # 7 + 8: the preview of restoring B, then applying it.
    [preview] = json_documents(out[7])
    assert preview["would_change"] is True and preview["memory"]["revision"] == "3"
    frozen = {(x, versions[x]) for x in (a, b, d)}
    restored = {(r["entry_id"], r["entry_version_id"]) for r in preview["outcome"]["restored"]}
    assert restored == frozen
    assert sorted(ids(preview["outcome"]["retired"])) == sorted([c, e])
    [applied] = json_documents(out[8])
    assert applied["changed"] is True and applied["memory"]["revision"] == "4"
    assert ops(applied["changes"]) == {
        (CHANGE_REACTIVATE, a, "restore"),
        (CHANGE_REACTIVATE, b, "restore"),
        (CHANGE_REACTIVATE, d, "restore"),
        (CHANGE_DEACTIVATE, c, "undo_merge"),
        (CHANGE_DEACTIVATE, e, "undo_merge"),
    }
    assert applied["outcome"] == preview["outcome"]

    # 9: the token again is stale; a restore of the active B is a no-op naming B as it stands.
    assert "Code: Aborted" in out[9] and '"reason":"PREVIEW_STALE"' in out[9]
    [noop] = json_documents(out[9])
    assert "changed" not in noop and noop["memory"]["revision"] == "4"
    assert noop["outcome"]["restored"] == [{"entry_id": b, "entry_version_id": versions[b]}]

    # 10: merge A + B again, then undo that merge.
    [undone] = json_documents(out[10])
    assert undone["changed"] is True and undone["memory"]["revision"] == "6"
    [f] = undone["outcome"]["undone_merge_results"]
    assert sorted(ids(undone["outcome"]["restored"])) == sorted([a, b])
    assert ids(undone["outcome"]["retired"]) == [f]

    # 11: the history from revision 2 on, and A's first citation still verifies.
    *history, expand = json_documents(out[11])
    revisions = [h["revision"]["memory_ref"]["revision"] for h in history]
    assert revisions == ["2", "3", "4", "5", "6"]
    [expanded] = expand["entries"]
    version = expanded["version"]
    assert version["entry_version_id"] == versions[a] and version["text"] == "公开 API 保持异步。"
    assert version["description"] == "公开 API 保持异步" and version["tags"] == ["api"]

    # 12: the memory as listed, its label set once, the stale second set refused.
    listed, labelled, relisted = json_documents(out[12])
    [summary] = listed["memories"]
    assert summary["head"] == {"artifact_id": r1["memory"]["artifact_id"], "revision": "6"}
    assert summary["last_operation"] == "undo_merge" and "label" not in summary
    assert int(summary["active_entries"]) + int(summary["inactive_entries"]) == 7
    assert labelled["label"] == "Client API decisions" and labelled["label_version"] == "1"
    assert "Code: Aborted" in out[12] and '"reason":"LABEL_CONFLICT"' in out[12]
    [after] = relisted["memories"]
    assert after["label"] == "Client API decisions" and after["head"]["revision"] == "6"
