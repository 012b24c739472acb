"""The MCP bridge's listing and curation tools against a real server, through the SDK's own
in-process client: recall_manifest / list_entries pages and filters, search filters,
descriptions and tags on remember / revise_entry, merge_entries, preview_restore,
restore_entry and undo_merge (the A+B→C, C+D→E chain restored from B), and their failures as
tool errors naming the service's reason."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from powercontext_client import AsyncClient
from powercontext_client.runtime.manifest import RuntimeManifest
from powercontext_memory.transport.server import RunningServer

from .test_mcp_bridge import bridge, call, fails, git_repo

LISTING = {"recall_manifest", "list_entries", "preview_restore"}
CURATION = {"merge_entries", "restore_entry", "undo_merge"}


@pytest.fixture
async def client(server: RunningServer) -> AsyncIterator[AsyncClient]:
    async with AsyncClient(f"127.0.0.1:{server.port}") as connected:
        yield connected


@pytest.fixture
def manifest(tmp_path: Path) -> RuntimeManifest:
    return RuntimeManifest(tmp_path / "state" / "runtime.json")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return git_repo(tmp_path / "repo")


async def remember(mcp: Client, text: str, **arguments: Any) -> dict[str, Any]:
    """The entry a remember call added: entry_id, entry_version_id."""
    done = await call(mcp, "remember", text=text, **arguments)
    [added] = done["entries"]
    return dict(added)


async def active(mcp: Client) -> list[str]:
    return [e["entry_id"] for e in (await call(mcp, "list_entries"))["entries"]]


async def test_the_new_tools_are_listed_with_hints_and_schemas(
    client: AsyncClient, repo: Path, manifest: RuntimeManifest
) -> None:
    async with bridge(client, repo, manifest) as mcp:
        tools = {tool.name: tool for tool in (await mcp.list_tools()).tools}
    assert set(tools) >= LISTING | CURATION
    for name in LISTING | CURATION:
        hints = tools[name].annotations
        assert hints is not None and hints.open_world_hint is False
        assert hints.read_only_hint is (name in LISTING), name
        assert tools[name].output_schema, name
    assert tools["merge_entries"].annotations.destructive_hint  # type: ignore[union-attr]
    assert tools["merge_entries"].input_schema["required"] == ["entries", "text"]
    assert tools["restore_entry"].input_schema["required"] == ["entry_id"]
    statuses = tools["list_entries"].input_schema["properties"]["statuses"]
    assert statuses["anyOf"][0]["items"]["enum"] == ["active", "inactive", "merged"]
    operation = tools["preview_restore"].input_schema["properties"]["operation"]
    assert operation["enum"] == ["restore", "undo_merge"]
    search = tools["search_memory"].input_schema["properties"]
    assert {"kinds", "tags", "tag_match", "min_score"} <= set(search)
    assert search["tag_match"]["enum"] == ["all", "any"]


async def test_recall_manifest_list_entries_and_search_filters(
    client: AsyncClient, repo: Path, manifest: RuntimeManifest
) -> None:
    async with bridge(client, repo, manifest) as mcp:
        ci = await remember(
            mcp, "The release pipeline runs nightly.", tags=["ci", "release"], kind="fact"
        )
        decision = await remember(
            mcp,
            "The release pipeline publishes with twine.",
            kind="decision",
            description="Publishing uses twine",
            tags=["python"],
        )
        docs = await remember(mcp, "The docs pipeline builds the site.", tags=["ci"])

        first = await call(mcp, "recall_manifest", page_size=2)
        assert not first["empty_memory"] and len(first["items"]) == 2
        assert all(item["text"] is None for item in first["items"])
        rest = await call(mcp, "recall_manifest", page_size=2, page_token=first["next_page_token"])
        assert rest["next_page_token"] == ""
        items = first["items"] + rest["items"]
        ids = sorted(e["entry_id"] for e in (ci, decision, docs))
        assert [item["entry_id"] for item in items] == ids
        by_id = {item["entry_id"]: item for item in items}
        assert by_id[decision["entry_id"]]["description"] == "Publishing uses twine"
        assert by_id[ci["entry_id"]]["description"] == "The release pipeline runs nightly."
        assert by_id[ci["entry_id"]]["tags"] == ["ci", "release"]
        # Each item's citation verifies.
        [expanded] = (await call(mcp, "expand_citation", citations=[items[0]["citation"]]))[
            "entries"
        ]
        assert expanded["entry_id"] == items[0]["entry_id"]

        tagged = await call(mcp, "recall_manifest", tags=["ci", "release"])
        assert [item["entry_id"] for item in tagged["items"]] == [ci["entry_id"]]
        either = await call(mcp, "recall_manifest", tags=["python", "release"], tag_match="any")
        assert len(either["items"]) == 2

        # A page token belongs to its filters.
        _, error = await fails(
            mcp, "recall_manifest", page_size=1, page_token=first["next_page_token"], kinds=["x"]
        )
        assert (error["code"], error["reason"]) == ("INVALID_ARGUMENT", "PAGE_TOKEN_MISMATCH")

        await call(mcp, "forget_entry", entry_id=docs["entry_id"])
        gone = await call(mcp, "list_entries", statuses=["inactive"], include_text=True)
        [entry] = gone["entries"]
        assert (entry["entry_id"], entry["status"], entry["text"]) == (
            docs["entry_id"],
            "inactive",
            "The docs pipeline builds the site.",
        )
        assert sorted(await active(mcp)) == sorted([ci["entry_id"], decision["entry_id"]])

        hits = (await call(mcp, "search_memory", query="release pipeline", mode="fts"))["hits"]
        assert len(hits) == 2
        search = {"query": "release pipeline", "mode": "fts"}
        [hit] = (await call(mcp, "search_memory", kinds=["decision"], **search))["hits"]
        assert (hit["entry_id"], hit["description"], hit["tags"]) == (
            decision["entry_id"],
            "Publishing uses twine",
            ["python"],
        )
        [hit] = (await call(mcp, "search_memory", tags=["ci"], **search))["hits"]
        assert hit["entry_id"] == ci["entry_id"]
        high = await call(mcp, "search_memory", query="release pipeline", min_score=1e9)
        assert high["hits"] == []
        text, error = await fails(mcp, "search_memory", query="release", min_score=-1.0)
        assert error["code"] == "INVALID_ARGUMENT" and "min_score" in text

        # revise_entry keeps the tags unless new ones are given (a revision replaces them).
        revised = await call(
            mcp, "revise_entry", entry_id=ci["entry_id"], text="The release pipeline runs hourly."
        )
        [outcome] = revised["entries"]
        cite = f"{revised['memory']}@{revised['revision']}/{ci['entry_id']}"
        [now] = (
            await call(mcp, "expand_citation", citations=[f"{cite}/{outcome['entry_version_id']}"])
        )["entries"]
        assert now["text"] == "The release pipeline runs hourly."
        [listed] = (await call(mcp, "recall_manifest", tags=["release"]))["items"]
        assert (listed["entry_version_id"], listed["tags"]) == (
            outcome["entry_version_id"],
            ["ci", "release"],
        )


async def test_merge_restore_and_undo(
    client: AsyncClient, repo: Path, manifest: RuntimeManifest
) -> None:
    async with bridge(client, repo, manifest) as mcp:
        a = await remember(mcp, "Alpha.")
        b = await remember(mcp, "Beta.")
        d = await remember(mcp, "Delta.")

        first = await call(mcp, "merge_entries", entries=[a["entry_id"], b["entry_id"]], text="AB.")
        c = first["result"]
        assert sorted((ch["op"], ch["entry_id"]) for ch in first["changes"]) == sorted(
            [("add", c["entry_id"]), ("deactivate", a["entry_id"]), ("deactivate", b["entry_id"])]
        )
        merged = (await call(mcp, "list_entries", statuses=["merged"]))["entries"]
        assert {(e["entry_id"], e["merged_into"]) for e in merged} == {
            (a["entry_id"], c["entry_id"]),
            (b["entry_id"], c["entry_id"]),
        }
        # A citation pins the version: C as the merge returned it, D by id.
        second = await call(
            mcp, "merge_entries", entries=[c["citation"], d["entry_id"]], text="ABD.", reason="tidy"
        )
        e = second["result"]
        assert await active(mcp) == [e["entry_id"]]

        preview = await call(mcp, "preview_restore", entry_id=b["entry_id"])
        assert preview["changed"] and preview["preview_token"] and preview["expires_at"]
        restored_ids = sorted(r["entry_id"] for r in preview["restored"])
        assert restored_ids == sorted(x["entry_id"] for x in (a, b, d))
        assert sorted(r["entry_id"] for r in preview["retired"]) == sorted(
            [c["entry_id"], e["entry_id"]]
        )
        assert preview["undone_merge_results"] == [e["entry_id"], c["entry_id"]]
        assert await active(mcp) == [e["entry_id"]], "a preview writes nothing"

        done = await call(
            mcp, "restore_entry", entry_id=b["entry_id"], preview_token=preview["preview_token"]
        )
        assert done["changed"] and done["undone_merge_results"] == preview["undone_merge_results"]
        assert sorted(await active(mcp)) == restored_ids
        again = await call(mcp, "restore_entry", entry_id=b["entry_id"])
        assert again["changed"] is False

        # Undo one merge directly.
        xy = await call(mcp, "merge_entries", entries=[a["entry_id"], d["entry_id"]], text="AD.")
        undone = await call(mcp, "undo_merge", entry_id=xy["result"]["entry_id"])
        assert [r["entry_id"] for r in undone["retired"]] == [xy["result"]["entry_id"]]
        assert sorted(await active(mcp)) == restored_ids

        recent = await call(mcp, "recent_changes", limit=10)
        reasons = {ch["reason"] for r in recent["revisions"] for ch in r["changes"]}
        assert {"tidy", "merge"} <= reasons


async def test_curation_failures_are_tool_errors_naming_the_reason(
    client: AsyncClient, repo: Path, manifest: RuntimeManifest
) -> None:
    async with bridge(client, repo, manifest) as mcp:
        a = await remember(mcp, "Apple.")
        b = await remember(mcp, "Banana.")
        memory = (await call(mcp, "list_entries"))["memory"]

        for too_few in ([a["entry_id"]], []):
            text, error = await fails(mcp, "merge_entries", entries=too_few, text="x")
            assert text.startswith("MERGE_NEEDS_TWO_INPUTS (INVALID_ARGUMENT): "), text
        text, _ = await fails(
            mcp, "merge_entries", entries=[a["entry_id"], a["entry_id"]], text="x"
        )
        assert text.startswith("DUPLICATE_ENTRY_IN_BATCH (INVALID_ARGUMENT): ")
        # A citation of a version that was revised since: refused, not merged unread.
        stale = f"{memory}/{a['entry_id']}/{a['entry_version_id']}"
        await call(mcp, "revise_entry", entry_id=a["entry_id"], text="Apples.")
        text, error = await fails(mcp, "merge_entries", entries=[stale, b["entry_id"]], text="x")
        assert text.startswith("ENTRY_VERSION_STALE (ABORTED): ")
        text, _ = await fails(mcp, "merge_entries", entries=["nope/x", b["entry_id"]], text="x")
        assert text.startswith("INVALID_CITATION (INVALID_ARGUMENT): ")
        text, _ = await fails(mcp, "undo_merge", entry_id=b["entry_id"])
        assert text.startswith("NOT_A_MERGE_RESULT (FAILED_PRECONDITION): ")

        merged = await call(mcp, "merge_entries", entries=[a["entry_id"], b["entry_id"]], text="F.")
        z = merged["result"]["entry_id"]
        preview = await call(mcp, "preview_restore", entry_id=z, operation="undo_merge")
        await call(mcp, "forget_entry", entry_id=z)  # what the preview read has changed
        text, error = await fails(
            mcp, "undo_merge", entry_id=z, preview_token=preview["preview_token"]
        )
        assert text.startswith("PREVIEW_STALE (ABORTED): ")
        text, error = await fails(mcp, "restore_entry", entry_id=z, preview_token="pc2.e30.AAAA")
        assert (error["code"], error["reason"]) == ("INVALID_ARGUMENT", "PREVIEW_TOKEN_INVALID")
