"""The Python client's issue-12 calls against a real server: descriptions and tags on inputs,
recall manifest and listing pages (one page, and every page), search filters, metadata-only
reads, merge, preview / restore / undo-merge, and their typed errors — async and blocking."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types
from powercontext_client import (
    Aborted,
    AsyncClient,
    Client,
    FailedPrecondition,
    InvalidArgument,
    entry_ref,
    new_entry,
    revise,
)
from powercontext_memory.transport.server import RunningServer


@pytest.fixture
async def client(server: RunningServer) -> AsyncIterator[AsyncClient]:
    async with AsyncClient(f"127.0.0.1:{server.port}") as c:
        yield c


async def _five(client: AsyncClient) -> pb.RememberResponse:
    return await client.remember(
        None,
        [
            new_entry("fact", f"make target {i} runs", tags=["make"] if i % 2 else [])
            for i in range(4)
        ]
        + [new_entry("preference", "Prefer uv.", description="Tooling choice", tags=["uv"])],
    )


async def test_pages_one_at_a_time_or_all(client: AsyncClient) -> None:
    created = await _five(client)
    memory_id = created.memory.artifact_id
    page = await client.get_recall_manifest(memory_id, page_size=2)
    assert isinstance(page, pb.GetRecallManifestResponse) and len(page.items) == 2
    assert page.next_page_token and page.code == pb.RECALL_MANIFEST_CODE_PAGE
    following = await client.get_recall_manifest(
        memory_id, page_size=2, page_token=page.next_page_token
    )
    assert following.items[0].citation.entry_id > page.items[-1].citation.entry_id

    items = [i async for i in client.recall_manifest_items(memory_id, page_size=2)]
    assert sorted(i.citation.entry_id for i in items) == sorted(r.entry_id for r in created.results)
    [preference] = [i async for i in client.recall_manifest_items(memory_id, kinds=["preference"])]
    assert (preference.description, list(preference.tags)) == ("Tooling choice", ["uv"])
    tagged = [
        i
        async for i in client.recall_manifest_items(
            memory_id, tags=["make", "uv"], tag_match=types.TAG_MATCH_ANY, page_size=1
        )
    ]
    assert len(tagged) == 3

    listed = [e async for e in client.list_entries_items(memory_id, include_text=True)]
    assert {e.text for e in listed} >= {"Prefer uv."}
    one = await client.list_entries(memory_id, page_size=1, kinds=["preference"])
    assert [e.kind for e in one.entries] == ["preference"]

    light = await client.get_memory(memory_id, metadata_only=True)
    assert light.content_omitted and light.active_entries == 5

    found = await client.search(
        "make target", [created.memory], mode=types.SEARCH_MODE_FTS, tags=["make"]
    )
    assert len(found.hits) == 2 and all(list(h.tags) == ["make"] for h in found.hits)
    assert not (await client.search("make target", [created.memory], min_score=10.0)).hits

    with pytest.raises(InvalidArgument) as invalid:
        await client.get_recall_manifest(memory_id, page_size=500)
    assert invalid.value.field_violations[0][0] == "page_size"
    with pytest.raises(InvalidArgument) as mismatch:
        await client.list_entries(memory_id, page_token=page.next_page_token)
    assert mismatch.value.reason == "PAGE_TOKEN_MISMATCH"


async def test_merge_preview_restore_and_undo(client: AsyncClient) -> None:
    created = await _five(client)
    a, b = (entry_ref(r) for r in created.results[:2])
    merged = await client.merge(
        created.memory, [a, b], "make targets 0 and 1 run", kind="fact", reason="overlap"
    )
    assert isinstance(merged, pb.MergeResponse) and merged.result.entry_id
    memory_id = created.memory.artifact_id
    statuses = [types.ENTRY_STATUS_MERGED]
    frozen = [e async for e in client.list_entries_items(memory_id, statuses=statuses)]
    assert {e.merged_into_entry_id for e in frozen} == {merged.result.entry_id}

    preview = await client.preview_restore(created.memory.artifact_id, a.entry_id)
    assert preview.would_change and [r.entry_id for r in preview.outcome.retired] == [
        merged.result.entry_id
    ]
    restored = await client.restore(
        types.ArtifactRef(artifact_id=created.memory.artifact_id),
        a.entry_id,
        preview_token=preview.preview_token,
    )
    assert restored.changed and restored.outcome == preview.outcome
    with pytest.raises(FailedPrecondition) as not_merged:
        await client.undo_merge(restored.memory, a.entry_id)
    assert not_merged.value.reason == "NOT_A_MERGE_RESULT"

    again = await client.merge(restored.memory, [a, b], "once more", kind="fact")
    undone = await client.undo_merge(again.memory, again.result.entry_id)
    assert undone.changed and {r.entry_id for r in undone.outcome.restored} == {
        a.entry_id,
        b.entry_id,
    }
    stale_preview = await client.preview_restore(
        undone.memory, a.entry_id, entry_version_id=a.entry_version_id
    )
    revision = revise(a, "make target 0 runs twice", kind="fact")
    revised = await client.remember(undone.memory, [revision])
    with pytest.raises(Aborted) as stale:
        await client.restore(
            types.ArtifactRef(artifact_id=created.memory.artifact_id),
            a.entry_id,
            entry_version_id=a.entry_version_id,
            preview_token=stale_preview.preview_token,
        )
    assert stale.value.reason == "PREVIEW_STALE"
    with pytest.raises(Aborted) as stale_input:
        await client.merge(revised.memory, [a, b], "a is old", kind="fact")
    assert stale_input.value.reason == "ENTRY_VERSION_STALE"


async def test_the_blocking_client_pages_and_merges(server: RunningServer) -> None:
    def run() -> None:
        with Client(f"127.0.0.1:{server.port}") as client:
            created = client.remember(
                None, [new_entry("fact", f"note {i}", tags=["t"]) for i in range(3)]
            )
            memory_id = created.memory.artifact_id
            items = list(client.recall_manifest_items(memory_id, page_size=1, tags=["t"]))
            assert len(items) == 3
            listed = list(client.list_entries_items(memory_id, page_size=2))
            assert [e.citation.entry_id for e in listed] == [i.citation.entry_id for i in items]
            refs = [entry_ref(r) for r in created.results[:2]]
            merged = client.merge(created.memory, refs, "notes 0 and 1", kind="fact")
            assert client.get_recall_manifest(memory_id).items[0].citation.memory_ref == (
                merged.memory
            )
            preview = client.preview_restore(
                memory_id, merged.result.entry_id, operation=types.RESTORE_OPERATION_UNDO_MERGE
            )
            undone = client.undo_merge(
                types.ArtifactRef(artifact_id=memory_id),
                merged.result.entry_id,
                preview_token=preview.preview_token,
            )
            assert undone.changed
            again = client.restore(undone.memory, refs[0].entry_id)
            assert not again.changed  # already active

    await asyncio.to_thread(run)
