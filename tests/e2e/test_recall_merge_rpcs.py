"""Recall, merge and restore over real gRPC (SQLite): descriptions and tags on the wire,
GetMemory metadata_only, GetRecallManifest and ListEntries pages and tokens, Search filters,
Merge, Restore, UndoMerge and PreviewRestore — each happy path, and each refusal with its status
code, ErrorInfo reason and BadRequest field."""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Sequence
from typing import Any

import grpc
import pytest
import rfc8785
from google.rpc import error_details_pb2

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_client.errors import error_info, status_details, unpack_detail

Stub = pb_grpc.MemoryServiceStub
Code = grpc.StatusCode


# -- helpers ------------------------------------------------------------------------------------


def entry(
    text: str, *, kind: str = "fact", description: str | None = None, tags: Sequence[str] = ()
) -> types.EntryInput:
    return types.EntryInput(kind=kind, text=text, description=description, tags=tags)


def head_ref(artifact_id: str) -> types.ArtifactRef:
    return types.ArtifactRef(artifact_id=artifact_id, revision=0)


def eref(result: Any) -> types.EntryRef:
    return types.EntryRef(entry_id=result.entry_id, entry_version_id=result.entry_version_id)


def tampered(token: str) -> str:
    """The token with the first character of its signature changed."""
    prefix, payload, mac = token.split(".")
    return f"{prefix}.{payload}.{'B' if mac[0] == 'A' else 'A'}{mac[1:]}"


def citation(memory: types.ArtifactRef, version: Any) -> types.Citation:
    return types.Citation(
        memory_ref=memory, entry_id=version.entry_id, entry_version_id=version.entry_version_id
    )


async def create(stub: Stub, *entries: types.EntryInput) -> pb.RememberResponse:
    return await stub.Remember(pb.RememberRequest(entries=entries))


async def head(stub: Stub, artifact_id: str) -> pb.GetMemoryResponse:
    return await stub.GetMemory(pb.GetMemoryRequest(memory=head_ref(artifact_id)))


async def refused(
    call: Awaitable[Any], code: grpc.StatusCode, reason: str, field: str | None = None
) -> grpc.aio.AioRpcError:
    """The call fails with `code` and ErrorInfo `reason`; with `field`, BadRequest names it."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    error = caught.value
    assert error.code() == code, error.details()
    assert error_info(error)[0] == reason, error.details()
    if field is not None:
        bad = unpack_detail(status_details(error), error_details_pb2.BadRequest)
        assert bad is not None, error.details()
        assert [v.field for v in bad.field_violations] == [field]
    return error


async def merge(
    stub: Stub,
    memory: types.ArtifactRef,
    inputs: Sequence[types.EntryRef],
    text: str,
    **fields: Any,
) -> pb.MergeResponse:
    return await stub.Merge(
        pb.MergeRequest(memory=memory, inputs=inputs, kind="fact", text=text, **fields)
    )


def wire_content_hash(content: types.MemoryContent) -> str:
    """SHA-256 of the canonical MemoryContent, rebuilt from the wire message alone (JCS by
    the rfc8785 package): what a client checking content_hash computes."""

    def optional(message: Any, name: str) -> str | None:
        return getattr(message, name) if message.HasField(name) else None

    def change(c: types.MemoryChange) -> dict[str, Any]:
        data = {
            "entry_id": c.entry_id,
            "from_entry_version_id": optional(c, "from_entry_version_id"),
            "op": types.ChangeOp.Name(c.op).removeprefix("CHANGE_OP_").lower(),
            "reason": optional(c, "reason"),
            "to_entry_version_id": optional(c, "to_entry_version_id"),
        }
        if c.HasField("merged_into_entry_id"):
            data["merged_into_entry_id"] = c.merged_into_entry_id
        return data

    def row(e: types.MemoryManifestEntry) -> dict[str, Any]:
        data = {
            "entry_content_hash": e.entry_content_hash,
            "entry_id": e.entry_id,
            "entry_version_id": e.entry_version_id,
            "state": types.EntryState.Name(e.state).removeprefix("ENTRY_STATE_").lower(),
        }
        if e.merged_into_entry_id:
            data["merged_into_entry_id"] = e.merged_into_entry_id
        return data

    document = {
        "changes": [change(c) for c in content.changes],
        "manifest": {
            "entries": [row(e) for e in content.manifest.entries],
            "format": content.manifest.format,
        },
        "schema": content.schema,
    }
    return hashlib.sha256(rfc8785.dumps(document)).hexdigest()


def manifest_rows(view: pb.GetMemoryResponse) -> dict[str, types.MemoryManifestEntry]:
    return {row.entry_id: row for row in view.content.manifest.entries}


async def active_ids(stub: Stub, artifact_id: str) -> set[str]:
    page = await stub.ListEntries(pb.ListEntriesRequest(memory=head_ref(artifact_id)))
    return {e.citation.entry_id for e in page.entries}


async def abc(stub: Stub) -> tuple[types.ArtifactRef, list[types.EntryRef]]:
    """A memory with A, B, D (tags a / b / d), each citing its own source."""
    refs = []
    for name in ("a", "b", "d"):
        put = await stub.PutSource(
            pb.PutSourceRequest(kind="note", uri=f"repo://{name}", content=name.encode())
        )
        refs.append(
            types.SourceRef(source_id=put.source.source_id, content_hash=put.source.content_hash)
        )
    created = await stub.Remember(
        pb.RememberRequest(
            sources=refs,
            entries=[
                types.EntryInput(kind="fact", text=f"Fact {n}.", sources=[s], tags=[n])
                for n, s in zip("abd", refs, strict=True)
            ],
        )
    )
    return created.memory, [eref(r) for r in created.results]


# -- descriptions and tags ----------------------------------------------------------------------


async def test_descriptions_and_tags_travel_both_ways(stub: Stub) -> None:
    created = await create(
        stub,
        entry("Builds use uv.", description="  How we build  ", tags=["tooling", "build"]),
        entry("  many   spaces\n\there  "),
    )
    cited = [citation(created.memory, r) for r in created.results]
    expanded = await stub.Expand(pb.ExpandRequest(citations=cited))
    given, derived = [e.version for e in expanded.entries]
    assert (given.description, list(given.tags)) == ("How we build", ["build", "tooling"])
    assert (derived.description, list(derived.tags)) == ("many spaces here", [])

    memory = created.memory
    await refused(
        stub.Remember(pb.RememberRequest(memory=memory, entries=[entry("x", description="a\nb")])),
        Code.INVALID_ARGUMENT,
        "DESCRIPTION_INVALID",
        "entries[0].description",
    )
    await refused(
        stub.Remember(
            pb.RememberRequest(memory=memory, entries=[entry("x"), entry("y", tags=["ok", "a,b"])])
        ),
        Code.INVALID_ARGUMENT,
        "TAGS_INVALID",
        "entries[1].tags[1]",
    )


async def test_get_memory_metadata_only_leaves_the_manifest_out(stub: Stub) -> None:
    created = await create(stub, entry("one"), entry("two"))
    memory_id = created.memory.artifact_id
    full = await head(stub, memory_id)
    light = await stub.GetMemory(
        pb.GetMemoryRequest(memory=head_ref(memory_id), metadata_only=True)
    )
    assert not full.content_omitted and len(full.content.manifest.entries) == 2
    assert light.content_omitted
    assert list(light.content.manifest.entries) == [] and list(light.content.changes) == []
    assert light.content_hash == full.content_hash  # still names the full content
    assert (light.active_entries, light.inactive_entries) == (2, 0)
    assert light.memory == full.memory


# -- recall manifest and listing ----------------------------------------------------------------


async def test_recall_manifest_pages_by_entry_id_without_text(stub: Stub) -> None:
    created = await create(
        stub,
        *(entry(f"fact number {i}", tags=["even" if i % 2 == 0 else "odd"]) for i in range(4)),
        entry("a preference", kind="preference", description="Prefers uv", tags=["even", "odd"]),
    )
    memory_id = created.memory.artifact_id
    versions = {r.entry_id: r.entry_version_id for r in created.results}
    items: list[types.ListedEntry] = []
    token, sizes = "", []
    while True:
        page = await stub.GetRecallManifest(
            pb.GetRecallManifestRequest(memory=head_ref(memory_id), page_size=2, page_token=token)
        )
        assert page.code == pb.RECALL_MANIFEST_CODE_PAGE and page.memory == created.memory
        sizes.append(len(page.items))
        items.extend(page.items)
        token = page.next_page_token
        if not token:
            break
    assert sizes == [2, 2, 1]
    ids = [i.citation.entry_id for i in items]
    assert ids == sorted(versions) and len(set(ids)) == 5
    for item in items:
        assert item.citation.memory_ref == created.memory
        assert item.citation.entry_version_id == versions[item.citation.entry_id]
        assert item.status == types.ENTRY_STATUS_ACTIVE and item.text == ""
        assert item.description and item.entry_content_hash
    preference = next(i for i in items if i.kind == "preference")
    assert preference.description == "Prefers uv" and list(preference.tags) == ["even", "odd"]

    async def selected(**filters: Any) -> list[str]:
        page = await stub.GetRecallManifest(
            pb.GetRecallManifestRequest(memory=head_ref(memory_id), **filters)
        )
        return sorted(i.kind + ":" + ",".join(i.tags) for i in page.items)

    assert await selected(kinds=["preference"]) == ["preference:even,odd"]
    assert len(await selected(tags=["even"])) == 3
    assert await selected(tags=["even", "odd"]) == ["preference:even,odd"]  # all (default)
    assert len(await selected(tags=["even", "odd"], tag_match=types.TAG_MATCH_ANY)) == 5
    assert await selected(kinds=["fact"], tags=["even", "odd"]) == []  # a page, not empty memory


async def test_recall_manifest_refusals_and_the_empty_memory_code(stub: Stub) -> None:
    created = await create(stub, entry("one"), entry("two"), entry("three"))
    memory = head_ref(created.memory.artifact_id)
    for size in (101, -1):
        await refused(
            stub.GetRecallManifest(pb.GetRecallManifestRequest(memory=memory, page_size=size)),
            Code.INVALID_ARGUMENT,
            "INVALID_ARGUMENT",
            "page_size",
        )
    await refused(
        stub.GetRecallManifest(pb.GetRecallManifestRequest(memory=memory, tags=["x"], tag_match=9)),  # type: ignore[arg-type]
        Code.INVALID_ARGUMENT,
        "INVALID_ARGUMENT",
        "tag_match",
    )
    first = await stub.GetRecallManifest(pb.GetRecallManifestRequest(memory=memory, page_size=1))
    token = first.next_page_token
    assert token and len(token) < 4096
    prefix, payload, mac = token.split(".")
    for bad, reason in (
        (tampered(token), "PAGE_TOKEN_INVALID"),
        ("garbage", "PAGE_TOKEN_INVALID"),
        (f"pc1.{payload}.{mac}", "PAGE_TOKEN_FORMAT_RETIRED"),
    ):
        await refused(
            stub.GetRecallManifest(pb.GetRecallManifestRequest(memory=memory, page_token=bad)),
            Code.INVALID_ARGUMENT,
            reason,
            "page_token",
        )
    # Bound to its filters and its operation.
    await refused(
        stub.GetRecallManifest(
            pb.GetRecallManifestRequest(memory=memory, page_token=token, kinds=["fact"])
        ),
        Code.INVALID_ARGUMENT,
        "PAGE_TOKEN_MISMATCH",
        "page_token",
    )
    await refused(
        stub.ListEntries(pb.ListEntriesRequest(memory=memory, page_token=token)),
        Code.INVALID_ARGUMENT,
        "PAGE_TOKEN_MISMATCH",
        "page_token",
    )

    everything = [eref(r) for r in created.results]
    await stub.Forget(pb.ForgetRequest(memory=created.memory, entries=everything))
    empty = await stub.GetRecallManifest(pb.GetRecallManifestRequest(memory=memory))
    assert empty.code == pb.RECALL_MANIFEST_CODE_EMPTY_MEMORY
    assert list(empty.items) == [] and empty.next_page_token == ""


async def test_list_entries_by_status_with_text(stub: Stub) -> None:
    memory, (a, b, d) = await abc(stub)
    merged = await merge(stub, memory, [a, b], "Facts a and b.")
    forgotten = await stub.Forget(pb.ForgetRequest(memory=merged.memory, entries=[d]))
    memory_id = memory.artifact_id

    async def listed(*statuses: int, **more: Any) -> list[types.ListedEntry]:
        page = await stub.ListEntries(
            pb.ListEntriesRequest(memory=head_ref(memory_id), statuses=statuses, **more)
        )
        assert page.memory == forgotten.memory and page.next_page_token == ""
        return list(page.entries)

    active = await listed()
    assert [e.citation.entry_id for e in active] == [merged.result.entry_id]
    assert active[0].text == ""
    assert (await listed(include_text=True))[0].text == "Facts a and b."
    merged_entries = await listed(types.ENTRY_STATUS_MERGED)
    assert {e.citation.entry_id for e in merged_entries} == {a.entry_id, b.entry_id}
    assert {e.merged_into_entry_id for e in merged_entries} == {merged.result.entry_id}
    assert {e.status for e in merged_entries} == {types.ENTRY_STATUS_MERGED}
    inactive = await listed(types.ENTRY_STATUS_INACTIVE)
    assert [(e.citation.entry_id, e.merged_into_entry_id) for e in inactive] == [(d.entry_id, "")]
    everything = await listed(
        types.ENTRY_STATUS_ACTIVE, types.ENTRY_STATUS_INACTIVE, types.ENTRY_STATUS_MERGED
    )
    ids = [e.citation.entry_id for e in everything]
    assert ids == sorted(ids) and len(ids) == 4
    assert [e.citation.entry_id for e in await listed(types.ENTRY_STATUS_MERGED, tags=["a"])] == [
        a.entry_id
    ]
    await refused(
        stub.ListEntries(pb.ListEntriesRequest(memory=head_ref(memory_id), statuses=[7])),  # type: ignore[list-item]
        Code.INVALID_ARGUMENT,
        "INVALID_ARGUMENT",
        "statuses[0]",
    )


# -- search filters -----------------------------------------------------------------------------


async def test_search_filters_and_min_score(stub: Stub) -> None:
    created = await create(
        stub,
        entry("make test runs the unit tests", tags=["ci"]),
        entry("make check runs the linters", kind="preference", tags=["ci", "lint"]),
        entry("make docs builds the site", description="Docs build"),
    )
    memory = created.memory

    async def hits(**filters: Any) -> list[types.Hit]:
        request = pb.SearchRequest(
            query="make", memories=[memory], mode=types.SEARCH_MODE_FTS, **filters
        )
        return list((await stub.Search(request)).hits)

    assert len(await hits()) == 3
    [preference] = await hits(kinds=["preference"])
    assert preference.kind == "preference" and list(preference.tags) == ["ci", "lint"]
    assert preference.description == "make check runs the linters"
    assert len(await hits(tags=["ci"])) == 2
    assert len(await hits(tags=["lint", "nothing"], tag_match=types.TAG_MATCH_ANY)) == 1
    assert await hits(tags=["lint", "nothing"]) == []
    top = max(h.score for h in await hits())
    assert await hits(min_score=top + 1.0) == []
    assert len(await hits(min_score=top)) >= 1
    await refused(
        stub.Search(pb.SearchRequest(query="make", memories=[memory], min_score=-1.0)),
        Code.INVALID_ARGUMENT,
        "INVALID_ARGUMENT",
        "min_score",
    )


# -- merge --------------------------------------------------------------------------------------


async def test_merge_folds_inputs_into_one_new_entry(stub: Stub) -> None:
    memory, (a, b, _) = await abc(stub)
    response = await merge(stub, memory, [a, b], "Facts a and b.", reason="same topic")
    assert response.memory.revision == memory.revision + 1
    ops = {(c.op, c.entry_id) for c in response.changes}
    assert ops == {
        (types.CHANGE_OP_ADD, response.result.entry_id),
        (types.CHANGE_OP_DEACTIVATE, a.entry_id),
        (types.CHANGE_OP_DEACTIVATE, b.entry_id),
    }
    assert {c.reason for c in response.changes} == {"same topic"}
    into = {c.entry_id: c.merged_into_entry_id for c in response.changes}
    assert into == {a.entry_id: response.result.entry_id, b.entry_id: response.result.entry_id,
                    response.result.entry_id: ""}  # fmt: skip

    current = await head(stub, memory.artifact_id)
    assert current.content_hash == wire_content_hash(current.content)
    rows = manifest_rows(current)
    for input_ref in (a, b):
        row = rows[input_ref.entry_id]
        assert row.state == types.ENTRY_STATE_INACTIVE
        assert row.merged_into_entry_id == response.result.entry_id
        assert row.entry_version_id == input_ref.entry_version_id
    assert rows[response.result.entry_id].merged_into_entry_id == ""

    cite = [citation(response.memory, response.result), citation(memory, a)]
    result, old_a = (await stub.Expand(pb.ExpandRequest(citations=cite))).entries
    assert result.version.text == "Facts a and b." and list(result.version.tags) == ["a", "b"]
    assert result.version.description == "Facts a and b."
    assert len(result.version.source_refs) == 2  # the union of the inputs' evidence
    assert old_a.version.text == "Fact a." and old_a.state == types.ENTRY_STATE_ACTIVE


async def test_merge_refusals(stub: Stub) -> None:
    memory, (a, b, d) = await abc(stub)
    await refused(
        merge(stub, memory, [a], "only one"),
        Code.INVALID_ARGUMENT,
        "MERGE_NEEDS_TWO_INPUTS",
        "inputs",
    )
    await refused(
        merge(stub, memory, [a, a], "twice"),
        Code.INVALID_ARGUMENT,
        "DUPLICATE_ENTRY_IN_BATCH",
        "inputs",
    )
    revise_a = types.EntryInput(entry=a, kind="fact", text="A2")
    revised = await stub.Remember(pb.RememberRequest(memory=memory, entries=[revise_a]))
    await refused(
        merge(stub, revised.memory, [a, b], "stale a"), Code.ABORTED, "ENTRY_VERSION_STALE"
    )
    await refused(merge(stub, memory, [b, d], "old head"), Code.ABORTED, "REVISION_CONFLICT")
    forgotten = await stub.Forget(pb.ForgetRequest(memory=revised.memory, entries=[d]))
    await refused(
        merge(stub, forgotten.memory, [b, d], "inactive d"),
        Code.FAILED_PRECONDITION,
        "ENTRY_INACTIVE",
    )
    a2 = eref(revised.results[0])
    merged = await merge(stub, forgotten.memory, [a2, b], "a and b")
    await refused(
        stub.Reactivate(pb.ReactivateRequest(memory=merged.memory, entries=[b])),
        Code.FAILED_PRECONDITION,
        "ENTRY_MERGED",
    )


# -- restore, undo-merge, preview ---------------------------------------------------------------


async def test_restoring_b_undoes_both_merges_that_froze_it(stub: Stub) -> None:
    memory, (a, b, d) = await abc(stub)
    c = await merge(stub, memory, [a, b], "C: a and b")
    e = await merge(stub, c.memory, [c.result, d], "E: c and d")
    restored = await stub.Restore(
        pb.RestoreRequest(memory=e.memory, entry_id=b.entry_id, reason="need b back")
    )
    assert restored.changed and restored.memory.revision == e.memory.revision + 1
    outcome = restored.outcome
    assert {r.entry_id: r.entry_version_id for r in outcome.restored} == {
        x.entry_id: x.entry_version_id for x in (a, b, d)
    }  # each with the version it had when frozen
    assert {r.entry_id for r in outcome.retired} == {c.result.entry_id, e.result.entry_id}
    assert list(outcome.undone_merge_results) == [e.result.entry_id, c.result.entry_id]
    assert await active_ids(stub, memory.artifact_id) == {a.entry_id, b.entry_id, d.entry_id}
    rows = manifest_rows(await head(stub, memory.artifact_id))
    assert all(row.merged_into_entry_id == "" for row in rows.values())
    history = await stub.Changes(pb.ChangesRequest(memory=restored.memory)).read()
    assert any(ch.op == types.CHANGE_OP_REACTIVATE for ch in history.revision.changes)

    again = await stub.Restore(pb.RestoreRequest(memory=restored.memory, entry_id=b.entry_id))
    assert not again.changed and again.memory == restored.memory  # already active: no-op


async def test_restore_a_forgotten_entry_or_a_historical_version(stub: Stub) -> None:
    created = await create(stub, entry("version one"))
    first = eref(created.results[0])
    revised = await stub.Remember(
        pb.RememberRequest(
            memory=created.memory,
            entries=[types.EntryInput(entry=first, kind="fact", text="version two")],
        )
    )
    second = eref(revised.results[0])
    forgotten = await stub.Forget(pb.ForgetRequest(memory=revised.memory, entries=[second]))
    back = await stub.Restore(pb.RestoreRequest(memory=forgotten.memory, entry_id=first.entry_id))
    assert back.changed and [eref(r) for r in back.outcome.restored] == [second]

    old = await stub.Restore(
        pb.RestoreRequest(
            memory=back.memory, entry_id=first.entry_id, entry_version_id=first.entry_version_id
        )
    )
    [third] = old.outcome.restored
    assert third.entry_version_id not in (first.entry_version_id, second.entry_version_id)
    cite = citation(old.memory, third)
    version = (await stub.Expand(pb.ExpandRequest(citations=[cite]))).entries[0].version
    assert version.text == "version one" and version.previous_version_id == second.entry_version_id


async def test_preview_then_apply_with_its_token(stub: Stub) -> None:
    memory, (a, b, d) = await abc(stub)
    c = await merge(stub, memory, [a, b], "C: a and b")
    preview = await stub.PreviewRestore(
        pb.PreviewRestoreRequest(
            memory=head_ref(memory.artifact_id),
            operation=types.RESTORE_OPERATION_UNDO_MERGE,
            entry_id=c.result.entry_id,
        )
    )
    assert preview.would_change and preview.memory == c.memory and preview.preview_token
    assert {r.entry_id for r in preview.outcome.restored} == {a.entry_id, b.entry_id}
    assert [r.entry_id for r in preview.outcome.retired] == [c.result.entry_id]
    assert preview.expires_at.seconds > 0
    assert (await head(stub, memory.artifact_id)).memory == c.memory  # wrote nothing

    # Bound to its operation and target.
    await refused(
        stub.Restore(
            pb.RestoreRequest(
                memory=head_ref(memory.artifact_id),
                entry_id=c.result.entry_id,
                preview_token=preview.preview_token,
            )
        ),
        Code.INVALID_ARGUMENT,
        "PREVIEW_TOKEN_MISMATCH",
        "preview_token",
    )
    await refused(
        stub.UndoMerge(
            pb.UndoMergeRequest(
                memory=head_ref(memory.artifact_id),
                entry_id=c.result.entry_id,
                preview_token=tampered(preview.preview_token),
            )
        ),
        Code.INVALID_ARGUMENT,
        "PREVIEW_TOKEN_INVALID",
        "preview_token",
    )
    # An unrelated write does not make it stale (revision 0 with a token: the current head).
    other = await stub.Forget(pb.ForgetRequest(memory=c.memory, entries=[d]))
    undone = await stub.UndoMerge(
        pb.UndoMergeRequest(
            memory=head_ref(memory.artifact_id),
            entry_id=c.result.entry_id,
            preview_token=preview.preview_token,
        )
    )
    assert undone.changed and undone.memory.revision == other.memory.revision + 1
    assert undone.outcome == preview.outcome
    assert await active_ids(stub, memory.artifact_id) == {a.entry_id, b.entry_id}


async def test_a_preview_is_stale_once_its_entries_change(stub: Stub) -> None:
    memory, (a, b, _) = await abc(stub)
    c = await merge(stub, memory, [a, b], "C: a and b")
    preview = await stub.PreviewRestore(
        pb.PreviewRestoreRequest(
            memory=c.memory, operation=types.RESTORE_OPERATION_RESTORE, entry_id=a.entry_id
        )
    )
    await stub.Forget(pb.ForgetRequest(memory=c.memory, entries=[c.result]))  # C changes
    await refused(
        stub.Restore(
            pb.RestoreRequest(
                memory=head_ref(memory.artifact_id),
                entry_id=a.entry_id,
                preview_token=preview.preview_token,
            )
        ),
        Code.ABORTED,
        "PREVIEW_STALE",
    )


async def test_undo_merge_and_preview_refusals(stub: Stub) -> None:
    memory, (a, _, _) = await abc(stub)
    await refused(
        stub.UndoMerge(pb.UndoMergeRequest(memory=memory, entry_id=a.entry_id)),
        Code.FAILED_PRECONDITION,
        "NOT_A_MERGE_RESULT",
    )
    await refused(
        stub.PreviewRestore(pb.PreviewRestoreRequest(memory=memory, entry_id=a.entry_id)),
        Code.INVALID_ARGUMENT,
        "INVALID_ARGUMENT",
        "operation",
    )
    await refused(
        stub.PreviewRestore(
            pb.PreviewRestoreRequest(memory=memory, entry_id=a.entry_id, operation=5)  # type: ignore[arg-type]
        ),
        Code.INVALID_ARGUMENT,
        "INVALID_ARGUMENT",
        "operation",
    )
