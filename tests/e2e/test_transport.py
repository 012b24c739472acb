"""End to end over a real gRPC channel: contract shapes, error mapping, the Changes stream."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_client.errors import error_info, status_details, unpack_detail
from powercontext_memory.transport.server import SERVICE_NAME, RunningServer

GRPCURL = Path(__file__).resolve().parents[2] / ".venv" / "bin" / "grpcurl"
READ_TIMEOUT = 10.0

Stub = pb_grpc.MemoryServiceStub


# -- helpers ------------------------------------------------------------------------------------


def entry(text: str, *, kind: str = "fact") -> types.EntryInput:
    return types.EntryInput(kind=kind, text=text)


def ref(artifact_id: str, revision: int) -> types.ArtifactRef:
    return types.ArtifactRef(artifact_id=artifact_id, revision=revision)


async def create_memory(stub: Stub, *texts: str) -> pb.RememberResponse:
    return await stub.Remember(pb.RememberRequest(entries=[entry(t) for t in texts]))


async def remember(stub: Stub, memory: types.ArtifactRef, *texts: str) -> pb.RememberResponse:
    return await stub.Remember(pb.RememberRequest(memory=memory, entries=[entry(t) for t in texts]))


async def head_of(stub: Stub, artifact_id: str) -> types.ArtifactRef:
    response = await stub.GetMemory(pb.GetMemoryRequest(memory=ref(artifact_id, 0)))
    return response.memory


async def rpc_error(call: Awaitable[Any], code: grpc.StatusCode) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    assert caught.value.code() == code, caught.value.details()
    return caught.value


async def next_message(call: Any, timeout: float = READ_TIMEOUT) -> pb.ChangesResponse:
    message = await asyncio.wait_for(call.read(), timeout)
    assert message is not grpc.aio.EOF, "stream ended early"
    return message


async def next_revision(call: Any) -> pb.RevisionChanges:
    """Skip progress messages (they may come at any idle moment)."""
    while True:
        message = await next_message(call)
        if message.HasField("revision"):
            return message.revision


async def drain(call: Any) -> list[pb.ChangesResponse]:
    """Read to the end (read() rather than iteration: a call may not mix the two styles)."""
    messages = []
    while (message := await asyncio.wait_for(call.read(), READ_TIMEOUT)) is not grpc.aio.EOF:
        messages.append(message)
    return messages


# -- service plumbing ---------------------------------------------------------------------------


async def test_health_reports_serving(channel: grpc.aio.Channel) -> None:
    health = health_pb2_grpc.HealthStub(channel)
    for name in ("", SERVICE_NAME):
        response = await health.Check(health_pb2.HealthCheckRequest(service=name))
        assert response.status == health_pb2.HealthCheckResponse.SERVING


async def _grpcurl(*args: str) -> str:
    # Async subprocess: the server runs on this event loop, so blocking would deadlock.
    proc = await asyncio.create_subprocess_exec(
        str(GRPCURL), *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    return out.decode()


async def test_reflection_lists_and_describes_the_service(server: RunningServer) -> None:
    address = f"127.0.0.1:{server.port}"
    listed = (await _grpcurl("-plaintext", address, "list")).split()
    assert SERVICE_NAME in listed
    assert "grpc.health.v1.Health" in listed
    assert "grpc.reflection.v1alpha.ServerReflection" in listed
    # describe needs the dependency files too (types.proto, timestamp.proto).
    described = await _grpcurl("-plaintext", address, "describe", SERVICE_NAME)
    assert "stream .powercontext.memory.v1.ChangesResponse" in described
    source = await _grpcurl("-plaintext", address, "describe", "powercontext.memory.v1.Source")
    assert ".google.protobuf.Timestamp created_at = 8;" in source
    # The contract's comments come along: describe explains each field.
    search = await _grpcurl(
        "-plaintext", address, "describe", "powercontext.memory.v1.SearchRequest"
    )
    assert "// Memories to search (at least one; duplicates removed), each at its head" in search
    assert "repeated .powercontext.memory.v1.ArtifactRef memories = 2;" in search
    method = await _grpcurl("-plaintext", address, "describe", f"{SERVICE_NAME}.Search")
    assert "// Searches the active entries of the given memories at their heads" in method
    health = await _grpcurl("-plaintext", address, "describe", "grpc.health.v1.Health")
    assert "rpc Check ( .grpc.health.v1.HealthCheckRequest )" in health
    with pytest.raises(AssertionError, match="Symbol not found"):
        await _grpcurl("-plaintext", address, "describe", "powercontext.memory.v1.NoSuchThing")


async def test_capabilities(stub: Stub) -> None:
    caps = (await stub.GetCapabilities(pb.GetCapabilitiesRequest())).capabilities
    assert caps.fts is True
    assert caps.vector is False
    assert caps.hybrid is False
    assert caps.backend == "sqlite"
    assert caps.change_follow is True
    assert caps.analyzer == "v2"
    assert not caps.HasField("embedding_profile")
    assert caps.vector_unavailable_reason == "no embedding model is configured"


async def test_put_source_is_idempotent_and_round_trips(stub: Stub) -> None:
    request = pb.PutSourceRequest(
        kind="user_note",
        uri="repo://AGENTS.md@abc",
        media_type="text/markdown",
        content=b"# notes\n\xe2\x9c\x93 done\n",
        metadata={"author": "ada", "lang": "en"},
    )
    first = await stub.PutSource(request)
    second = await stub.PutSource(request)
    assert first.created is True
    assert second.created is False
    assert second.source.source_id == first.source.source_id
    assert first.source.source_id == "src_" + first.source.content_hash[:32]

    fetched = (await stub.GetSource(pb.GetSourceRequest(source_id=first.source.source_id))).source
    assert fetched == first.source
    assert fetched.content == request.content
    assert dict(fetched.metadata) == {"author": "ada", "lang": "en"}
    assert fetched.created_at.ToMilliseconds() > 0


async def test_remember_then_get_memory_head_and_exact(stub: Stub) -> None:
    created = await create_memory(stub, "uses tabs for indentation", "prefers pytest")
    assert created.changed is True
    assert created.memory.revision == 1
    assert [r.outcome for r in created.results] == [pb.ENTRY_OUTCOME_ADDED] * 2
    assert {c.op for c in created.changes} == {types.CHANGE_OP_ADD}
    assert all(not c.HasField("from_entry_version_id") for c in created.changes)
    assert all(not c.HasField("reason") for c in created.changes)

    artifact_id = created.memory.artifact_id
    head = await stub.GetMemory(pb.GetMemoryRequest(memory=ref(artifact_id, 0)))
    exact = await stub.GetMemory(pb.GetMemoryRequest(memory=ref(artifact_id, 1)))
    assert head == exact

    assert head.memory == created.memory
    assert head.head_revision == 1
    assert head.content_hash == created.content_hash
    assert len(head.content_hash) == 64
    assert head.content.schema == "powercontext.memory.v1"
    assert head.content.manifest.format == "flat-v1"
    ids = [e.entry_id for e in head.content.manifest.entries]
    assert ids == sorted(ids) and len(ids) == 2
    assert {e.entry_id for e in head.content.manifest.entries} == {
        r.entry_id for r in created.results
    }
    assert all(e.state == types.ENTRY_STATE_ACTIVE for e in head.content.manifest.entries)
    assert (head.active_entries, head.inactive_entries) == (2, 0)
    assert head.lineage.operation == "remember"
    assert head.committed_at.ToMilliseconds() > 0


async def test_lifecycle_forget_reactivate_search_expand(stub: Stub) -> None:
    created = await create_memory(stub, "the build uses make", "deploys run on fridays")
    target = created.results[0]
    entry_ref = types.EntryRef(entry_id=target.entry_id, entry_version_id=target.entry_version_id)

    forgot = await stub.Forget(
        pb.ForgetRequest(memory=created.memory, entries=[entry_ref], reason="obsolete")
    )
    assert forgot.changed and forgot.memory.revision == 2
    (change,) = forgot.changes
    assert change.op == types.CHANGE_OP_DEACTIVATE
    assert change.reason == "obsolete"
    assert change.from_entry_version_id == target.entry_version_id
    assert not change.HasField("to_entry_version_id")

    again = await stub.Forget(pb.ForgetRequest(memory=forgot.memory, entries=[entry_ref]))
    assert again.changed is False and again.memory == forgot.memory

    back = await stub.Reactivate(pb.ReactivateRequest(memory=forgot.memory, entries=[entry_ref]))
    assert back.changes[0].op == types.CHANGE_OP_REACTIVATE
    assert not back.changes[0].HasField("reason")

    organized = await stub.Organize(pb.OrganizeRequest(memory=back.memory))
    assert organized.changed is False

    found = await stub.Search(
        pb.SearchRequest(query="build make", memories=[back.memory], mode=types.SEARCH_MODE_FTS)
    )
    assert found.mode == types.SEARCH_MODE_FTS
    assert [h.entry_id for h in found.hits] == [target.entry_id]
    assert list(found.hits[0].matched_by) == [types.SEARCH_CHANNEL_FTS]

    hit = found.hits[0]
    expanded = await stub.Expand(
        pb.ExpandRequest(
            citations=[
                types.Citation(
                    memory_ref=hit.memory_ref,
                    entry_id=hit.entry_id,
                    entry_version_id=hit.entry_version_id,
                )
            ]
        )
    )
    (item,) = expanded.entries
    assert item.version.text == "the build uses make"
    assert item.version.version == 1
    assert not item.version.HasField("previous_version_id")
    assert item.state == types.ENTRY_STATE_ACTIVE


async def test_remember_revise_and_auto_search(stub: Stub) -> None:
    created = await create_memory(stub, "lint with flake8")
    target = created.results[0]
    revised = await stub.Remember(
        pb.RememberRequest(
            memory=created.memory,
            entries=[
                types.EntryInput(
                    entry=types.EntryRef(
                        entry_id=target.entry_id, entry_version_id=target.entry_version_id
                    ),
                    kind="fact",
                    text="lint with ruff",
                    reason="switched linters",
                )
            ],
        )
    )
    (result,) = revised.results
    assert result.outcome == pb.ENTRY_OUTCOME_REVISED
    assert result.entry_id == target.entry_id
    (change,) = revised.changes
    assert (change.op, change.reason) == (types.CHANGE_OP_REVISE, "switched linters")

    found = await stub.Search(pb.SearchRequest(query="ruff", memories=[revised.memory]))
    assert found.mode == types.SEARCH_MODE_FTS  # AUTO without embeddings runs full text
    assert found.fallback_reason
    assert [h.entry_version_id for h in found.hits] == [result.entry_version_id]
    assert list(found.memories) == [revised.memory]
    # Revision 0 searches whatever the head is, and the answer says which revision that was.
    at_head = types.ArtifactRef(artifact_id=revised.memory.artifact_id)
    now = await stub.Search(pb.SearchRequest(query="ruff", memories=[at_head]))
    assert list(now.memories) == [revised.memory] and now.hits == found.hits


# -- error mapping over the wire ----------------------------------------------------------------


async def test_invalid_argument_names_the_field(stub: Stub) -> None:
    error = await rpc_error(create_memory(stub, "   "), grpc.StatusCode.INVALID_ARGUMENT)
    reason, metadata = error_info(error)
    assert reason == "EMPTY_TEXT"
    assert metadata["field"] == "entries[0].text"
    status = status_details(error)
    assert status is not None and status.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert status.message == error.details()
    infos = [d for d in status.details if d.Is(error_details_pb2.ErrorInfo.DESCRIPTOR)]
    assert len(infos) == 1
    bad_request = unpack_detail(status, error_details_pb2.BadRequest)
    assert [v.field for v in bad_request.field_violations] == ["entries[0].text"]
    info = unpack_detail(status, error_details_pb2.ErrorInfo)
    assert info.domain == "powercontext.memory"


async def test_unknown_enum_value_is_invalid_argument(stub: Stub) -> None:
    created = await create_memory(stub, "x")
    error = await rpc_error(
        stub.Organize(pb.OrganizeRequest(memory=created.memory, steps=[0])),
        grpc.StatusCode.INVALID_ARGUMENT,
    )
    assert error_info(error)[1]["field"] == "steps[0]"


async def test_not_found(stub: Stub) -> None:
    error = await rpc_error(
        stub.GetMemory(pb.GetMemoryRequest(memory=ref("mem_art_unknown", 0))),
        grpc.StatusCode.NOT_FOUND,
    )
    assert error_info(error) == ("MEMORY_NOT_FOUND", {"artifactId": "mem_art_unknown"})
    assert unpack_detail(status_details(error), error_details_pb2.BadRequest) is None


async def test_stale_revision_is_aborted(stub: Stub) -> None:
    created = await create_memory(stub, "first")
    await remember(stub, created.memory, "second")
    error = await rpc_error(remember(stub, created.memory, "third"), grpc.StatusCode.ABORTED)
    reason, metadata = error_info(error)
    assert reason == "REVISION_CONFLICT"
    assert metadata["expectedRevision"] == "1"
    assert metadata["headRevision"] == "2"


async def test_vector_search_is_not_supported(stub: Stub) -> None:
    created = await create_memory(stub, "anything")
    error = await rpc_error(
        stub.Search(
            pb.SearchRequest(
                query="anything", memories=[created.memory], mode=types.SEARCH_MODE_VECTOR
            )
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
    )
    reason, metadata = error_info(error)
    assert reason == "CAPABILITY_NOT_SUPPORTED"
    assert metadata == {"capability": "vector"}
    failure = unpack_detail(status_details(error), error_details_pb2.PreconditionFailure)
    assert [(v.type, v.subject) for v in failure.violations] == [
        ("CAPABILITY_NOT_SUPPORTED", "vector")
    ]


async def test_search_on_old_revision_is_refused(stub: Stub) -> None:
    created = await create_memory(stub, "old fact")
    await remember(stub, created.memory, "new fact")
    error = await rpc_error(
        stub.Search(pb.SearchRequest(query="fact", memories=[created.memory])),
        grpc.StatusCode.FAILED_PRECONDITION,
    )
    reason, metadata = error_info(error)
    assert reason == "MEMORY_NOT_AT_HEAD"
    assert metadata["headRevision"] == "2"
    assert metadata["field"] == "memories[0]"
    failure = unpack_detail(status_details(error), error_details_pb2.PreconditionFailure)
    assert failure.violations[0].subject == "memories[0]"


async def test_unexpected_error_is_internal_without_leaking(
    stub: Stub,
    server: RunningServer,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def broken(source_id: str) -> None:
        raise RuntimeError("secret table name memory_sources")

    monkeypatch.setattr(server.memory_service, "get_source", broken)
    with caplog.at_level(logging.ERROR):
        error = await rpc_error(
            stub.GetSource(pb.GetSourceRequest(source_id="src_x")), grpc.StatusCode.INTERNAL
        )
    assert "secret" not in error.details()
    assert error_info(error) == ("INTERNAL", {})
    assert "secret table name" in caplog.text  # the traceback goes to the log


# -- Changes ------------------------------------------------------------------------------------


async def _memory_with_three_revisions(stub: Stub) -> types.ArtifactRef:
    created = await create_memory(stub, "one")
    second = await remember(stub, created.memory, "two")
    drop = second.results[0]
    drop_ref = types.EntryRef(entry_id=drop.entry_id, entry_version_id=drop.entry_version_id)
    third = await stub.Forget(pb.ForgetRequest(memory=second.memory, entries=[drop_ref]))
    return third.memory


async def test_changes_history_one_message_per_revision(stub: Stub) -> None:
    memory = await _memory_with_three_revisions(stub)
    messages = await drain(stub.Changes(pb.ChangesRequest(memory=memory, since_revision=0)))
    assert all(m.HasField("revision") for m in messages)
    revisions = [m.revision for m in messages]
    assert [r.memory_ref.revision for r in revisions] == [1, 2, 3]
    assert [r.changes[0].op for r in revisions] == [
        types.CHANGE_OP_ADD,
        types.CHANGE_OP_ADD,
        types.CHANGE_OP_DEACTIVATE,
    ]
    for r in revisions:
        view = await stub.GetMemory(pb.GetMemoryRequest(memory=r.memory_ref))
        assert r.content_hash == view.content_hash
        assert r.committed_at == view.committed_at

    only_target = await drain(stub.Changes(pb.ChangesRequest(memory=memory)))
    assert [m.revision.memory_ref.revision for m in only_target] == [3]
    since_ref = await drain(
        stub.Changes(pb.ChangesRequest(memory=memory, since_ref=ref(memory.artifact_id, 1)))
    )
    assert [m.revision.memory_ref.revision for m in since_ref] == [2, 3]


async def test_changes_errors_end_the_stream(stub: Stub) -> None:
    memory = await _memory_with_three_revisions(stub)
    error = await rpc_error(
        drain(stub.Changes(pb.ChangesRequest(memory=ref("mem_art_nope", 1)))),
        grpc.StatusCode.NOT_FOUND,
    )
    assert error_info(error)[0] == "MEMORY_NOT_FOUND"
    error = await rpc_error(
        drain(stub.Changes(pb.ChangesRequest(memory=memory, since_revision=5))),
        grpc.StatusCode.INVALID_ARGUMENT,
    )
    assert error_info(error)[0] == "SINCE_BEYOND_TARGET"


async def _cas_writer(stub: Stub, artifact_id: str, name: str, count: int) -> int:
    """Append `count` entries, re-reading the head whenever another writer won the race."""
    conflicts = 0
    for i in range(count):
        while True:
            head = await head_of(stub, artifact_id)
            try:
                await remember(stub, head, f"{name} note {i}")
                break
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.ABORTED:
                    raise
                conflicts += 1
    return conflicts


async def test_follow_delivers_concurrent_commits_in_order(stub: Stub) -> None:
    created = await create_memory(stub, "seed")
    artifact_id = created.memory.artifact_id
    call = stub.Changes(pb.ChangesRequest(memory=ref(artifact_id, 0), follow=True))
    assert (await next_revision(call)).memory_ref.revision == 1  # stream is open now

    writers, per_writer = 4, 5
    total = writers * per_writer
    tasks = [
        asyncio.create_task(_cas_writer(stub, artifact_id, f"w{w}", per_writer))
        for w in range(writers)
    ]
    received = [await next_revision(call) for _ in range(total)]
    await asyncio.gather(*tasks)

    assert [r.memory_ref.revision for r in received] == list(range(2, 2 + total))
    for r in received:
        assert [c.op for c in r.changes] == [types.CHANGE_OP_ADD]
    last = received[-1]
    view = await stub.GetMemory(pb.GetMemoryRequest(memory=last.memory_ref))
    assert last.content_hash == view.content_hash
    assert view.active_entries == 1 + total

    # Nothing repeated or pending: the next message is progress at the final head.
    message = await next_message(call)
    assert message.HasField("progress")
    assert message.progress.head == last.memory_ref
    call.cancel()


async def test_follow_sends_progress_when_idle(stub: Stub) -> None:
    created = await create_memory(stub, "quiet")
    call = stub.Changes(pb.ChangesRequest(memory=created.memory, follow=True))
    assert (await next_message(call)).revision.memory_ref == created.memory
    started_ms = time.time_ns() // 1_000_000
    message = await next_message(call, timeout=5.0)
    assert message.HasField("progress")
    assert message.progress.head == created.memory
    assert message.progress.sent_at.ToMilliseconds() >= started_ms - 1000
    call.cancel()


@pytest.mark.parametrize("resume", ["since_revision", "since_ref"])
async def test_follow_resumes_after_a_revision(stub: Stub, resume: str) -> None:
    memory = await _memory_with_three_revisions(stub)
    since: dict[str, Any] = (
        {"since_revision": 1}
        if resume == "since_revision"
        else {"since_ref": ref(memory.artifact_id, 1)}
    )
    call = stub.Changes(pb.ChangesRequest(memory=ref(memory.artifact_id, 0), follow=True, **since))
    assert [(await next_revision(call)).memory_ref.revision for _ in range(2)] == [2, 3]
    await remember(stub, memory, "four")
    assert (await next_revision(call)).memory_ref.revision == 4
    call.cancel()


async def test_follow_ends_promptly_when_client_cancels(
    stub: Stub, server: RunningServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = server.memory_service
    service.progress_interval = 3600.0  # only the cancellation can end the feed
    ended = asyncio.Event()
    original = service.follow_changes

    async def tracked(*args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        try:
            async for item in original(*args, **kwargs):
                yield item
        finally:
            ended.set()

    monkeypatch.setattr(service, "follow_changes", tracked)
    created = await create_memory(stub, "watched")
    call = stub.Changes(pb.ChangesRequest(memory=created.memory, follow=True))
    await next_revision(call)
    assert not ended.is_set()
    call.cancel()
    # Nothing but the cancellation ends the feed within the hour: that it ends is the check,
    # the wait only bounds a failing run.
    await asyncio.wait_for(ended.wait(), 30.0)


async def test_follow_ends_with_unavailable_on_shutdown(stub: Stub, server: RunningServer) -> None:
    created = await create_memory(stub, "before shutdown")
    call = stub.Changes(pb.ChangesRequest(memory=created.memory, follow=True))
    await next_revision(call)

    grace = 30.0  # far beyond a loaded machine's stop: only the grace timeout could reach it
    started = time.monotonic()
    stopping = asyncio.create_task(server.stop(grace=grace))
    error = await rpc_error(drain(call), grpc.StatusCode.UNAVAILABLE)
    await stopping
    assert time.monotonic() - started < grace  # ended by the server, not by the grace timeout

    reason, metadata = error_info(error)
    assert reason == "SHUTTING_DOWN"
    assert metadata["resumeSinceRevision"] == "1"
    assert metadata["artifactId"] == created.memory.artifact_id
