"""The authorization matrix over real gRPC: every MemoryService RPC × every kind of caller
gets exactly the status (and reason) the tables say, from one real server process per backend
(SQLite, and OceanBase on the real seekdb).

Callers: no token, read, write, admin, a token limited to another memory, one limited to the
memory the requests name, an expired token and a revoked one. Each request is built just before
its call on the current head, so a refusal is never a stale-revision artifact: with an admin
token every request succeeds (the `admin` column proves it). Sources have rows of their own:
a source of the named memory, of the other memory and of no memory, read and cited — a token
limited to memories finds only theirs, and any other answers as a source that does not exist.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf.message_factory import GetMessageClass
from google.rpc import error_details_pb2, status_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_memory.app import open_service
from powercontext_memory.security.tokens import Scope, issue

from ..oceanbase_server import fresh_database_blocking
from ..serving import Served, serve_process

SERVICE = pb.DESCRIPTOR.services_by_name["MemoryService"]
NOW_MS = 1_767_225_600_000  # tokens made "before" the run, for the expired one
Code = grpc.StatusCode
OK = Code.OK
UNAUTHENTICATED = Code.UNAUTHENTICATED
DENIED = Code.PERMISSION_DENIED
_counter = itertools.count()


@dataclass
class World:
    served: Served
    tokens: dict[str, str]  # caller name -> bearer token
    memory: str  # the memory every request names
    other: str  # a memory only the "other memory" token may use
    source: types.SourceRef
    admin: pb_grpc.MemoryServiceStub
    channel: grpc.Channel

    def head(self) -> types.ArtifactRef:
        response = self.admin.GetMemory(
            pb.GetMemoryRequest(memory=types.ArtifactRef(artifact_id=self.memory)),
            metadata=self.metadata("admin"),
            timeout=10,
        )
        return response.memory

    def put(self, memory_id: str = "") -> types.SourceRef:
        """A new source (by the admin token), recorded for `memory_id` when given."""
        put = self.admin.PutSource(
            pb.PutSourceRequest(
                kind="user_note",
                media_type="text/plain",
                content=f"evidence {next(_counter)}".encode(),
                memory_id=memory_id,
            ),
            metadata=self.metadata("admin"),
            timeout=10,
        )
        return types.SourceRef(source_id=put.source.source_id, content_hash=put.source.content_hash)

    def metadata(self, caller: str) -> tuple[tuple[str, str], ...]:
        token = self.tokens.get(caller)
        return () if token is None else (("authorization", f"Bearer {token}"),)

    def add(self, text: str) -> pb.RememberResponse:
        """A new entry in the memory, by the admin token."""
        entry = types.EntryInput(kind="fact", text=f"{text} {next(_counter)}")
        response: pb.RememberResponse = self.admin.Remember(
            pb.RememberRequest(memory=self.head(), entries=[entry]),
            metadata=self.metadata("admin"),
            timeout=10,
        )
        return response


def _store_tokens(database: str | Path) -> dict[str, str]:
    """Tokens straight into the database (as `tokens create` does), before the server starts."""
    specs: dict[str, tuple[Scope, tuple[str, ...], int | None]] = {
        "read": (Scope.READ, (), None),
        "write": (Scope.WRITE, (), None),
        "admin": (Scope.ADMIN, (), None),
        "expired": (Scope.ADMIN, (), NOW_MS + 1),
        "revoked": (Scope.ADMIN, (), None),
    }

    async def store() -> dict[str, str]:
        service = await open_service(database)
        try:
            tokens = {}
            for name, (scope, memories, expires) in specs.items():
                record, token = issue(name, scope, memories, now_ms=NOW_MS, expires_at_ms=expires)
                await service.backend.add_access_token(record)
                tokens[name] = token
                if name == "revoked":
                    assert await service.backend.revoke_access_token(record.token_id, NOW_MS)
            return tokens
        finally:
            await service.close()

    return asyncio.run(store())


def _allow_listed(database: str | Path, name: str, memory: str) -> str:
    async def store() -> str:
        service = await open_service(database)
        try:
            record, token = issue(name, Scope.ADMIN, [memory], now_ms=NOW_MS)
            await service.backend.add_access_token(record)
            return token
        finally:
            await service.close()

    return asyncio.run(store())


@pytest.fixture(scope="module", params=["sqlite", "oceanbase"])
def database(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str | Path]:
    if request.param == "sqlite":
        yield tmp_path_factory.mktemp("matrix") / "memory.sqlite3"
        return
    with fresh_database_blocking(request.getfixturevalue("oceanbase_server")) as dsn:
        yield dsn


@pytest.fixture(scope="module")
def world(database: str | Path) -> Iterator[World]:
    tokens = _store_tokens(database)
    # The two tokens limited to memories are added while it runs (tokens reach a running server).
    with serve_process(database, "--auth", "tokens") as served:
        channel = grpc.insecure_channel(f"127.0.0.1:{served.port}")
        admin = pb_grpc.MemoryServiceStub(channel)
        auth = (("authorization", f"Bearer {tokens['admin']}"),)

        def create(text: str) -> str:
            request = pb.RememberRequest(entries=[types.EntryInput(kind="fact", text=text)])
            response = admin.Remember(request, metadata=auth, timeout=10)
            return str(response.memory.artifact_id)

        memory, other = create("The build uses make."), create("Another team's memory.")
        put = admin.PutSource(
            pb.PutSourceRequest(
                kind="note", uri="repo://n", media_type="text/plain", content=b"evidence"
            ),
            metadata=auth,
            timeout=10,
        )
        source = types.SourceRef(
            source_id=put.source.source_id, content_hash=put.source.content_hash
        )
        # cited by the memory the requests name
        admin.Remember(
            pb.RememberRequest(
                memory=types.ArtifactRef(artifact_id=memory, revision=1),
                sources=[source],
                entries=[types.EntryInput(kind="fact", text="Evidence cited.", sources=[source])],
            ),
            metadata=auth,
            timeout=10,
        )
        tokens["other memory"] = _allow_listed(database, "other", other)
        tokens["this memory"] = _allow_listed(database, "mine", memory)
        try:
            yield World(served, tokens, memory, other, source, admin, channel)
        finally:
            channel.close()


# -- one request per RPC, built on the current head -----------------------------------------------


def _remember(w: World) -> pb.RememberRequest:
    return pb.RememberRequest(
        memory=w.head(), entries=[types.EntryInput(kind="fact", text=f"note {next(_counter)}")]
    )


def _create(w: World) -> pb.RememberRequest:
    return pb.RememberRequest(entries=[types.EntryInput(kind="fact", text="a new memory")])


def _forget(w: World) -> pb.ForgetRequest:
    added = w.add("to forget").results[0]
    target = types.EntryRef(entry_id=added.entry_id, entry_version_id=added.entry_version_id)
    return pb.ForgetRequest(memory=w.head(), entries=[target])


def _reactivate(w: World) -> pb.ReactivateRequest:
    added = w.add("to reactivate").results[0]
    target = types.EntryRef(entry_id=added.entry_id, entry_version_id=added.entry_version_id)
    w.admin.Forget(
        pb.ForgetRequest(memory=w.head(), entries=[target]),
        metadata=w.metadata("admin"),
        timeout=10,
    )
    return pb.ReactivateRequest(memory=w.head(), entries=[target])


def _organize(w: World) -> pb.OrganizeRequest:
    return pb.OrganizeRequest(memory=w.head(), steps=[pb.ORGANIZE_STEP_DEDUPE])


def _expand(w: World) -> pb.ExpandRequest:
    added = w.add("to cite")
    citation = types.Citation(
        memory_ref=added.memory,
        entry_id=added.results[0].entry_id,
        entry_version_id=added.results[0].entry_version_id,
    )
    return pb.ExpandRequest(citations=[citation])


def _refs(response: pb.RememberResponse) -> list[types.EntryRef]:
    return [
        types.EntryRef(entry_id=r.entry_id, entry_version_id=r.entry_version_id)
        for r in response.results
    ]


def _merge(w: World) -> pb.MergeRequest:
    inputs = _refs(w.add("to merge")) + _refs(w.add("to merge too"))
    return pb.MergeRequest(memory=w.head(), inputs=inputs, kind="fact", text="merged")


def _merged(w: World) -> str:
    """The entry id of a new merge result (merged by the admin token)."""
    merged = w.admin.Merge(_merge(w), metadata=w.metadata("admin"), timeout=10)
    return str(merged.result.entry_id)


def _restore(w: World) -> pb.RestoreRequest:
    [target] = _refs(w.add("to restore"))
    w.admin.Forget(
        pb.ForgetRequest(memory=w.head(), entries=[target]),
        metadata=w.metadata("admin"),
        timeout=10,
    )
    return pb.RestoreRequest(memory=w.head(), entry_id=target.entry_id)


def _undo_merge(w: World) -> pb.UndoMergeRequest:
    merged = _merged(w)
    return pb.UndoMergeRequest(memory=w.head(), entry_id=merged)


def _preview(w: World) -> pb.PreviewRestoreRequest:
    return pb.PreviewRestoreRequest(
        memory=types.ArtifactRef(artifact_id=w.memory),
        operation=types.RESTORE_OPERATION_UNDO_MERGE,
        entry_id=_merged(w),
    )


def _label_version(w: World, memory: str) -> int:
    listed = w.admin.ListMemories(
        pb.ListMemoriesRequest(page_size=100), metadata=w.metadata("admin"), timeout=10
    )
    return next(m.label_version for m in listed.memories if m.head.artifact_id == memory)


def _label(w: World) -> pb.SetMemoryLabelRequest:
    version = _label_version(w, w.memory)
    return pb.SetMemoryLabelRequest(
        memory_id=w.memory, label=f"label {next(_counter)}", label_version=version
    )


def _citing_another(w: World) -> pb.RememberRequest:
    theirs = w.put(w.other)
    entry = types.EntryInput(kind="fact", text=f"cites {next(_counter)}", sources=[theirs])
    return pb.RememberRequest(memory=w.head(), sources=[theirs], entries=[entry])


REQUESTS: dict[str, Callable[[World], Any]] = {
    "PutSource": lambda w: pb.PutSourceRequest(
        kind="note", uri="repo://x", media_type="text/plain", content=f"{next(_counter)}".encode()
    ),
    "PutSource (for the memory)": lambda w: pb.PutSourceRequest(
        kind="note", content=f"{next(_counter)}".encode(), memory_id=w.memory
    ),
    "GetSource": lambda w: pb.GetSourceRequest(source_id=w.source.source_id),
    "GetSource (recorded for it)": lambda w: pb.GetSourceRequest(
        source_id=w.put(w.memory).source_id
    ),
    "GetSource (the other's)": lambda w: pb.GetSourceRequest(source_id=w.put(w.other).source_id),
    "GetSource (no memory's)": lambda w: pb.GetSourceRequest(source_id=w.put().source_id),
    "Remember (citing the other's source)": _citing_another,
    "Remember": _remember,
    "Remember (create)": _create,
    "Forget": _forget,
    "Reactivate": _reactivate,
    "Organize": _organize,
    "GetMemory": lambda w: pb.GetMemoryRequest(memory=types.ArtifactRef(artifact_id=w.memory)),
    "Changes": lambda w: pb.ChangesRequest(memory=w.head(), since_revision=0),
    "Search": lambda w: pb.SearchRequest(query="build make", memories=[w.head()]),
    "Expand": _expand,
    "PrepareContext": lambda w: pb.PrepareContextRequest(
        memories=[types.ArtifactRef(artifact_id=w.memory)], query="build make"
    ),
    "GetCapabilities": lambda w: pb.GetCapabilitiesRequest(),
    "GetRecallManifest": lambda w: pb.GetRecallManifestRequest(
        memory=types.ArtifactRef(artifact_id=w.memory)
    ),
    "ListEntries": lambda w: pb.ListEntriesRequest(
        memory=types.ArtifactRef(artifact_id=w.memory), include_text=True
    ),
    "Merge": _merge,
    "Restore": _restore,
    "UndoMerge": _undo_merge,
    "PreviewRestore": _preview,
    "ListMemories": lambda w: pb.ListMemoriesRequest(),
    "SetMemoryLabel": _label,
}
WRITES = {
    "SetMemoryLabel",
    "PutSource",
    "PutSource (for the memory)",
    "Remember",
    "Remember (citing the other's source)",
    "Remember (create)",
    "Forget",
    "Reactivate",
    "Organize",
    "Merge",
    "Restore",
    "UndoMerge",
}
# Name no memory: a token limited to memories is never PERMISSION_DENIED for these.
GLOBAL = {
    "PutSource",
    "GetSource",
    "GetSource (recorded for it)",
    "GetSource (the other's)",
    "GetSource (no memory's)",
    "GetCapabilities",
    "ListMemories",
}
# Sources a caller limited to memories does not have: answered as sources that do not exist.
HIDDEN = {
    ("GetSource", "other memory"),
    ("GetSource (recorded for it)", "other memory"),
    ("GetSource (the other's)", "this memory"),
    ("GetSource (no memory's)", "this memory"),
    ("GetSource (no memory's)", "other memory"),
    ("Remember (citing the other's source)", "this memory"),
}

CALLERS = [
    "no token",
    "read",
    "write",
    "admin",
    "other memory",
    "this memory",
    "expired",
    "revoked",
]


def expected(rpc: str, caller: str) -> tuple[Code, str | None]:
    """The matrix: (status code, ErrorInfo reason)."""
    refused = {
        "no token": "TOKEN_MISSING",
        "expired": "TOKEN_EXPIRED",
        "revoked": "TOKEN_REVOKED",
    }
    if caller in refused:
        return UNAUTHENTICATED, refused[caller]
    if caller == "read" and rpc in WRITES:
        return DENIED, "SCOPE_REQUIRED"
    if caller in ("other memory", "this memory") and rpc == "Remember (create)":
        return DENIED, "MEMORY_CREATION_NOT_ALLOWED"
    if caller in ("other memory", "this memory") and rpc == "PutSource":
        return DENIED, "SOURCE_MEMORY_REQUIRED"
    if caller == "other memory" and rpc not in GLOBAL:
        return DENIED, "MEMORY_NOT_ALLOWED"
    if (rpc, caller) in HIDDEN:
        return Code.NOT_FOUND, "SOURCE_NOT_FOUND"
    return OK, None


def call(w: World, rpc: str, request: Any, caller: str) -> grpc.RpcError | None:
    method = SERVICE.methods_by_name[rpc.split(" ")[0]]
    path = f"/{SERVICE.full_name}/{method.name}"
    options: dict[str, Any] = {
        "request_serializer": type(request).SerializeToString,
        "response_deserializer": GetMessageClass(method.output_type).FromString,
    }
    try:
        if method.server_streaming:
            stream = w.channel.unary_stream(path, **options)
            list(stream(request, metadata=w.metadata(caller), timeout=10))
        else:
            w.channel.unary_unary(path, **options)(request, metadata=w.metadata(caller), timeout=10)
    except grpc.RpcError as error:
        return error
    return None


def reason(error: grpc.RpcError) -> str:
    for key, value in error.trailing_metadata() or ():  # type: ignore[attr-defined]
        if key == "grpc-status-details-bin":
            for detail in status_pb2.Status.FromString(value).details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return info.reason
    return ""


def test_the_matrix_covers_every_rpc() -> None:
    assert {name.split(" ")[0] for name in REQUESTS} == {m.name for m in SERVICE.methods}


@pytest.mark.parametrize("caller", CALLERS)
@pytest.mark.parametrize("rpc", list(REQUESTS))
def test_authorization_matrix(world: World, rpc: str, caller: str) -> None:
    code, why = expected(rpc, caller)
    error = call(world, rpc, REQUESTS[rpc](world), caller)
    if code is OK:
        assert error is None, f"{rpc} as {caller}: {error}"
        return
    assert error is not None, f"{rpc} as {caller} was allowed"
    assert error.code() == code, error.details()  # type: ignore[attr-defined]
    assert reason(error) == why
    ids = [v for k, v in error.trailing_metadata() or () if k == "x-request-id"]  # type: ignore[attr-defined]
    assert len(ids) == 1 and ids[0]  # refused inside the observing interceptor
    for token in world.tokens.values():
        assert token not in str(error.details())  # type: ignore[attr-defined]


def test_a_token_limited_to_memories_lists_only_those(world: World) -> None:
    def listed(caller: str) -> set[str]:
        page = world.admin.ListMemories(
            pb.ListMemoriesRequest(page_size=100), metadata=world.metadata(caller), timeout=10
        )
        return {m.head.artifact_id for m in page.memories}

    assert listed("this memory") == {world.memory}
    assert listed("other memory") == {world.other}
    assert {world.memory, world.other} <= listed("read")


def test_health_is_open_and_reflection_needs_a_token(world: World) -> None:
    health = health_pb2_grpc.HealthStub(world.channel)
    answer = health.Check(health_pb2.HealthCheckRequest(), timeout=10)
    assert answer.status == health_pb2.HealthCheckResponse.SERVING
    reflection = reflection_pb2_grpc.ServerReflectionStub(world.channel)
    ask = reflection_pb2.ServerReflectionRequest(list_services="")
    with pytest.raises(grpc.RpcError) as refused:
        list(reflection.ServerReflectionInfo(iter([ask]), timeout=10))
    assert refused.value.code() == UNAUTHENTICATED  # type: ignore[attr-defined]
    answers = list(
        reflection.ServerReflectionInfo(iter([ask]), metadata=world.metadata("read"), timeout=10)
    )
    names = {s.name for s in answers[0].list_services_response.service}
    assert SERVICE.full_name in names


@pytest.mark.parametrize(
    "header",
    ["Basic dXNlcjpwYXNz", "Bearer", "Bearer pcm_nope", "Bearer pcm_0123456789abcdef_" + "A" * 43],
)
def test_malformed_or_unknown_tokens_are_invalid(world: World, header: str) -> None:
    request = pb.GetCapabilitiesRequest()
    stub = world.channel.unary_unary(
        f"/{SERVICE.full_name}/GetCapabilities",
        request_serializer=pb.GetCapabilitiesRequest.SerializeToString,
        response_deserializer=pb.GetCapabilitiesResponse.FromString,
    )
    with pytest.raises(grpc.RpcError) as refused:
        stub(request, metadata=(("authorization", header),), timeout=10)
    assert refused.value.code() == UNAUTHENTICATED  # type: ignore[attr-defined]
    assert reason(refused.value) == "TOKEN_INVALID"


def test_an_unauthenticated_caller_learns_nothing_from_how_its_bytes_parse(world: World) -> None:
    garbage = world.channel.unary_unary(f"/{SERVICE.full_name}/Remember")
    with pytest.raises(grpc.RpcError) as refused:
        garbage(b"\xff\xff\xff", timeout=10)
    assert refused.value.code() == UNAUTHENTICATED  # type: ignore[attr-defined]
    with pytest.raises(grpc.RpcError) as malformed:
        garbage(b"\xff\xff\xff", metadata=world.metadata("write"), timeout=10)
    assert malformed.value.code() == Code.INVALID_ARGUMENT  # type: ignore[attr-defined]


def _neutral(error: grpc.RpcError, source_id: str) -> tuple[object, ...]:
    """Everything a caller receives of a refusal, with the source id made neutral."""
    details = [
        (k, v if isinstance(v, str) else v.replace(source_id.encode(), b"<id>"))
        for k, v in error.trailing_metadata() or ()  # type: ignore[attr-defined]
        if k != "x-request-id"
    ]
    return (
        error.code(),  # type: ignore[attr-defined]
        str(error.details()).replace(source_id, "<id>"),  # type: ignore[attr-defined]
        details,
    )


def test_a_hidden_source_answers_as_a_missing_one_byte_for_byte(world: World) -> None:
    theirs = world.put(world.other).source_id
    missing = "src_" + "0" * 32
    answers = []
    for source_id in (theirs, missing):
        error = call(world, "GetSource", pb.GetSourceRequest(source_id=source_id), "this memory")
        assert error is not None
        answers.append(_neutral(error, source_id))
    assert answers[0] == answers[1]
    assert answers[0][0] == Code.NOT_FOUND
