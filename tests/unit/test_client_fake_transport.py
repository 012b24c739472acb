"""FakeTransport itself (powercontext_client.testing): what a handler sees and may answer, the
errors it builds, and how a broken handler or an unknown method fails. The client's policy on
top of it is tested in test_client_policy.py; the documented example runs here."""

from __future__ import annotations

import asyncio
import contextlib
import io
import itertools
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types
from powercontext_client import (
    AsyncClient,
    Backoff,
    Client,
    ClientConfig,
    FailedPrecondition,
    FakeCall,
    FakeTransport,
    InternalError,
    InvalidArgument,
    Unavailable,
    new_entry,
    ref,
    rpc_error,
)
from powercontext_client.errors import STATUS_DETAILS_KEY
from powercontext_client.transport import OPENED
from tests.doc_blocks import blocks, elided_match, section

CAPABILITIES = pb.GetCapabilitiesResponse(capabilities=types.Capabilities(backend="sqlite"))


def capabilities(call: FakeCall) -> pb.GetCapabilitiesResponse:
    return CAPABILITIES


def raising(error: grpc.RpcError) -> Any:
    def fail(call: FakeCall) -> Any:
        raise error

    return fail


def revision(number: int) -> pb.ChangesResponse:
    return pb.ChangesResponse(revision=pb.RevisionChanges(memory_ref=ref("mem_art_x", number)))


def test_a_handler_sees_each_call_as_a_server_would_and_answers_it() -> None:
    fake = FakeTransport(capabilities)
    client = Client(config=ClientConfig(token="t", timeout=3.0), transport=fake)
    answered = client.capabilities()
    assert answered == CAPABILITIES.capabilities
    answered.backend = "changed by the caller"
    assert CAPABILITIES.capabilities.backend == "sqlite"  # the answer went as a copy
    (call,) = fake.calls
    assert (call.service, call.method) == (
        "powercontext.memory.v1.MemoryService",
        "GetCapabilities",
    )
    assert call.path == "/powercontext.memory.v1.MemoryService/GetCapabilities"
    assert call.request == pb.GetCapabilitiesRequest()
    assert call.timeout is not None and 2.5 < call.timeout <= 3.0
    assert call.metadata == (("authorization", "Bearer t"),)
    assert fake.requests("GetCapabilities") == [pb.GetCapabilitiesRequest()]
    assert fake.requests("Remember") == []


async def test_the_async_client_takes_async_handlers_and_async_streams() -> None:
    async def get_memory(call: FakeCall) -> pb.GetMemoryResponse:
        await asyncio.sleep(0)
        return pb.GetMemoryResponse(memory=ref("mem_art_x", 4))

    async def changes(call: FakeCall) -> AsyncIterator[pb.ChangesResponse]:
        for number in (1, 2):
            await asyncio.sleep(0)
            yield revision(number)

    fake = FakeTransport({"GetMemory": get_memory, "Changes": changes})
    async with AsyncClient(transport=fake) as client:
        assert (await client.head("mem_art_x")).revision == 4
        listed = await client.changes(ref("mem_art_x", 2), 0)
    assert [r.memory_ref.revision for r in listed] == [1, 2]
    assert fake.closed
    with pytest.raises(RuntimeError, match="use AsyncClient"):  # the blocking Client never waits
        Client(transport=FakeTransport({"GetMemory": get_memory})).head("mem_art_x")


def test_a_method_without_a_handler_is_unimplemented_and_not_retried() -> None:
    fake = FakeTransport({"GetCapabilities": capabilities})
    client = Client(transport=fake)
    with pytest.raises(InternalError) as caught:
        client.get_memory("mem_art_x")
    assert caught.value.code == grpc.StatusCode.UNIMPLEMENTED
    assert "GetMemory has no handler" in caught.value.message
    assert "it answers GetCapabilities" in caught.value.message
    assert len(fake.calls) == 1
    with pytest.raises(AttributeError, match="MemoryService has no method 'NoSuchMethod'"):
        _ = client.stub.NoSuchMethod  # the stub has the service's methods, like the real one


@pytest.mark.parametrize("face", [Client, AsyncClient])
async def test_another_exception_from_a_handler_comes_out_as_it_is_and_once(face: Any) -> None:
    bug = ValueError("a bug in the test's handler")

    def broken(call: FakeCall) -> Any:
        raise bug

    fake = FakeTransport(broken)
    client = face(transport=fake, backoff=Backoff(initial=0.0, maximum=0.0))
    for send in (
        lambda: client.capabilities(),
        lambda: client.remember(None, [new_entry("fact", "x")]),
    ):
        with pytest.raises(ValueError) as caught:
            result = send()
            if face is AsyncClient:
                await result
        assert caught.value is bug
    assert [call.method for call in fake.calls] == ["GetCapabilities", "Remember"]
    assert fake.sleeps == []


def test_a_handler_raising_the_clients_own_error_is_told_to_raise_rpc_error() -> None:
    def misraised(call: FakeCall) -> Any:
        raise Unavailable(grpc.StatusCode.UNAVAILABLE, "down")

    with pytest.raises(TypeError, match=r"raised Unavailable: raise rpc_error\(...\)"):
        Client(transport=FakeTransport(misraised)).capabilities()


@pytest.mark.parametrize(
    ("answer", "complaint"),
    [
        (pb.GetMemoryResponse(), "with GetMemoryResponse: return a GetCapabilitiesResponse"),
        (None, "with NoneType: return a GetCapabilitiesResponse"),
        ([CAPABILITIES], "with list: return a GetCapabilitiesResponse"),
    ],
)
def test_a_unary_answer_must_be_the_methods_response(answer: Any, complaint: str) -> None:
    with pytest.raises(TypeError, match=complaint):
        Client(transport=FakeTransport(lambda call: answer)).capabilities()


def test_a_stream_answer_must_be_messages_of_the_methods_response() -> None:
    memory = ref("mem_art_x", 1)
    single = FakeTransport(lambda call: revision(1))
    with pytest.raises(
        TypeError, match="stream .*Changes with ChangesResponse: return an iterable"
    ):
        Client(transport=single).changes(memory)
    mixed = FakeTransport(lambda call: [revision(1), pb.GetMemoryResponse()])
    with pytest.raises(TypeError, match="with GetMemoryResponse: return a ChangesResponse"):
        Client(transport=mixed).changes(memory)


def test_a_stream_ends_with_the_error_its_generator_raises() -> None:
    def changes(call: FakeCall) -> Iterator[pb.ChangesResponse]:
        yield revision(1)
        raise rpc_error(grpc.StatusCode.FAILED_PRECONDITION, "stale", reason="NOT_HEAD")

    with pytest.raises(FailedPrecondition) as caught:
        Client(transport=FakeTransport({"Changes": changes})).changes(ref("mem_art_x", 2), 0)
    assert caught.value.reason == "NOT_HEAD"


async def test_a_stream_is_announced_open_once_its_handler_has_returned() -> None:
    fake = FakeTransport(lambda call: iter([revision(1)]))
    request = pb.ChangesRequest(memory=ref("mem_art_x"), follow=True)
    opened = fake.stream(fake.stub.Changes, request, timeout=None, metadata=(), announce=True)
    assert [m if m is OPENED else m.revision.memory_ref.revision async for m in opened] == [
        OPENED,
        1,
    ]
    refused = FakeTransport(raising(rpc_error(grpc.StatusCode.CANCELLED)))
    never_open = refused.stream(
        refused.stub.Changes, request, timeout=None, metadata=(), announce=True
    )
    with pytest.raises(grpc.RpcError):
        await anext(never_open)


async def test_the_transport_refuses_what_is_not_one_of_its_methods() -> None:
    fake = FakeTransport(capabilities)
    request = pb.GetCapabilitiesRequest()
    with pytest.raises(TypeError, match="not a method of a FakeTransport's stub"):
        await fake.unary(object(), request, timeout=None, metadata=())
    with pytest.raises(TypeError, match="Changes is a stream"):
        await fake.unary(fake.stub.Changes, request, timeout=None, metadata=())
    with pytest.raises(TypeError, match="GetCapabilities is a unary method"):
        await anext(fake.stream(fake.stub.GetCapabilities, request, timeout=None, metadata=()))
    assert fake.calls == []


def test_a_closed_transport_takes_no_more_calls() -> None:
    fake = FakeTransport(capabilities)
    with Client(transport=fake) as client:
        client.capabilities()
    assert fake.closed
    with pytest.raises(RuntimeError, match="closed"):
        client.capabilities()
    assert len(fake.calls) == 1


def test_backoff_pauses_are_recorded_not_slept() -> None:
    class SteadyBackoff(Backoff):
        def delays(self) -> Iterator[float]:
            return itertools.repeat(20.0)

    fake = FakeTransport(raising(rpc_error(grpc.StatusCode.UNAVAILABLE)))
    started = time.monotonic()
    with pytest.raises(Unavailable):
        Client(transport=fake, backoff=SteadyBackoff()).capabilities(timeout=None)
    assert fake.sleeps == [20.0] * 3
    assert time.monotonic() - started < 10  # slept, the three pauses would take 60 s


def test_rpc_error_builds_the_trailer_a_server_sends() -> None:
    violation = error_details_pb2.BadRequest.FieldViolation(field="text", description="empty")
    bad = error_details_pb2.BadRequest(field_violations=[violation])
    error = rpc_error(
        grpc.StatusCode.INVALID_ARGUMENT,
        "text: empty",
        reason="EMPTY_TEXT",
        metadata={"field": "text"},
        details=[bad],
    )
    assert isinstance(error, grpc.RpcError)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error.details() == "text: empty"
    ((key, value),) = list(error.trailing_metadata())
    status = status_pb2.Status.FromString(value)
    info = error_details_pb2.ErrorInfo()
    assert key == STATUS_DETAILS_KEY and status.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert status.details[0].Unpack(info) and info.domain == "powercontext.memory"
    assert (info.reason, dict(info.metadata)) == ("EMPTY_TEXT", {"field": "text"})
    with pytest.raises(InvalidArgument) as caught:
        Client(transport=FakeTransport(raising(error))).capabilities()
    assert caught.value.field_violations == [("text", "empty")]
    assert caught.value.detail(error_details_pb2.BadRequest) == bad
    bare = rpc_error(grpc.StatusCode.NOT_FOUND, "gone")
    assert list(bare.trailing_metadata()) == []


def test_the_documented_example_prints_what_it_shows() -> None:
    text = section("docs/clients.md", "python-fake-transport")
    (example,) = blocks(text, "python")
    (printed,) = blocks(text, "")
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(example, "docs/clients.md", "exec"), {"__name__": "example"})
    lines, expected = output.getvalue().splitlines(), printed.splitlines()
    assert len(lines) == len(expected), output.getvalue()
    for line, want in zip(lines, expected, strict=True):
        assert elided_match(want, line), (want, line)
