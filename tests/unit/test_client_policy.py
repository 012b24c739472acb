"""The Python client's call policy — retries, deadlines, update(), follow(), token, TLS, error
families.

The policy runs on a FakeTransport (powercontext_client.testing): scripted answers, no socket,
backoff pauses recorded instead of slept, on both the blocking Client and AsyncClient.
What only a channel can show runs against a STAND-IN gRPC server (real grpc.aio server and
channel, scripted answers): the token and the deadline on the wire, a deadline that really
passes, TLS, and that the fake's errors are the ones a real channel delivers. Everything else
is tested against the real server in tests/e2e/test_python_client.py.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import socket
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
import trustme
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types
from powercontext_client import (
    Aborted,
    AsyncClient,
    Backoff,
    Cancelled,
    Client,
    ClientConfig,
    DeadlineExceeded,
    FailedPrecondition,
    FakeCall,
    FakeTransport,
    FollowEvent,
    InternalError,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    PowerContextError,
    RevisionConflict,
    TlsConfig,
    Unauthenticated,
    Unavailable,
    connect_error,
    new_entry,
    rpc_error,
)
from powercontext_client.core import READ_ATTEMPTS, WRITE_ATTEMPTS
from powercontext_memory.domain.errors import (
    InvalidArgumentError,
    MemoryServiceError,
    RevisionConflictError,
    UnavailableError,
)
from powercontext_memory.transport.errors import abort_with_status

MakeClient = Callable[..., Any]
SERVING = health_pb2.HealthCheckResponse.SERVING


# -- the policy, on a FakeTransport -------------------------------------------------------------


@pytest.fixture(params=[Client, AsyncClient], ids=["Client", "AsyncClient"])
def make_client(request: pytest.FixtureRequest) -> MakeClient:
    """A Client or an AsyncClient over `fake`, with ClientConfig(**config)."""

    def make(fake: FakeTransport, backoff: Backoff | None = None, **config: Any) -> Any:
        return request.param(config=ClientConfig(**config), transport=fake, backoff=backoff)

    return make


async def outcome(value: Any) -> Any:
    """A call's result: a Client has returned it already, an AsyncClient's is awaited."""
    return await value if inspect.isawaitable(value) else value


async def take(stream: Any, count: int) -> list[Any]:
    if isinstance(stream, AsyncIterator):
        return [await anext(stream) for _ in range(count)]
    return [next(stream) for _ in range(count)]


async def leave(stream: Any) -> None:
    await outcome(stream.aclose() if isinstance(stream, AsyncGenerator) else stream.close())


def always(error: grpc.RpcError) -> Callable[[FakeCall], Any]:
    def fail(call: FakeCall) -> Any:
        raise error

    return fail


def unavailable() -> grpc.RpcError:
    return rpc_error(grpc.StatusCode.UNAVAILABLE, "database down", reason="DATABASE_UNAVAILABLE")


def remember_ids(fake: FakeTransport) -> list[str]:
    return [request.request_id for request in fake.requests("Remember")]


def head(revision: int) -> pb.GetMemoryResponse:
    return pb.GetMemoryResponse(
        memory=types.ArtifactRef(artifact_id="mem_art_x", revision=revision)
    )


def revision(number: int) -> pb.ChangesResponse:
    return pb.ChangesResponse(
        revision=pb.RevisionChanges(
            memory_ref=types.ArtifactRef(artifact_id="mem_art_x", revision=number)
        )
    )


@dataclass(frozen=True, slots=True)
class SteadyBackoff(Backoff):
    """Every pause exactly `initial` seconds, so a test knows where the deadline falls."""

    def delays(self) -> Iterator[float]:
        return itertools.repeat(self.initial)


async def test_reads_and_writes_with_their_id_are_retried_on_unavailable(
    make_client: MakeClient,
) -> None:
    fake = FakeTransport(always(unavailable()))
    client = make_client(fake)
    with pytest.raises(Unavailable) as read_failure:
        await outcome(client.capabilities())
    assert read_failure.value.reason == "DATABASE_UNAVAILABLE"
    assert [call.method for call in fake.calls] == ["GetCapabilities"] * READ_ATTEMPTS
    assert len(fake.sleeps) == READ_ATTEMPTS - 1  # a backoff pause between sends
    with pytest.raises(Unavailable):
        await outcome(client.remember(None, [new_entry("fact", "x")]))
    with pytest.raises(Unavailable):
        await outcome(client.remember(None, [new_entry("fact", "x")]))
    first, second = remember_ids(fake)[:WRITE_ATTEMPTS], remember_ids(fake)[WRITE_ATTEMPTS:]
    # Each write is re-sent (bounded) with one fresh UUID4; two writes never share an id.
    assert len(set(first)) == 1 and len(set(second)) == 1 and len(second) == WRITE_ATTEMPTS
    assert str(uuid.UUID(first[0], version=4)) == first[0] and first[0] != second[0]


async def test_merge_restore_and_undo_merge_are_sent_once_and_their_reads_retried(
    make_client: MakeClient,
) -> None:
    """No request id: a lost answer may hide a commit, so these writes are never re-sent; the
    preview and the listings change nothing and are retried like every read."""
    fake = FakeTransport(always(unavailable()))
    client = make_client(fake)
    memory = types.ArtifactRef(artifact_id="mem_art_x", revision=1)
    inputs = [types.EntryRef(entry_id="a", entry_version_id="v")] * 2
    writes = (
        lambda: client.merge(memory, inputs, "merged", kind="fact"),
        lambda: client.restore(memory, "a", preview_token="pc2.x.y"),
        lambda: client.undo_merge(memory, "c"),
    )
    for write in writes:
        with pytest.raises(Unavailable):
            await outcome(write())
    assert [call.method for call in fake.calls] == ["Merge", "Restore", "UndoMerge"]
    fake.calls.clear()
    reads = (
        lambda: client.preview_restore("mem_art_x", "a"),
        lambda: client.get_recall_manifest("mem_art_x"),
        lambda: client.list_entries("mem_art_x"),
    )
    for read in reads:
        with pytest.raises(Unavailable):
            await outcome(read())
    assert [call.method for call in fake.calls] == (
        ["PreviewRestore"] * READ_ATTEMPTS
        + ["GetRecallManifest"] * READ_ATTEMPTS
        + ["ListEntries"] * READ_ATTEMPTS
    )


async def test_a_write_keeps_the_callers_request_id_and_request(make_client: MakeClient) -> None:
    fake: FakeTransport

    def lost_once(call: FakeCall) -> pb.RememberResponse:
        if len(fake.calls) == 1:
            raise rpc_error(grpc.StatusCode.UNAVAILABLE)  # e.g. dropped after the commit
        return pb.RememberResponse(changed=True)

    fake = FakeTransport({"Remember": lost_once})
    client = make_client(fake)
    request = pb.RememberRequest(entries=[new_entry("fact", "x")], request_id="my-id-1")
    assert (await outcome(client.write(request))).changed
    await outcome(client.remember(None, [new_entry("fact", "y")], request_id="my-id-2"))
    blank = pb.RememberRequest(entries=[new_entry("fact", "z")])
    await outcome(client.write(blank))
    assert remember_ids(fake)[:3] == ["my-id-1", "my-id-1", "my-id-2"]
    assert remember_ids(fake)[3] and blank.request_id == ""  # a copy got the id


async def test_update_reapplies_on_the_head_the_conflict_names_as_a_new_request(
    make_client: MakeClient,
) -> None:
    fake: FakeTransport

    def first_write_loses_the_race(call: FakeCall) -> pb.RememberResponse:
        if len(fake.requests("Remember")) == 1:
            raise rpc_error(
                grpc.StatusCode.ABORTED,
                "memory mem_art_x is at revision 7, not 5",
                reason="REVISION_CONFLICT",
                metadata={"headRevision": "7"},
            )
        return pb.RememberResponse(changed=True)

    fake = FakeTransport(
        {
            "GetMemory": lambda call: head(call.request.memory.revision or 5),
            "Remember": first_write_loses_the_race,
        }
    )
    seen: list[int] = []

    def change(current: pb.GetMemoryResponse) -> pb.RememberRequest:
        seen.append(current.memory.revision)
        return pb.RememberRequest(entries=[new_entry("fact", "x")])

    client = make_client(fake)
    assert (await outcome(client.update("mem_art_x", change))).changed
    assert [r.memory.revision for r in fake.requests("GetMemory")] == [0, 7]  # head, then 7
    assert seen == [5, 7]
    assert [r.memory.revision for r in fake.requests("Remember")] == [5, 7]
    first, second = remember_ids(fake)
    assert first and second and first != second  # a re-application is a new request
    assert len(fake.sleeps) == 1  # a backoff pause before re-reading
    fake.calls.clear()
    await outcome(client.update("mem_art_x", change, request_id="job-9"))
    assert remember_ids(fake) == ["job-9", "job-9"]  # free again after the ABORTED one


async def test_update_gives_up_after_its_attempts_and_does_nothing_on_none(
    make_client: MakeClient,
) -> None:
    conflict = rpc_error(
        grpc.StatusCode.ABORTED, "", reason="REVISION_CONFLICT", metadata={"headRevision": "9"}
    )
    fake = FakeTransport({"GetMemory": lambda call: head(9), "Remember": always(conflict)})
    client = make_client(fake)

    def change(current: pb.GetMemoryResponse) -> pb.RememberRequest:
        return pb.RememberRequest(entries=[new_entry("fact", "x")])

    with pytest.raises(RevisionConflict) as lost:
        await outcome(client.update("mem_art_x", change, attempts=3))
    assert lost.value.head_revision == 9
    assert [call.method for call in fake.calls] == ["GetMemory", "Remember"] * 3
    assert len(fake.sleeps) == 2  # none after the last attempt
    fake.calls.clear()
    assert await outcome(client.update("mem_art_x", lambda current: None)) is None
    assert [call.method for call in fake.calls] == ["GetMemory"]


async def test_a_refused_write_is_not_sent_again(make_client: MakeClient) -> None:
    refused = rpc_error(
        grpc.StatusCode.INVALID_ARGUMENT,
        "text: empty",
        reason="EMPTY_TEXT",
        metadata={"field": "text"},
    )
    fake = FakeTransport(always(refused))
    with pytest.raises(InvalidArgument) as caught:
        await outcome(make_client(fake).remember(None, [new_entry("fact", " ")]))
    assert caught.value.field_violations == [("text", "text: empty")]
    assert len(fake.calls) == 1 and fake.sleeps == []


async def test_a_read_succeeds_once_the_database_is_back(make_client: MakeClient) -> None:
    fake: FakeTransport

    def twice_unavailable(call: FakeCall) -> pb.GetCapabilitiesResponse:
        if len(fake.calls) <= 2:
            raise unavailable()
        return pb.GetCapabilitiesResponse()

    fake = FakeTransport({"GetCapabilities": twice_unavailable})
    await outcome(make_client(fake).capabilities())
    assert len(fake.calls) == 3 and len(fake.sleeps) == 2


async def test_a_read_cancelled_by_a_draining_server_is_sent_again(
    make_client: MakeClient,
) -> None:
    fake: FakeTransport
    cancelled = rpc_error(grpc.StatusCode.CANCELLED, "server is shutting down")

    def cancelled_once(call: FakeCall) -> pb.GetCapabilitiesResponse:
        if len(fake.calls) == 1:
            raise cancelled
        return pb.GetCapabilitiesResponse()

    fake = FakeTransport({"GetCapabilities": cancelled_once, "Remember": always(cancelled)})
    client = make_client(fake)
    await outcome(client.capabilities())
    assert len(fake.calls) == 2
    fake.calls.clear()
    with pytest.raises(Cancelled):  # a write is re-sent only on UNAVAILABLE / DEADLINE_EXCEEDED
        await outcome(client.remember(None, [new_entry("fact", "x")]))
    assert len(fake.calls) == 1


async def test_every_call_has_a_deadline_and_the_token(make_client: MakeClient) -> None:
    fake = FakeTransport(
        {
            "GetCapabilities": lambda call: pb.GetCapabilitiesResponse(),
            "Remember": lambda call: pb.RememberResponse(),
            "Check": lambda call: health_pb2.HealthCheckResponse(status=SERVING),
        }
    )
    client = make_client(fake, token="s3cret", timeout=7.0, metadata=(("x-team", "memory"),))
    await outcome(client.capabilities())
    await outcome(client.remember(None, [new_entry("fact", "x")]))
    assert await outcome(client.health()) == SERVING
    await outcome(client.capabilities(timeout=None))
    read, write, probe, unbounded = fake.calls
    for call in (read, write, probe, unbounded):
        assert call.metadata == (("authorization", "Bearer s3cret"), ("x-team", "memory"))
    assert read.timeout is not None and 6.5 < read.timeout <= 7.0
    assert write.timeout == 7.0  # each send of a write has the whole timeout
    assert probe.timeout is not None and 6.5 < probe.timeout <= 7.0
    assert probe.path == "/grpc.health.v1.Health/Check"
    assert unbounded.timeout is None
    assert "s3cret" not in repr(ClientConfig(token="s3cret"))


async def test_a_write_past_its_deadline_is_resent_with_its_id_and_a_read_is_not(
    make_client: MakeClient,
) -> None:
    fake = FakeTransport(always(rpc_error(grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded")))
    client = make_client(fake)
    with pytest.raises(DeadlineExceeded):
        await outcome(client.remember(None, [new_entry("fact", "x")], timeout=0.2))
    # The answer may have been lost after a commit: re-sent, with its id, bounded.
    assert len(remember_ids(fake)) == WRITE_ATTEMPTS and len(set(remember_ids(fake))) == 1
    assert {call.timeout for call in fake.calls} == {0.2}
    fake.calls.clear()
    with pytest.raises(DeadlineExceeded):
        await outcome(client.capabilities(timeout=0.2))
    assert len(fake.calls) == 1


async def test_retries_stop_where_the_deadline_would_pass(make_client: MakeClient) -> None:
    fake = FakeTransport(always(unavailable()))
    client = make_client(fake, backoff=SteadyBackoff(initial=5.0))
    with pytest.raises(Unavailable):
        await outcome(client.capabilities(timeout=1.0))
    assert len(fake.calls) == 1 and fake.sleeps == []  # a 5 s pause would end past the deadline
    fake.calls.clear()
    with pytest.raises(Unavailable):
        await outcome(client.capabilities(timeout=None))
    assert len(fake.calls) == READ_ATTEMPTS and fake.sleeps == [5.0] * (READ_ATTEMPTS - 1)


async def test_any_call_is_sent_again_while_it_reaches_no_server(make_client: MakeClient) -> None:
    fake: FakeTransport

    def refused_twice(call: FakeCall) -> pb.MergeResponse:
        if len(fake.calls) <= 2:
            raise connect_error()
        return pb.MergeResponse()

    fake = FakeTransport({"Merge": refused_twice, "Check": always(connect_error())})
    client = make_client(fake, endpoint="memory.test:443")
    memory = types.ArtifactRef(artifact_id="mem_art_x", revision=1)
    inputs = [types.EntryRef(entry_id="a", entry_version_id="v")] * 2
    await outcome(client.merge(memory, inputs, "merged", kind="fact"))  # no server saw it
    assert [call.method for call in fake.calls] == ["Merge"] * 3
    fake.calls.clear()
    with pytest.raises(Unavailable, match="cannot reach memory.test:443: connection refused"):
        await outcome(client.health())  # a probe has no connect window
    assert len(fake.calls) == 1
    fake.calls.clear()
    refusing = make_client(FakeTransport(always(connect_error())), connect_timeout=0)
    with pytest.raises(Unavailable) as caught:
        await outcome(refusing.merge(memory, inputs, "merged", kind="fact"))
    assert caught.value.message == "cannot reach 127.0.0.1:50051: connection refused"


async def test_follow_resumes_after_shutting_down_and_cancelled(make_client: MakeClient) -> None:
    """Broken twice the way a restarting server breaks it: ended with UNAVAILABLE/SHUTTING_DOWN
    after revision 1, then CANCELLED at once (a draining server), then served again from where
    the client asks — revision 1 included, which the client must drop."""
    fake: FakeTransport
    left: list[int] = []

    def changes(call: FakeCall) -> Iterator[pb.ChangesResponse]:
        attempt = len(fake.calls)
        if attempt == 2:
            raise rpc_error(grpc.StatusCode.CANCELLED, "server is shutting down")
        return feed(attempt)

    def feed(attempt: int) -> Iterator[pb.ChangesResponse]:
        try:
            if attempt == 1:
                yield revision(1)
                raise rpc_error(
                    grpc.StatusCode.UNAVAILABLE,
                    "shutting down",
                    reason="SHUTTING_DOWN",
                    metadata={"resumeSinceRevision": "1"},
                )
            yield from (revision(n) for n in range(1, 5))
        finally:
            left.append(attempt)

    fake = FakeTransport({"Changes": changes})
    events: list[FollowEvent] = []
    follower = make_client(fake).follow("mem_art_x", on_reconnect=events.append)
    revisions = [r.memory_ref.revision for r in await take(follower, 3)]
    await leave(follower)
    assert revisions == [1, 2, 3]  # no gap, no duplicate
    assert [r.since_revision for r in fake.requests("Changes")] == [0, 1, 1]
    assert all(r.follow and r.memory.revision == 0 for r in fake.requests("Changes"))
    assert [call.timeout for call in fake.calls] == [None] * 3  # a follow has no deadline
    assert [(e.state, e.since) for e in events] == [("reconnecting", 1), ("resumed", 1)]
    broke = events[0].error
    assert isinstance(broke, Unavailable) and broke.resume_since_revision == 1
    assert left == [1, 3]  # each stream is closed when left, the last one by the caller


async def test_follow_raises_what_no_reconnection_can_mend(make_client: MakeClient) -> None:
    missing = rpc_error(grpc.StatusCode.NOT_FOUND, "no such memory", reason="MEMORY_NOT_FOUND")
    fake = FakeTransport({"Changes": always(missing)})
    with pytest.raises(NotFound):
        await take(make_client(fake).follow("mem_art_x"), 1)
    assert len(fake.calls) == 1 and fake.sleeps == []
    gap = FakeTransport({"Changes": lambda call: [revision(1), revision(3)]})
    follower = make_client(gap).follow("mem_art_x")
    with pytest.raises(InternalError, match="skipped from revision 1 to 3"):
        await take(follower, 2)
    ended = make_client(FakeTransport({"Changes": lambda call: []})).follow("mem_art_x")
    with pytest.raises(InternalError, match="ended without error"):
        await take(ended, 1)


async def test_follow_gives_up_after_reconnect_for(make_client: MakeClient) -> None:
    fake = FakeTransport({"Changes": always(unavailable())})
    events: list[FollowEvent] = []
    follower = make_client(fake).follow("mem_art_x", on_reconnect=events.append, reconnect_for=0)
    with pytest.raises(Unavailable):
        await take(follower, 1)
    assert len(fake.calls) == 2  # the second failure is already past a window of 0 s
    assert [e.state for e in events] == ["reconnecting"]


@pytest.mark.parametrize(
    ("code", "reason", "family"),
    [
        (grpc.StatusCode.PERMISSION_DENIED, "SCOPE_REQUIRED", PermissionDenied),
        (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_EXPIRED", Unauthenticated),
        (grpc.StatusCode.ABORTED, "REVISION_CONFLICT", RevisionConflict),
        (grpc.StatusCode.ABORTED, "SOMETHING_NEW", RevisionConflict),
        (grpc.StatusCode.ABORTED, "PREVIEW_STALE", Aborted),  # not re-applied by update()
        (grpc.StatusCode.ABORTED, "ENTRY_VERSION_STALE", Aborted),
        (grpc.StatusCode.FAILED_PRECONDITION, "ENTRY_VERSION_STALE", FailedPrecondition),
        (grpc.StatusCode.NOT_FOUND, "PREVIEW_STALE", NotFound),  # a reason never changes family
        (grpc.StatusCode.INTERNAL, "INTERNAL", InternalError),
        (grpc.StatusCode.UNKNOWN, "", InternalError),
    ],
)
def test_status_codes_map_to_families(
    code: grpc.StatusCode, reason: str, family: type[Exception]
) -> None:
    error = rpc_error(code, reason.lower(), reason=reason, metadata={"headRevision": "5"})
    fake = FakeTransport(always(error))
    with pytest.raises(family) as caught:
        Client(config=ClientConfig(), transport=fake).remember(None, [new_entry("fact", "x")])
    assert type(caught.value) is family and caught.value.reason == reason  # type: ignore[attr-defined]
    if family is RevisionConflict:
        assert caught.value.head_revision == 5  # type: ignore[attr-defined]
    assert len(fake.calls) == 1


def test_a_status_without_details_still_has_its_family() -> None:
    fake = FakeTransport(always(rpc_error(grpc.StatusCode.PERMISSION_DENIED, "no")))
    with pytest.raises(PermissionDenied) as caught:
        Client(config=ClientConfig(), transport=fake).remember(None, [new_entry("fact", "x")])
    assert caught.value.reason == "" and caught.value.metadata == {}
    assert caught.value.message == "no" and caught.value.status is None


# -- what needs a channel, on a stand-in server ---------------------------------------------------

SERVICE = "powercontext.memory.v1.MemoryService"
Answer = Callable[[grpc.aio.ServicerContext], Any]


@dataclass
class StandIn:
    """Answers GetCapabilities and Remember with whatever `answer` does; records each call's
    method, metadata and time remaining."""

    port: int = 0
    answer: Answer | None = None
    calls: list[tuple[str, dict[str, str], float | None]] = field(default_factory=list)

    def handler(self, method: str, response: Any) -> grpc.RpcMethodHandler:
        async def handle(request: Any, context: grpc.aio.ServicerContext) -> Any:
            self.calls.append(
                (method, dict(context.invocation_metadata() or ()), context.time_remaining())
            )
            if self.answer is not None:
                await self.answer(context)
            return response

        return grpc.unary_unary_rpc_method_handler(
            handle,
            request_deserializer=lambda data: data,
            response_serializer=lambda message: message.SerializeToString(),
        )


async def _serve(
    stand_in: StandIn, credentials: grpc.ServerCredentials | None = None
) -> grpc.aio.Server:
    server = grpc.aio.server()
    handlers = {
        "GetCapabilities": stand_in.handler("GetCapabilities", pb.GetCapabilitiesResponse()),
        "Remember": stand_in.handler("Remember", pb.RememberResponse(changed=True)),
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))
    if credentials is None:
        stand_in.port = server.add_insecure_port("127.0.0.1:0")
    else:
        # 127.0.0.1, not localhost: "localhost:0" binds a port on IPv4 and tries the same on
        # IPv6, where another process may hold it and answer a client that resolves ::1.
        stand_in.port = server.add_secure_port("127.0.0.1:0", credentials)
    await server.start()
    return server


@pytest.fixture
async def stand_in() -> AsyncIterator[StandIn]:
    scripted = StandIn()
    server = await _serve(scripted)
    try:
        yield scripted
    finally:
        await server.stop(None)


def _client(stand_in: StandIn, **config: Any) -> AsyncClient:
    return AsyncClient(config=ClientConfig(endpoint=f"127.0.0.1:{stand_in.port}", **config))


async def test_the_token_and_the_deadline_travel_on_the_wire(stand_in: StandIn) -> None:
    async with _client(stand_in, token="s3cret", timeout=7.0) as client:
        await client.remember(None, [new_entry("fact", "x")])
        await client.capabilities(timeout=None)
    (_, metadata, remaining), (_, _, unbounded) = stand_in.calls
    assert metadata["authorization"] == "Bearer s3cret"
    assert remaining is not None and 5.0 < remaining < 7.5
    assert unbounded is None


async def test_a_slow_call_ends_at_its_deadline_on_a_real_channel(stand_in: StandIn) -> None:
    async def stall(context: grpc.aio.ServicerContext) -> None:
        await asyncio.sleep(5)

    stand_in.answer = stall
    async with _client(stand_in) as client:
        with pytest.raises(DeadlineExceeded):
            await client.capabilities(timeout=0.2)
    assert len(stand_in.calls) == 1


@pytest.mark.parametrize(
    ("sent", "built"),
    [
        (
            RevisionConflictError("mem_art_x", 1, 5),
            rpc_error(
                grpc.StatusCode.ABORTED,
                "memory mem_art_x is at revision 5, not 1: re-read the head and re-apply the "
                "operation",
                reason="REVISION_CONFLICT",
                metadata={"artifactId": "mem_art_x", "expectedRevision": "1", "headRevision": "5"},
            ),
        ),
        (
            InvalidArgumentError("text", "must not be empty", reason="EMPTY_TEXT"),
            rpc_error(
                grpc.StatusCode.INVALID_ARGUMENT,
                "text: must not be empty",
                reason="EMPTY_TEXT",
                metadata={"field": "text"},
                details=[
                    error_details_pb2.BadRequest(
                        field_violations=[
                            error_details_pb2.BadRequest.FieldViolation(
                                field="text", description="must not be empty"
                            )
                        ]
                    )
                ],
            ),
        ),
        (
            UnavailableError(
                "shutting down", reason="SHUTTING_DOWN", metadata={"resumeSince": "1"}
            ),
            rpc_error(
                grpc.StatusCode.UNAVAILABLE,
                "shutting down",
                reason="SHUTTING_DOWN",
                metadata={"resumeSince": "1"},
            ),
        ),
        (None, rpc_error(grpc.StatusCode.PERMISSION_DENIED, "no")),
    ],
    ids=["conflict", "bad-request", "unavailable", "no-details"],
)
async def test_rpc_error_is_what_a_server_sends_over_a_real_channel(
    stand_in: StandIn, sent: MemoryServiceError | None, built: grpc.RpcError
) -> None:
    """The server's own error encoding on a real channel, and rpc_error() on a fake, give the
    client the same exception."""

    async def answer(context: grpc.aio.ServicerContext) -> None:
        if sent is None:
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, "no")
        else:
            await abort_with_status(context, sent)

    stand_in.answer = answer
    instant = Backoff(initial=0.0, maximum=0.0)  # an UNAVAILABLE write is re-sent: no pauses
    config = ClientConfig(endpoint=f"127.0.0.1:{stand_in.port}")
    async with AsyncClient(config=config, backoff=instant) as client:
        with pytest.raises(PowerContextError) as over_the_wire:
            await client.remember(None, [new_entry("fact", "x")])
    faked = FakeTransport(always(built))
    with pytest.raises(PowerContextError) as over_the_fake:
        Client(config=ClientConfig(), transport=faked).remember(None, [new_entry("fact", "x")])
    real, fake = over_the_wire.value, over_the_fake.value
    assert type(real) is type(fake) and real.code == fake.code and real.message == fake.message
    assert (real.reason, real.metadata, real.status) == (fake.reason, fake.metadata, fake.status)


async def test_connect_error_is_what_grpc_raises_for_a_refused_connection() -> None:
    with socket.socket() as closed:  # a port where nothing listens once it is closed
        closed.bind(("127.0.0.1", 0))
        endpoint = f"127.0.0.1:{closed.getsockname()[1]}"
    config = ClientConfig(endpoint=endpoint, connect_timeout=0)
    async with AsyncClient(config=config) as client:
        with pytest.raises(Unavailable) as over_the_wire:
            await client.capabilities()
    faked = FakeTransport(always(connect_error()))
    with pytest.raises(Unavailable) as over_the_fake:
        Client(config=config, transport=faked).capabilities()
    assert over_the_wire.value.message == over_the_fake.value.message
    assert over_the_fake.value.message == f"cannot reach {endpoint}: connection refused"


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A test CA, a server certificate for localhost and 127.0.0.1, and a client certificate."""
    folder = tmp_path_factory.mktemp("tls")
    authority = trustme.CA()
    server = authority.issue_cert("localhost", "127.0.0.1")
    client = authority.issue_cert("agent@example.test")
    paths = {
        "ca": folder / "ca.pem",
        "client_cert": folder / "client.pem",
        "client_key": folder / "client.key",
    }
    authority.cert_pem.write_to_path(str(paths["ca"]))
    client.cert_chain_pems[0].write_to_path(str(paths["client_cert"]))
    client.private_key_pem.write_to_path(str(paths["client_key"]))
    return {
        "paths": paths,
        "ca_pem": authority.cert_pem.bytes(),
        "server_key": server.private_key_pem.bytes(),
        "server_chain": b"".join(pem.bytes() for pem in server.cert_chain_pems),
    }


@pytest.mark.parametrize("mutual", [False, True])
async def test_tls_and_mutual_tls(certificates: dict[str, Any], mutual: bool) -> None:
    credentials = grpc.ssl_server_credentials(
        [(certificates["server_key"], certificates["server_chain"])],
        root_certificates=certificates["ca_pem"] if mutual else None,
        require_client_auth=mutual,
    )
    stand_in = StandIn()
    server = await _serve(stand_in, credentials)
    paths: dict[str, Path] = certificates["paths"]
    endpoint = f"127.0.0.1:{stand_in.port}"
    try:
        tls = TlsConfig(
            str(paths["ca"]),
            str(paths["client_cert"]) if mutual else None,
            str(paths["client_key"]) if mutual else None,
        )
        async with AsyncClient(config=ClientConfig(endpoint=endpoint, tls=tls)) as client:
            await client.capabilities(timeout=10)
        # A refused handshake reaches no server: no connect window, so it fails at once.
        if mutual:  # without a client certificate the handshake is refused
            anonymous = ClientConfig(
                endpoint=endpoint, tls=TlsConfig(str(paths["ca"])), connect_timeout=0
            )
            async with AsyncClient(config=anonymous) as client:
                with pytest.raises(Unavailable, match=f"cannot reach {endpoint}: "):
                    await client.remember(None, [new_entry("fact", "x")], timeout=10)
        plaintext_config = ClientConfig(endpoint=endpoint, connect_timeout=0)
        async with AsyncClient(config=plaintext_config) as plaintext:
            with pytest.raises(Unavailable, match=f"cannot reach {endpoint}: "):
                await plaintext.remember(None, [new_entry("fact", "x")], timeout=10)
    finally:
        await server.stop(None)


def test_config_from_the_environment() -> None:
    env = {
        "POWERCONTEXT_ENDPOINT": "memory.internal:443",
        "POWERCONTEXT_TOKEN": "t",
        "POWERCONTEXT_TLS_CA": "/etc/ca.pem",
        "POWERCONTEXT_TIMEOUT": "12.5",
    }
    config = ClientConfig.from_env(env)
    assert config.endpoint == "memory.internal:443" and config.timeout == 12.5
    assert config.tls == TlsConfig("/etc/ca.pem") and config.token == "t"
    assert ClientConfig.from_env(env, endpoint="127.0.0.1:1").endpoint == "127.0.0.1:1"
    assert ClientConfig.from_env({}).endpoint == "127.0.0.1:50051"
    with pytest.raises(ValueError, match="both"):
        TlsConfig("/ca", cert_file="/c")
    with pytest.raises(ValueError, match="HOST:PORT"):
        ClientConfig(endpoint="nohost")
