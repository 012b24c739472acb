"""The worked example (docs/walkthrough.md) over a real gRPC channel, with the generated stubs.

Revision 1 remembers three entries about the powercontext repository, revision 2 revises the
validation convention after a user correction, revision 3 forgets the site/ constraint; then
search, Changes, Expand and Reactivate are checked exactly as a client sees them.
"""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any

import grpc
import pytest

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_client.errors import error_info

Stub = pb_grpc.MemoryServiceStub

BUILD_TEXT = "powercontext 使用 uv 管理依赖并使用 Hatchling 构建。"
VALIDATION_TEXT = "验证约定：常规代码变更运行 make test；评审前运行 make check。"
VALIDATION_V2_TEXT = (
    "验证约定：常规代码变更运行 make test；"
    "仅文档变更优先运行 make docs-test；评审前运行 make check。"
)
SITE_TEXT = "site/ 是生成输出，不作为源材料修改。"
USER_NOTE = "改文档时不用跑完整 make test，优先跑 make docs-test。"
QUERY = "修改文档前需要知道哪些构建和验证约定？"


# -- helpers ------------------------------------------------------------------------------------


async def put_source(stub: Stub, kind: str, uri: str, text: str) -> types.SourceRef:
    response = await stub.PutSource(
        pb.PutSourceRequest(kind=kind, uri=uri, media_type="text/plain", content=text.encode())
    )
    return types.SourceRef(
        source_id=response.source.source_id, content_hash=response.source.content_hash
    )


def new_entry(kind: str, text: str, *sources: types.SourceRef) -> types.EntryInput:
    return types.EntryInput(kind=kind, text=text, sources=sources)


def entry_ref(result: pb.EntryResult) -> types.EntryRef:
    return types.EntryRef(entry_id=result.entry_id, entry_version_id=result.entry_version_id)


def citation(memory: types.ArtifactRef, entry: types.EntryRef) -> types.Citation:
    return types.Citation(
        memory_ref=memory, entry_id=entry.entry_id, entry_version_id=entry.entry_version_id
    )


async def search(
    stub: Stub, query: str, memory: types.ArtifactRef, mode: int = types.SEARCH_MODE_FTS
) -> pb.SearchResponse:
    return await stub.Search(pb.SearchRequest(query=query, memories=[memory], limit=8, mode=mode))


async def manifest(stub: Stub, memory: types.ArtifactRef) -> list[types.MemoryManifestEntry]:
    response = await stub.GetMemory(pb.GetMemoryRequest(memory=memory))
    assert response.memory == memory
    return list(response.content.manifest.entries)


async def rpc_error(call: Awaitable[Any], code: grpc.StatusCode) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    assert caught.value.code() == code, caught.value.details()
    return caught.value


@dataclass
class Example:
    r1: pb.RememberResponse
    r2: pb.RememberResponse
    r3: pb.ForgetResponse
    agents: types.SourceRef
    makefile: types.SourceRef
    note: types.SourceRef
    build: types.EntryRef
    validation: types.EntryRef  # version 1
    site: types.EntryRef
    validation_v2: types.EntryRef


async def worked_example(stub: Stub) -> Example:
    outcome = await put_source(
        stub, "task_outcome", "task://task_outcome_001", "Task 001: how powercontext builds."
    )
    agents = await put_source(
        stub, "file", "repo://powercontext/AGENTS.md", "uv, Hatchling, make test, make check"
    )
    pyproject = await put_source(
        stub, "file", "repo://powercontext/pyproject.toml", 'build-backend = "hatchling.build"'
    )
    makefile = await put_source(
        stub, "file", "repo://powercontext/Makefile", "test:\ncheck:\ndocs-test:"
    )
    r1 = await stub.Remember(
        pb.RememberRequest(
            sources=[outcome, agents, pyproject, makefile],
            entries=[
                new_entry("fact", BUILD_TEXT, agents, pyproject),
                new_entry("preference", VALIDATION_TEXT, agents, makefile),
                new_entry("constraint", SITE_TEXT, agents),
            ],
        )
    )
    build, validation, site = (entry_ref(r) for r in r1.results)

    # The user's correction is evidence in its own right: persisted first, then cited.
    note = await put_source(stub, "user_note", "chat://powercontext/user", USER_NOTE)
    revised = types.EntryInput(
        entry=validation,
        kind="preference",
        text=VALIDATION_V2_TEXT,
        sources=[note],
        reason="user_correction",
    )
    r2 = await stub.Remember(
        pb.RememberRequest(memory=r1.memory, sources=[note], entries=[revised])
    )
    r3 = await stub.Forget(
        pb.ForgetRequest(memory=r2.memory, entries=[site], reason="user_requested")
    )
    return Example(
        r1=r1,
        r2=r2,
        r3=r3,
        agents=agents,
        makefile=makefile,
        note=note,
        build=build,
        validation=validation,
        site=site,
        validation_v2=entry_ref(r2.results[0]),
    )


@pytest.fixture
async def example(stub: Stub) -> Example:
    return await worked_example(stub)


# -- the scenario -------------------------------------------------------------------------------


async def test_three_revisions_with_the_documented_changes(stub: Stub, example: Example) -> None:
    ex = example
    assert [ex.r1.memory.revision, ex.r2.memory.revision, ex.r3.memory.revision] == [1, 2, 3]
    assert ex.r1.memory.artifact_id == ex.r2.memory.artifact_id == ex.r3.memory.artifact_id
    assert all(r.changed for r in (ex.r1, ex.r2, ex.r3))
    assert [r.outcome for r in ex.r1.results] == [pb.ENTRY_OUTCOME_ADDED] * 3

    r1_manifest = await manifest(stub, ex.r1.memory)
    assert [e.entry_id for e in r1_manifest] == sorted(
        [ex.build.entry_id, ex.validation.entry_id, ex.site.entry_id]
    )
    assert all(e.state == types.ENTRY_STATE_ACTIVE for e in r1_manifest)

    [outcome] = ex.r2.results
    assert outcome.outcome == pb.ENTRY_OUTCOME_REVISED
    assert outcome.entry_id == ex.validation.entry_id
    [revise] = ex.r2.changes
    assert revise.op == types.CHANGE_OP_REVISE
    assert revise.entry_id == ex.validation.entry_id
    assert revise.from_entry_version_id == ex.validation.entry_version_id
    assert revise.to_entry_version_id == ex.validation_v2.entry_version_id
    assert revise.to_entry_version_id != revise.from_entry_version_id
    assert revise.reason == "user_correction"

    [deactivate] = ex.r3.changes
    assert deactivate.op == types.CHANGE_OP_DEACTIVATE
    assert deactivate.entry_id == ex.site.entry_id
    assert deactivate.from_entry_version_id == ex.site.entry_version_id
    assert not deactivate.HasField("to_entry_version_id")
    assert deactivate.reason == "user_requested"

    # Forgetting keeps the entry and its version; only the state changes.
    r3_manifest = await manifest(stub, ex.r3.memory)
    assert [e.entry_id for e in r3_manifest] == sorted(e.entry_id for e in r3_manifest)
    states = {e.entry_id: (e.entry_version_id, e.state) for e in r3_manifest}
    assert states == {
        ex.build.entry_id: (ex.build.entry_version_id, types.ENTRY_STATE_ACTIVE),
        ex.validation.entry_id: (ex.validation_v2.entry_version_id, types.ENTRY_STATE_ACTIVE),
        ex.site.entry_id: (ex.site.entry_version_id, types.ENTRY_STATE_INACTIVE),
    }


async def test_the_chinese_query_finds_the_corrected_convention(
    stub: Stub, example: Example
) -> None:
    response = await search(stub, QUERY, example.r3.memory)
    assert response.mode == types.SEARCH_MODE_FTS
    hits = {h.entry_id: h for h in response.hits}
    assert example.site.entry_id not in hits  # forgotten: not searchable
    hit = hits[example.validation.entry_id]
    assert hit.entry_version_id == example.validation_v2.entry_version_id
    assert hit.text == VALIDATION_V2_TEXT
    assert hit.memory_ref == example.r3.memory
    assert list(hit.matched_by) == [types.SEARCH_CHANNEL_FTS]


async def test_auto_search_says_it_ran_full_text(stub: Stub, example: Example) -> None:
    response = await search(stub, QUERY, example.r3.memory, types.SEARCH_MODE_AUTO)
    assert response.mode == types.SEARCH_MODE_FTS
    assert response.fallback_reason
    assert example.validation.entry_id in {h.entry_id for h in response.hits}


async def test_changes_since_zero_replays_the_history(stub: Stub, example: Example) -> None:
    request = pb.ChangesRequest(memory=example.r3.memory, since_revision=0)
    messages = [m async for m in stub.Changes(request)]
    assert all(m.HasField("revision") for m in messages)
    revisions = [m.revision for m in messages]
    assert [r.memory_ref.revision for r in revisions] == [1, 2, 3]
    assert [[c.op for c in r.changes] for r in revisions] == [
        [types.CHANGE_OP_ADD] * 3,
        [types.CHANGE_OP_REVISE],
        [types.CHANGE_OP_DEACTIVATE],
    ]
    assert [r.content_hash for r in revisions] == [
        example.r1.content_hash,
        example.r2.content_hash,
        example.r3.content_hash,
    ]


async def test_expand_verifies_the_handoff_citation(stub: Stub, example: Example) -> None:
    cited = citation(example.r2.memory, example.validation_v2)
    [expanded] = (await stub.Expand(pb.ExpandRequest(citations=[cited]))).entries
    assert expanded.citation == cited
    assert expanded.state == types.ENTRY_STATE_ACTIVE
    version = expanded.version
    assert version.entry_version_id == example.validation_v2.entry_version_id
    assert version.version == 2
    assert version.previous_version_id == example.validation.entry_version_id
    assert version.text == VALIDATION_V2_TEXT
    assert version.created_in_revision == 2
    # The previous version's evidence plus the correction's.
    refs = {r.source_id for r in version.source_refs}
    assert len(version.source_refs) == 3
    assert refs == {s.source_id for s in (example.agents, example.makefile, example.note)}


async def test_expand_refuses_a_mismatched_citation(stub: Stub, example: Example) -> None:
    # Revision 1 holds version 1 of the validation entry, not version 2.
    wrong = citation(example.r1.memory, example.validation_v2)
    error = await rpc_error(
        stub.Expand(pb.ExpandRequest(citations=[wrong])), grpc.StatusCode.NOT_FOUND
    )
    reason, _ = error_info(error)
    assert reason == "CITATION_MISMATCH"


async def test_reactivate_restores_the_same_version(stub: Stub, example: Example) -> None:
    r4 = await stub.Reactivate(
        pb.ReactivateRequest(memory=example.r3.memory, entries=[example.site])
    )
    assert r4.changed
    assert r4.memory.revision == 4
    [reactivate] = r4.changes
    assert reactivate.op == types.CHANGE_OP_REACTIVATE
    assert reactivate.entry_id == example.site.entry_id
    assert reactivate.to_entry_version_id == example.site.entry_version_id  # no new version
    assert not reactivate.HasField("from_entry_version_id")

    response = await search(stub, "site/ 生成输出", r4.memory)
    hits = {h.entry_id: h for h in response.hits}
    hit = hits[example.site.entry_id]
    assert hit.entry_version_id == example.site.entry_version_id
    assert hit.text == SITE_TEXT
    assert hit.memory_ref == r4.memory
