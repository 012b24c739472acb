"""Idempotency keys over real gRPC (docs/api.md, "Idempotent writes"): the same request_id with
the same request gets the recorded response and commits once; with another method, another
memory, another base revision or another body it is refused (ALREADY_EXISTS,
REQUEST_ID_REUSED) and commits nothing; a failed write records nothing."""

from __future__ import annotations

import grpc
import pytest

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_client.errors import error_info

Stub = pb_grpc.MemoryServiceStub


def fact(text: str) -> types.EntryInput:
    return types.EntryInput(kind="fact", text=text)


def ref_of(answer: pb.RememberResponse, index: int) -> types.EntryRef:
    result = answer.results[index]
    return types.EntryRef(entry_id=result.entry_id, entry_version_id=result.entry_version_id)


async def head(stub: Stub, memory: types.ArtifactRef) -> pb.GetMemoryResponse:
    at_head = types.ArtifactRef(artifact_id=memory.artifact_id)
    return await stub.GetMemory(pb.GetMemoryRequest(memory=at_head))


async def memory_count(stub: Stub) -> int:
    return len((await stub.ListMemories(pb.ListMemoriesRequest(page_size=100))).memories)


async def assert_reused(call: object, request_id: str) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    error = caught.value
    assert error.code() == grpc.StatusCode.ALREADY_EXISTS, error.details()
    assert error_info(error) == (
        "REQUEST_ID_REUSED",
        {"field": "request_id", "requestId": request_id},
    )


async def test_the_same_request_again_gets_the_recorded_answer_and_commits_once(
    stub: Stub,
) -> None:
    create = pb.RememberRequest(entries=[fact("Tests run with make test.")], request_id="c-1")
    first = await stub.Remember(create)
    assert await stub.Remember(create) == first
    assert await memory_count(stub) == 1  # a create, sent twice: one memory

    forget = pb.ForgetRequest(memory=first.memory, entries=[ref_of(first, 0)], request_id="f-1")
    forgot = await stub.Forget(forget)
    assert forgot.changed and forgot.memory.revision == 2
    again = await stub.Forget(forget)
    assert again == forgot  # the changes included, read back from the recorded revision
    current = await head(stub, first.memory)
    assert current.head_revision == 2 and current.inactive_entries == 1


async def test_a_retry_after_the_head_moved_is_answered_not_aborted(stub: Stub) -> None:
    created = await stub.Remember(pb.RememberRequest(entries=[fact("Uses ruff.")]))
    update = pb.RememberRequest(
        memory=created.memory, entries=[fact("Uses mypy.")], request_id="u-1"
    )
    first = await stub.Remember(update)
    await stub.Remember(pb.RememberRequest(memory=first.memory, entries=[fact("Uses uv.")]))
    assert await stub.Remember(update) == first  # its base (revision 1) is long gone
    assert (await head(stub, created.memory)).head_revision == 3


async def test_the_same_id_with_another_body_is_refused(stub: Stub) -> None:
    first = await stub.Remember(pb.RememberRequest(entries=[fact("One.")], request_id="b-1"))
    other = pb.RememberRequest(entries=[fact("Something else.")], request_id="b-1")
    await assert_reused(stub.Remember(other), "b-1")
    assert await memory_count(stub) == 1
    # The refusal recorded nothing: the first request is still answered from its record.
    again = pb.RememberRequest(entries=[fact("One.")], request_id="b-1")
    assert await stub.Remember(again) == first


async def test_the_same_id_with_another_method_is_refused(stub: Stub) -> None:
    """Forget and Reactivate requests with equal fields are equal bytes: only the method
    tells them apart."""
    created = await stub.Remember(pb.RememberRequest(entries=[fact("A."), fact("B.")]))
    forget = pb.ForgetRequest(memory=created.memory, entries=[ref_of(created, 0)], request_id="m-1")
    await stub.Forget(forget)
    reactivate = pb.ReactivateRequest.FromString(forget.SerializeToString())
    assert reactivate.SerializeToString() == forget.SerializeToString()
    await assert_reused(stub.Reactivate(reactivate), "m-1")
    current = await head(stub, created.memory)
    assert (current.head_revision, current.inactive_entries) == (2, 1)


async def test_the_same_id_on_another_memory_is_refused(stub: Stub) -> None:
    one = await stub.Remember(pb.RememberRequest(entries=[fact("A.")]))
    two = await stub.Remember(pb.RememberRequest(entries=[fact("B.")]))
    first = await stub.Remember(
        pb.RememberRequest(memory=one.memory, entries=[fact("Uses uv.")], request_id="o-1")
    )
    assert first.changed
    other = pb.RememberRequest(memory=two.memory, entries=[fact("Uses uv.")], request_id="o-1")
    await assert_reused(stub.Remember(other), "o-1")
    current = await head(stub, two.memory)
    assert (current.head_revision, current.active_entries) == (1, 1)


async def test_the_same_id_on_another_base_revision_is_refused(stub: Stub) -> None:
    created = await stub.Remember(pb.RememberRequest(entries=[fact("Uses ruff.")]))
    first = await stub.Remember(
        pb.RememberRequest(memory=created.memory, entries=[fact("Uses mypy.")], request_id="r-1")
    )
    rebuilt = pb.RememberRequest(
        memory=first.memory, entries=[fact("Uses mypy.")], request_id="r-1"
    )
    await assert_reused(stub.Remember(rebuilt), "r-1")
    current = await head(stub, created.memory)
    assert (current.head_revision, current.active_entries) == (2, 2)


async def test_a_failed_write_records_nothing(stub: Stub) -> None:
    created = await stub.Remember(pb.RememberRequest(entries=[fact("Uses ruff.")]))
    moved = await stub.Remember(
        pb.RememberRequest(memory=created.memory, entries=[fact("Uses mypy.")])
    )
    stale = pb.RememberRequest(memory=created.memory, entries=[fact("Uses uv.")], request_id="a")
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.Remember(stale)
    assert caught.value.code() == grpc.StatusCode.ABORTED
    corrected = pb.RememberRequest(memory=moved.memory, entries=[fact("Uses uv.")], request_id="a")
    answer = await stub.Remember(corrected)
    assert answer.changed and answer.memory.revision == 3
