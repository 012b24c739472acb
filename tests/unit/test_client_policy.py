"""The Python client's call policy — retries, deadlines, token, TLS, error families — against a
STAND-IN gRPC server (real grpc.aio server and channel, scripted answers).

A stand-in is used only for what the real server cannot be made to do on demand today: answer
UNAVAILABLE to a unary call, stall past a deadline, refuse a token (authentication comes with a
later issue) or serve TLS. Everything else is tested against the real server in
tests/e2e/test_python_client.py.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
import trustme
from google.protobuf.any_pb2 import Any as AnyPb
from google.rpc import error_details_pb2, status_pb2

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types
from powercontext_client import (
    Aborted,
    AsyncClient,
    Cancelled,
    ClientConfig,
    DeadlineExceeded,
    FailedPrecondition,
    InternalError,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    RevisionConflict,
    TlsConfig,
    Unauthenticated,
    Unavailable,
    new_entry,
)
from powercontext_client.core import READ_ATTEMPTS, WRITE_ATTEMPTS
from powercontext_client.errors import STATUS_DETAILS_KEY

SERVICE = "powercontext.memory.v1.MemoryService"
Answer = Callable[[grpc.aio.ServicerContext], Any]


def _revision(memory_id: str, revision: int) -> pb.ChangesResponse:
    return pb.ChangesResponse(
        revision=pb.RevisionChanges(
            memory_ref=types.ArtifactRef(artifact_id=memory_id, revision=revision)
        )
    )


class FlakyFeed:
    """A Changes follow stream that breaks twice the way a restarting server does: ended with
    UNAVAILABLE/SHUTTING_DOWN after revision 1, then CANCELLED (what a draining server answers
    to a call that arrives), then served again from where the caller asks."""

    def __init__(self) -> None:
        self.since: list[int] = []

    async def changes(
        self, request: pb.ChangesRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[pb.ChangesResponse]:
        memory_id = request.memory.artifact_id
        self.since.append(request.since_revision)
        attempt = len(self.since)
        if attempt == 1:
            yield _revision(memory_id, 1)
            await _error(grpc.StatusCode.UNAVAILABLE, "SHUTTING_DOWN", resumeSinceRevision="1")(
                context
            )
        if attempt == 2:
            await context.abort(grpc.StatusCode.CANCELLED, "server is shutting down")
        for revision in range(1, 4):  # revision 1 again: the client must drop the duplicate
            yield _revision(memory_id, revision)
        await asyncio.Event().wait()  # then idle, like a live follow stream


@dataclass
class StandIn:
    """Answers GetCapabilities and Remember with whatever `answer` does; records each call."""

    port: int = 0
    answer: Answer | None = None
    calls: list[tuple[str, dict[str, str], float | None]] = field(default_factory=list)
    requests: list[bytes] = field(default_factory=list)  # each call's serialized request
    feed: FlakyFeed = field(default_factory=FlakyFeed)

    def request_ids(self) -> list[str]:
        """The request_id of each Remember received, in order."""
        return [
            pb.RememberRequest.FromString(data).request_id
            for (method, _, _), data in zip(self.calls, self.requests, strict=True)
            if method == "Remember"
        ]

    def handler(self, method: str, response: Any) -> grpc.RpcMethodHandler:
        async def handle(request: Any, context: grpc.aio.ServicerContext) -> Any:
            self.calls.append(
                (method, dict(context.invocation_metadata() or ()), context.time_remaining())
            )
            self.requests.append(request)
            if self.answer is not None:
                await self.answer(context)
            return response

        return grpc.unary_unary_rpc_method_handler(
            handle,
            request_deserializer=lambda data: data,
            response_serializer=lambda message: message.SerializeToString(),
        )


def _error(code: grpc.StatusCode, reason: str, **metadata: str) -> Answer:
    info = error_details_pb2.ErrorInfo(
        reason=reason, domain="powercontext.memory", metadata=metadata
    )
    packed = AnyPb()
    packed.Pack(info)
    status = status_pb2.Status(code=code.value[0], message=reason.lower(), details=[packed])

    async def abort(context: grpc.aio.ServicerContext) -> None:
        await context.abort(
            code,
            status.message,
            trailing_metadata=((STATUS_DETAILS_KEY, status.SerializeToString()),),
        )

    return abort


async def _serve(
    stand_in: StandIn, credentials: grpc.ServerCredentials | None = None
) -> grpc.aio.Server:
    server = grpc.aio.server()
    server.add_generic_rpc_handlers(
        (
            grpc.method_handlers_generic_handler(
                SERVICE,
                {
                    "GetCapabilities": stand_in.handler(
                        "GetCapabilities", pb.GetCapabilitiesResponse()
                    ),
                    "Remember": stand_in.handler("Remember", pb.RememberResponse(changed=True)),
                    "GetMemory": stand_in.handler(
                        "GetMemory",
                        pb.GetMemoryResponse(
                            memory=types.ArtifactRef(artifact_id="mem_art_x", revision=1)
                        ),
                    ),
                    **{
                        method: stand_in.handler(method, response)
                        for method, response in (
                            ("Merge", pb.MergeResponse()),
                            ("Restore", pb.RestoreResponse()),
                            ("UndoMerge", pb.UndoMergeResponse()),
                            ("PreviewRestore", pb.PreviewRestoreResponse()),
                            ("GetRecallManifest", pb.GetRecallManifestResponse()),
                            ("ListEntries", pb.ListEntriesResponse()),
                        )
                    },
                    "Changes": grpc.unary_stream_rpc_method_handler(
                        stand_in.feed.changes,
                        request_deserializer=pb.ChangesRequest.FromString,
                        response_serializer=pb.ChangesResponse.SerializeToString,
                    ),
                },
            ),
        )
    )
    if credentials is None:
        stand_in.port = server.add_insecure_port("127.0.0.1:0")
    else:
        stand_in.port = server.add_secure_port("localhost:0", credentials)
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


async def test_reads_and_writes_with_their_id_are_retried_on_unavailable(
    stand_in: StandIn,
) -> None:
    stand_in.answer = _error(grpc.StatusCode.UNAVAILABLE, "DATABASE_UNAVAILABLE")
    async with _client(stand_in) as client:
        with pytest.raises(Unavailable) as read_failure:
            await client.capabilities()
        assert read_failure.value.reason == "DATABASE_UNAVAILABLE"
        assert [c[0] for c in stand_in.calls] == ["GetCapabilities"] * READ_ATTEMPTS
        stand_in.calls.clear()
        stand_in.requests.clear()
        with pytest.raises(Unavailable):
            await client.remember(None, [new_entry("fact", "x")])
        with pytest.raises(Unavailable):
            await client.remember(None, [new_entry("fact", "x")])
    first, second = (
        stand_in.request_ids()[:WRITE_ATTEMPTS],
        stand_in.request_ids()[WRITE_ATTEMPTS:],
    )
    # Each write is re-sent (bounded) with one fresh UUID4; two writes never share an id.
    assert len(set(first)) == 1 and len(set(second)) == 1 and len(second) == WRITE_ATTEMPTS
    assert str(uuid.UUID(first[0], version=4)) == first[0] and first[0] != second[0]


async def test_merge_restore_and_undo_merge_are_sent_once_and_their_reads_retried(
    stand_in: StandIn,
) -> None:
    """No request id: a lost answer may hide a commit, so these writes are never re-sent; the
    preview and the listings change nothing and are retried like every read."""
    stand_in.answer = _error(grpc.StatusCode.UNAVAILABLE, "DATABASE_UNAVAILABLE")
    memory = types.ArtifactRef(artifact_id="mem_art_x", revision=1)
    inputs = [types.EntryRef(entry_id="a", entry_version_id="v")] * 2
    async with _client(stand_in) as client:
        writes = (
            client.merge(memory, inputs, "merged", kind="fact"),
            client.restore(memory, "a", preview_token="pc2.x.y"),
            client.undo_merge(memory, "c"),
        )
        for write in writes:
            with pytest.raises(Unavailable):
                await write
        assert [c[0] for c in stand_in.calls] == ["Merge", "Restore", "UndoMerge"]
        stand_in.calls.clear()
        reads = (
            client.preview_restore("mem_art_x", "a"),
            client.get_recall_manifest("mem_art_x"),
            client.list_entries("mem_art_x"),
        )
        for read in reads:
            with pytest.raises(Unavailable):
                await read
    methods = [c[0] for c in stand_in.calls]
    assert methods == (
        ["PreviewRestore"] * READ_ATTEMPTS
        + ["GetRecallManifest"] * READ_ATTEMPTS
        + ["ListEntries"] * READ_ATTEMPTS
    )


async def test_a_write_keeps_the_callers_request_id_and_request(stand_in: StandIn) -> None:
    unavailable = _error(grpc.StatusCode.UNAVAILABLE, "")

    async def answer_lost_once(context: grpc.aio.ServicerContext) -> None:
        if len(stand_in.calls) == 1:
            await unavailable(context)  # e.g. the connection dropped after the commit

    stand_in.answer = answer_lost_once
    request = pb.RememberRequest(entries=[new_entry("fact", "x")], request_id="my-id-1")
    async with _client(stand_in) as client:
        assert (await client.write(request)).changed
        await client.remember(None, [new_entry("fact", "y")], request_id="my-id-2")
        blank = pb.RememberRequest(entries=[new_entry("fact", "z")])
        await client.write(blank)
    assert stand_in.request_ids()[:3] == ["my-id-1", "my-id-1", "my-id-2"]
    assert stand_in.request_ids()[3] and blank.request_id == ""  # a copy got the id


async def test_update_sends_each_application_as_a_new_request(stand_in: StandIn) -> None:
    conflict = _error(grpc.StatusCode.ABORTED, "REVISION_CONFLICT", headRevision="1")

    async def first_write_loses_the_race(context: grpc.aio.ServicerContext) -> None:
        methods = [c[0] for c in stand_in.calls]
        if methods[-1] == "Remember" and methods.count("Remember") == 1:
            await conflict(context)

    def change(head: pb.GetMemoryResponse) -> pb.RememberRequest:
        return pb.RememberRequest(entries=[new_entry("fact", "x")])

    stand_in.answer = first_write_loses_the_race
    async with _client(stand_in) as client:
        await client.update("mem_art_x", change)
        first, second = stand_in.request_ids()
        assert first and second and first != second  # a re-application is a new request
        stand_in.calls.clear()
        stand_in.requests.clear()
        await client.update("mem_art_x", change, request_id="job-9")
    assert stand_in.request_ids() == ["job-9", "job-9"]  # free again after the ABORTED one


async def test_a_refused_write_is_not_sent_again(stand_in: StandIn) -> None:
    stand_in.answer = _error(grpc.StatusCode.INVALID_ARGUMENT, "EMPTY_TEXT", field="text")
    async with _client(stand_in) as client:
        with pytest.raises(InvalidArgument):
            await client.remember(None, [new_entry("fact", " ")])
    assert len(stand_in.calls) == 1


async def test_a_read_succeeds_once_the_database_is_back(stand_in: StandIn) -> None:
    unavailable = _error(grpc.StatusCode.UNAVAILABLE, "DATABASE_UNAVAILABLE")

    async def twice_unavailable(context: grpc.aio.ServicerContext) -> None:
        if len(stand_in.calls) <= 2:
            await unavailable(context)

    stand_in.answer = twice_unavailable
    async with _client(stand_in) as client:
        await client.capabilities()
    assert len(stand_in.calls) == 3


async def test_follow_resumes_after_shutting_down_and_cancelled(stand_in: StandIn) -> None:
    async with _client(stand_in) as client:
        follower = client.follow("mem_art_x")
        revisions = [(await asyncio.wait_for(anext(follower), 10)).memory_ref.revision]
        revisions += [(await asyncio.wait_for(anext(follower), 10)).memory_ref.revision]
        revisions += [(await asyncio.wait_for(anext(follower), 10)).memory_ref.revision]
        await follower.aclose()  # type: ignore[attr-defined]
    assert revisions == [1, 2, 3]  # no gap, no duplicate
    assert stand_in.feed.since == [0, 1, 1]  # each reconnection from the last one delivered


async def test_a_read_cancelled_by_a_draining_server_is_sent_again(stand_in: StandIn) -> None:
    async def cancelled_once(context: grpc.aio.ServicerContext) -> None:
        if len(stand_in.calls) == 1:
            await context.abort(grpc.StatusCode.CANCELLED, "server is shutting down")

    stand_in.answer = cancelled_once
    async with _client(stand_in) as client:
        await client.capabilities()
        assert len(stand_in.calls) == 2
        stand_in.calls.clear()
        with pytest.raises(Cancelled):  # retried only on UNAVAILABLE and DEADLINE_EXCEEDED
            await client.remember(None, [new_entry("fact", "x")])
    assert len(stand_in.calls) == 1


async def test_every_call_has_a_deadline_and_the_token(stand_in: StandIn) -> None:
    async with _client(stand_in, token="s3cret", timeout=7.0) as client:
        await client.capabilities()
        await client.remember(None, [new_entry("fact", "x")])
        await client.capabilities(timeout=None)
    (_, metadata, remaining), (_, write_metadata, write_remaining), (_, _, unbounded) = (
        stand_in.calls
    )
    assert metadata["authorization"] == "Bearer s3cret"
    assert write_metadata["authorization"] == "Bearer s3cret"
    assert remaining is not None and 5.0 < remaining < 7.5
    assert write_remaining is not None and 5.0 < write_remaining < 7.5
    assert unbounded is None
    assert "s3cret" not in repr(ClientConfig(token="s3cret"))


async def test_a_slow_call_ends_at_its_deadline(stand_in: StandIn) -> None:
    async def stall(context: grpc.aio.ServicerContext) -> None:
        await asyncio.sleep(5)

    stand_in.answer = stall
    async with _client(stand_in) as client:
        with pytest.raises(DeadlineExceeded):
            await client.remember(None, [new_entry("fact", "x")], timeout=0.2)
        # The answer may have been lost after a commit: re-sent, with its id, bounded.
        assert len(set(stand_in.request_ids())) == 1
        assert len(stand_in.request_ids()) == WRITE_ATTEMPTS
        with pytest.raises(DeadlineExceeded):
            await client.capabilities(timeout=0.2)


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
async def test_status_codes_map_to_families(
    stand_in: StandIn, code: grpc.StatusCode, reason: str, family: type[Exception]
) -> None:
    stand_in.answer = _error(code, reason, headRevision="5")
    async with _client(stand_in) as client:
        with pytest.raises(family) as caught:
            await client.remember(None, [new_entry("fact", "x")])
    assert type(caught.value) is family and caught.value.reason == reason  # type: ignore[attr-defined]
    if family is RevisionConflict:
        assert caught.value.head_revision == 5  # type: ignore[attr-defined]


async def test_a_status_without_details_still_has_its_family(stand_in: StandIn) -> None:
    async def bare(context: grpc.aio.ServicerContext) -> None:
        await context.abort(grpc.StatusCode.PERMISSION_DENIED, "no")

    stand_in.answer = bare
    async with _client(stand_in) as client:
        with pytest.raises(PermissionDenied) as caught:
            await client.remember(None, [new_entry("fact", "x")])
    assert caught.value.reason == "" and caught.value.metadata == {}


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A test CA, a server certificate for localhost and a client certificate."""
    folder = tmp_path_factory.mktemp("tls")
    authority = trustme.CA()
    server = authority.issue_cert("localhost")
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
    endpoint = f"localhost:{stand_in.port}"
    try:
        tls = TlsConfig(
            str(paths["ca"]),
            str(paths["client_cert"]) if mutual else None,
            str(paths["client_key"]) if mutual else None,
        )
        async with AsyncClient(config=ClientConfig(endpoint=endpoint, tls=tls)) as client:
            await client.capabilities(timeout=10)
        if mutual:  # without a client certificate the handshake is refused
            anonymous = ClientConfig(endpoint=endpoint, tls=TlsConfig(str(paths["ca"])))
            async with AsyncClient(config=anonymous) as client:
                with pytest.raises(Unavailable):
                    await client.remember(None, [new_entry("fact", "x")], timeout=10)
        async with AsyncClient(config=ClientConfig(endpoint=endpoint)) as plaintext:
            with pytest.raises(Unavailable):
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
