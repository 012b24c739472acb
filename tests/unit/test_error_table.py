"""The one error table (transport/errors.py), at the servicer, without a network (grpc_testing).

Every reason the service raises gets a case: a request to the real MemoryServicer over a real
MemoryService on a fresh SQLite file that makes the domain raise it, and the status code plus
every detail that arrives (ErrorInfo reason, domain, metadata; BadRequest; PreconditionFailure).
Where a request cannot provoke the error (an unreachable OceanBase, a bug), the real domain
code raises it inside a patched service method. A last test checks that no reason in the source
lacks a case.
"""

from __future__ import annotations

import asyncio
import re
import secrets
import string
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import asyncmy.errors
import grpc
import grpc_testing
import pytest
import sqlean
from google.rpc import error_details_pb2, status_pb2

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types
from powercontext_client.errors import unpack_detail
from powercontext_memory.app import open_service
from powercontext_memory.backends.oceanbase.connections import (
    connection_errors_as_unavailable as _connection_errors_as_unavailable,
)
from powercontext_memory.backends.timeouts import bounded
from powercontext_memory.domain import lifecycle
from powercontext_memory.memory import MemoryService
from powercontext_memory.security import authz
from powercontext_memory.security.token_cache import TokenCache
from powercontext_memory.security.tokens import Scope, issue
from powercontext_memory.streams import StreamLimits
from powercontext_memory.transport.auth import Authenticator
from powercontext_memory.transport.errors import (
    ERROR_DOMAIN,
    INTERNAL_MESSAGE,
    STATUS_CODES,
    STATUS_DETAILS_KEY,
)
from powercontext_memory.transport.servicer import MemoryServicer

from .aio_servicer_adapter import BlockingServicer, LoopThread

SERVICE = pb.DESCRIPTOR.services_by_name["MemoryService"]
SOURCE_ROOT = Path(__file__).resolve().parents[2] / "service" / "powercontext_memory"
# Raised only by the offline admin commands, never by an RPC.
ADMIN_ONLY = {"EMBEDDING_PROFILE_MISMATCH", "FAILED_PRECONDITION"}

Code = grpc.StatusCode


@dataclass
class Termination:
    code: grpc.StatusCode
    details: str
    trailing_metadata: tuple[tuple[str, Any], ...]

    @property
    def status(self) -> status_pb2.Status | None:
        for key, value in self.trailing_metadata:
            if key == STATUS_DETAILS_KEY:
                return status_pb2.Status.FromString(value)
        return None


class World:
    """The real servicer over a real service, served by grpc_testing."""

    def __init__(self, loop: LoopThread, service: MemoryService) -> None:
        self.loop = loop
        self.service = service
        self.server = grpc_testing.server_from_dictionary(
            {SERVICE: BlockingServicer(MemoryServicer(service), loop, writers={"Changes"})},
            grpc_testing.strict_real_time(),
        )

    def unary(self, method: str, request: Any) -> Termination:
        rpc = self.server.invoke_unary_unary(SERVICE.methods_by_name[method], (), request, None)
        _, trailing, code, details = rpc.termination()
        return Termination(code, details, tuple(trailing))

    def open_stream(self, method: str, request: Any) -> Any:
        return self.server.invoke_unary_stream(SERVICE.methods_by_name[method], (), request, None)

    def stream(self, method: str, request: Any) -> Termination:
        rpc = self.open_stream(method, request)
        trailing, code, details = rpc.termination()
        return Termination(code, details, tuple(trailing))

    def ok(self, method: str, request: Any) -> Any:
        rpc = self.server.invoke_unary_unary(SERVICE.methods_by_name[method], (), request, None)
        response, _, code, details = rpc.termination()
        assert code == Code.OK, details
        return response

    def remember(self, memory: types.ArtifactRef | None, *texts: str) -> pb.RememberResponse:
        entries = [types.EntryInput(kind="fact", text=t) for t in texts]
        response: pb.RememberResponse = self.ok(
            "Remember", pb.RememberRequest(memory=memory, entries=entries)
        )
        return response

    def source(self, text: str = "evidence") -> types.SourceRef:
        put = self.ok(
            "PutSource",
            pb.PutSourceRequest(kind="note", uri="repo://n", media_type="text/plain",
                                content=text.encode()),
        )  # fmt: skip
        return types.SourceRef(source_id=put.source.source_id, content_hash=put.source.content_hash)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    loop = LoopThread()
    service = loop.run(open_service(tmp_path / "memory.sqlite3", progress_interval=3600.0))
    try:
        yield World(loop, service)
    finally:
        loop.run(service.close())
        loop.close()


def ref(artifact_id: str, revision: int) -> types.ArtifactRef:
    return types.ArtifactRef(artifact_id=artifact_id, revision=revision)


def entry_ref(result: pb.EntryResult) -> types.EntryRef:
    return types.EntryRef(entry_id=result.entry_id, entry_version_id=result.entry_version_id)


def revise(memory: types.ArtifactRef, target: types.EntryRef, text: str) -> pb.RememberRequest:
    return pb.RememberRequest(
        memory=memory, entries=[types.EntryInput(entry=target, kind="fact", text=text)]
    )


# -- the cases ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Expected:
    metadata: dict[str, str]  # the ErrorInfo metadata, exactly
    field: str | None = None  # the one BadRequest violation, for INVALID_ARGUMENT
    subject: str | None = None  # the one PreconditionFailure violation, when the error has one
    message: str | None = None  # the status message, when it must be exactly this


@dataclass(frozen=True)
class Case:
    reason: str
    code: grpc.StatusCode
    run: Callable[[World], tuple[Termination, Expected]]


CASES: list[Case] = []


def case(reason: str, code: grpc.StatusCode) -> Callable[[Any], Any]:
    def register(run: Callable[[World], tuple[Termination, Expected]]) -> Any:
        CASES.append(Case(reason, code, run))
        return run

    return register


def invalid(field_path: str, **metadata: str) -> Expected:
    return Expected({"field": field_path, **metadata}, field=field_path)


# INVALID_ARGUMENT ------------------------------------------------------------------------------


@case("INVALID_ARGUMENT", Code.INVALID_ARGUMENT)
def uri_too_long(w: World) -> tuple[Termination, Expected]:
    request = pb.PutSourceRequest(kind="note", uri="u" * 4097, media_type="text/plain")
    return w.unary("PutSource", request), invalid("uri")


@case("INVALID_ARGUMENT", Code.INVALID_ARGUMENT)
def unknown_enum_value(w: World) -> tuple[Termination, Expected]:
    memory = w.remember(None, "x").memory
    request = pb.OrganizeRequest(memory=memory, steps=[99])  # type: ignore[list-item]
    return w.unary("Organize", request), invalid("steps[0]")


@case("SOURCE_TOO_LARGE", Code.INVALID_ARGUMENT)
def source_too_large(w: World) -> tuple[Termination, Expected]:
    request = pb.PutSourceRequest(
        kind="file", uri="repo://big", media_type="text/plain", content=b"x" * (8 * 2**20 + 1)
    )
    return w.unary("PutSource", request), invalid("content")


@case("SINCE_BEYOND_TARGET", Code.INVALID_ARGUMENT)
def since_beyond_target(w: World) -> tuple[Termination, Expected]:
    memory = w.remember(None, "x").memory
    request = pb.ChangesRequest(memory=memory, since_revision=5)
    return w.stream("Changes", request), invalid("since_revision")


@case("EMPTY_QUERY", Code.INVALID_ARGUMENT)
def blank_query(w: World) -> tuple[Termination, Expected]:
    memory = w.remember(None, "x").memory
    return w.unary("Search", pb.SearchRequest(query="  ", memories=[memory])), invalid("query")


@case("EMPTY_QUERY", Code.INVALID_ARGUMENT)
def query_without_terms(w: World) -> tuple[Termination, Expected]:
    memory = w.remember(None, "x").memory
    request = pb.SearchRequest(query="!!! ???", memories=[memory], mode=types.SEARCH_MODE_FTS)
    return w.unary("Search", request), invalid("query")


@case("NOTHING_TO_REMEMBER", Code.INVALID_ARGUMENT)
def nothing_to_remember(w: World) -> tuple[Termination, Expected]:
    return w.unary("Remember", pb.RememberRequest()), invalid("entries")


@case("CROSS_MEMORY_SINCE", Code.INVALID_ARGUMENT)
def cross_memory_since(w: World) -> tuple[Termination, Expected]:
    one, other = w.remember(None, "one").memory, w.remember(None, "other").memory
    request = pb.ChangesRequest(memory=one, since_ref=other)
    return w.stream("Changes", request), invalid("since_ref.artifact_id")


@case("SOURCE_HASH_MISMATCH", Code.INVALID_ARGUMENT)
def source_hash_mismatch(w: World) -> tuple[Termination, Expected]:
    wrong = replace_hash(w.source(), "0" * 64)
    request = pb.RememberRequest(
        sources=[wrong], entries=[types.EntryInput(kind="fact", text="t", sources=[wrong])]
    )
    return w.unary("Remember", request), invalid("sources")


def replace_hash(source: types.SourceRef, content_hash: str) -> types.SourceRef:
    return types.SourceRef(source_id=source.source_id, content_hash=content_hash)


@case("DUPLICATE_ENTRY_IN_BATCH", Code.INVALID_ARGUMENT)
def duplicate_entry(w: World) -> tuple[Termination, Expected]:
    created = w.remember(None, "x")
    target = entry_ref(created.results[0])
    request = pb.ForgetRequest(memory=created.memory, entries=[target, target])
    return w.unary("Forget", request), invalid("entries[1]")


@case("EVIDENCE_NOT_ALLOWED", Code.INVALID_ARGUMENT)
def evidence_not_allowed(w: World) -> tuple[Termination, Expected]:
    source = w.source()
    request = pb.RememberRequest(
        entries=[types.EntryInput(kind="fact", text="t", sources=[source])]
    )
    return w.unary("Remember", request), invalid("entries[0].sources")


@case("REVISE_WITHOUT_MEMORY", Code.INVALID_ARGUMENT)
def revise_without_memory(w: World) -> tuple[Termination, Expected]:
    target = types.EntryRef(entry_id="mem_ent_x", entry_version_id="mem_ver_x")
    request = pb.RememberRequest(entries=[types.EntryInput(entry=target, kind="fact", text="t")])
    return w.unary("Remember", request), invalid("entries[0].entry")


@case("INVALID_ID", Code.INVALID_ARGUMENT)
def invalid_id(w: World) -> tuple[Termination, Expected]:
    return w.unary("GetSource", pb.GetSourceRequest(source_id="bad id!")), invalid("source_id")


@case("INVALID_HASH", Code.INVALID_ARGUMENT)
def invalid_hash(w: World) -> tuple[Termination, Expected]:
    bad = types.SourceRef(source_id="src_x", content_hash="xyz")
    request = pb.RememberRequest(sources=[bad], entries=[types.EntryInput(kind="f", text="t")])
    return w.unary("Remember", request), invalid("sources[0].content_hash")


@case("INVALID_REVISION", Code.INVALID_ARGUMENT)
def invalid_revision(w: World) -> tuple[Termination, Expected]:
    request = pb.GetMemoryRequest(memory=ref("mem_art_x", -1))
    return w.unary("GetMemory", request), invalid("memory.revision")


@case("EMPTY_TEXT", Code.INVALID_ARGUMENT)
def empty_text(w: World) -> tuple[Termination, Expected]:
    request = pb.RememberRequest(entries=[types.EntryInput(kind="fact", text=" \n ")])
    return w.unary("Remember", request), invalid("entries[0].text")


@case("TEXT_TOO_LONG", Code.INVALID_ARGUMENT)
def text_too_long(w: World) -> tuple[Termination, Expected]:
    request = pb.RememberRequest(entries=[types.EntryInput(kind="fact", text="x" * 8193)])
    return w.unary("Remember", request), invalid("entries[0].text")


@case("REASON_TOO_LONG", Code.INVALID_ARGUMENT)
def reason_too_long(w: World) -> tuple[Termination, Expected]:
    target = types.EntryRef(entry_id="mem_ent_x", entry_version_id="mem_ver_x")
    request = pb.ForgetRequest(memory=ref("mem_art_x", 1), entries=[target], reason="r" * 513)
    return w.unary("Forget", request), invalid("reason")


@case("INVALID_KIND", Code.INVALID_ARGUMENT)
def invalid_kind(w: World) -> tuple[Termination, Expected]:
    request = pb.RememberRequest(entries=[types.EntryInput(kind="bad kind!", text="t")])
    return w.unary("Remember", request), invalid("entries[0].kind")


@case("DESCRIPTION_INVALID", Code.INVALID_ARGUMENT)
def description_invalid(w: World) -> tuple[Termination, Expected]:
    entry = types.EntryInput(kind="fact", text="t", description="two\nlines")
    request = pb.RememberRequest(entries=[entry])
    return w.unary("Remember", request), invalid("entries[0].description")


@case("TAGS_INVALID", Code.INVALID_ARGUMENT)
def tags_invalid(w: World) -> tuple[Termination, Expected]:
    entry = types.EntryInput(kind="fact", text="t", tags=["ok", "a,b"])
    request = pb.RememberRequest(entries=[entry])
    return w.unary("Remember", request), invalid("entries[0].tags[1]")


@case("INVALID_REQUEST_ID", Code.INVALID_ARGUMENT)
def invalid_request_id(w: World) -> tuple[Termination, Expected]:
    request = pb.RememberRequest(
        entries=[types.EntryInput(kind="fact", text="t")], request_id="not an id"
    )
    return w.unary("Remember", request), invalid("request_id")


@case("SECRET_DETECTED", Code.INVALID_ARGUMENT)
def secret_detected(w: World) -> tuple[Termination, Expected]:
    token = "gh" + "p_" + "".join(secrets.choice(string.ascii_letters) for _ in range(36))
    request = pb.RememberRequest(entries=[types.EntryInput(kind="fact", text=f"CI: {token}")])
    return w.unary("Remember", request), invalid("entries[0].text", rule="github-token")


# NOT_FOUND -------------------------------------------------------------------------------------


@case("MEMORY_NOT_FOUND", Code.NOT_FOUND)
def unknown_memory(w: World) -> tuple[Termination, Expected]:
    request = pb.GetMemoryRequest(memory=ref("mem_art_none", 0))
    return w.unary("GetMemory", request), Expected({"artifactId": "mem_art_none"})


@case("MEMORY_NOT_FOUND", Code.NOT_FOUND)
def unknown_memory_in_search(w: World) -> tuple[Termination, Expected]:
    request = pb.SearchRequest(query="x", memories=[ref("mem_art_none", 1)])
    expected = Expected({"artifactId": "mem_art_none", "field": "memories[0]"})
    return w.unary("Search", request), expected


@case("REVISION_NOT_FOUND", Code.NOT_FOUND)
def unknown_revision(w: World) -> tuple[Termination, Expected]:
    memory = w.remember(None, "x").memory
    request = pb.GetMemoryRequest(memory=ref(memory.artifact_id, 7))
    expected = Expected({"artifactId": memory.artifact_id, "revision": "7"})
    return w.unary("GetMemory", request), expected


@case("REVISION_NOT_FOUND", Code.NOT_FOUND)
def changes_beyond_head(w: World) -> tuple[Termination, Expected]:
    memory = w.remember(None, "x").memory
    request = pb.ChangesRequest(memory=ref(memory.artifact_id, 7))
    expected = Expected({"artifactId": memory.artifact_id, "revision": "7"})
    return w.stream("Changes", request), expected


@case("SOURCE_NOT_FOUND", Code.NOT_FOUND)
def unknown_source(w: World) -> tuple[Termination, Expected]:
    request = pb.GetSourceRequest(source_id="src_none")
    return w.unary("GetSource", request), Expected({"sourceId": "src_none"})


@case("SOURCE_NOT_FOUND", Code.NOT_FOUND)
def evidence_never_persisted(w: World) -> tuple[Termination, Expected]:
    missing = types.SourceRef(source_id="src_never", content_hash="a" * 64)
    request = pb.RememberRequest(
        sources=[missing], entries=[types.EntryInput(kind="fact", text="t", sources=[missing])]
    )
    return w.unary("Remember", request), Expected({"sourceId": "src_never"})


@case("ARTIFACT_NOT_FOUND", Code.NOT_FOUND)
def unknown_artifact_evidence(w: World) -> tuple[Termination, Expected]:
    missing = ref("mem_art_none", 3)
    request = pb.RememberRequest(
        artifacts=[missing], entries=[types.EntryInput(kind="fact", text="t", artifacts=[missing])]
    )
    return w.unary("Remember", request), Expected({"artifactId": "mem_art_none", "revision": "3"})


@case("CITATION_MISMATCH", Code.NOT_FOUND)
def citation_mismatch(w: World) -> tuple[Termination, Expected]:
    created = w.remember(None, "x")
    citation = types.Citation(
        memory_ref=created.memory,
        entry_id=created.results[0].entry_id,
        entry_version_id="mem_ver_other",
    )
    expected = Expected({"field": "citations[0]", "entryId": created.results[0].entry_id})
    return w.unary("Expand", pb.ExpandRequest(citations=[citation])), expected


# ABORTED ---------------------------------------------------------------------------------------


@case("REVISION_CONFLICT", Code.ABORTED)
def stale_base(w: World) -> tuple[Termination, Expected]:
    first = w.remember(None, "one").memory
    w.remember(first, "two")
    request = pb.RememberRequest(memory=first, entries=[types.EntryInput(kind="f", text="3")])
    expected = Expected(
        {"artifactId": first.artifact_id, "expectedRevision": "1", "headRevision": "2"}
    )
    return w.unary("Remember", request), expected


# FAILED_PRECONDITION ---------------------------------------------------------------------------


@case("MEMORY_NOT_AT_HEAD", Code.FAILED_PRECONDITION)
def search_not_at_head(w: World) -> tuple[Termination, Expected]:
    first = w.remember(None, "old").memory
    w.remember(first, "new")
    metadata = {"field": "memories[0]", "artifactId": first.artifact_id, "headRevision": "2"}
    request = pb.SearchRequest(query="old", memories=[first])
    return w.unary("Search", request), Expected(metadata, subject="memories[0]")


@case("ENTRY_NOT_IN_MEMORY", Code.FAILED_PRECONDITION)
def entry_not_in_memory(w: World) -> tuple[Termination, Expected]:
    memory = w.remember(None, "x").memory
    stranger = types.EntryRef(entry_id="mem_ent_nope", entry_version_id="mem_ver_nope")
    expected = Expected(
        {"field": "entries[0].entry", "entryId": "mem_ent_nope"}, subject="entries[0].entry"
    )
    return w.unary("Remember", revise(memory, stranger, "t")), expected


@case("ENTRY_VERSION_STALE", Code.FAILED_PRECONDITION)
def entry_version_stale(w: World) -> tuple[Termination, Expected]:
    created = w.remember(None, "v1")
    old = entry_ref(created.results[0])
    revised = w.ok("Remember", revise(created.memory, old, "v2"))
    current = revised.results[0].entry_version_id
    metadata = {"field": "entries[0].entry", "entryId": old.entry_id, "currentVersionId": current}
    request = revise(revised.memory, old, "v3 from a stale read")
    return w.unary("Remember", request), Expected(metadata, subject="entries[0].entry")


@case("ENTRY_INACTIVE", Code.FAILED_PRECONDITION)
def entry_inactive(w: World) -> tuple[Termination, Expected]:
    created = w.remember(None, "x")
    target = entry_ref(created.results[0])
    forgot = w.ok("Forget", pb.ForgetRequest(memory=created.memory, entries=[target]))
    expected = Expected(
        {"field": "entries[0].entry", "entryId": target.entry_id}, subject="entries[0].entry"
    )
    return w.unary("Remember", revise(forgot.memory, target, "y")), expected


@case("EMBEDDING_MISMATCH", Code.FAILED_PRECONDITION)
def embedding_mismatch(w: World) -> tuple[Termination, Expected]:
    # No request can attach a vector; a plan that carries an unbound one (as a bug in the
    # embedding step would) must be refused by the backend inside the commit.
    planned: list[str] = []

    async def unbound_vector(plan: lifecycle.CommitPlan) -> lifecycle.CommitPlan:
        rows = tuple(
            replace(row, embedding=b"\0" * 12, embedding_content_hash="not-bound")
            for row in plan.projection_upserts
        )
        planned.extend(row.entry_id for row in rows)
        return replace(plan, projection_upserts=rows)

    w.service.writes.attach_vectors = unbound_vector
    request = pb.RememberRequest(entries=[types.EntryInput(kind="fact", text="t")])
    termination = w.unary("Remember", request)
    (entry_id,) = planned
    return termination, Expected({"entryId": entry_id})


@case("CAPABILITY_NOT_SUPPORTED", Code.FAILED_PRECONDITION)
def vector_search_unsupported(w: World) -> tuple[Termination, Expected]:
    memory = w.remember(None, "x").memory
    request = pb.SearchRequest(query="x", memories=[memory], mode=types.SEARCH_MODE_VECTOR)
    return w.unary("Search", request), Expected({"capability": "vector"}, subject="vector")


@case("CAPABILITY_NOT_SUPPORTED", Code.FAILED_PRECONDITION)
def extractor_unavailable(w: World) -> tuple[Termination, Expected]:
    request = pb.RememberRequest(
        sources=[w.source()], mode=pb.REMEMBER_MODE_EXTRACT, extractors=["model"]
    )
    expected = Expected({"capability": "extractors[0]"}, subject="extractors[0]")
    return w.unary("Remember", request), expected


# DATA_LOSS -------------------------------------------------------------------------------------


@case("STORED_HASH_MISMATCH", Code.DATA_LOSS)
def tampered_entry_text(w: World) -> tuple[Termination, Expected]:
    created = w.remember(None, "the original text")
    version_id = created.results[0].entry_version_id
    location = w.service.backend.adapter.location
    db = sqlean.connect(location, isolation_level=None)
    try:
        db.execute(
            "UPDATE memory_entry_versions SET text = 'rewritten' WHERE entry_version_id = ?",
            (version_id,),
        )
    finally:
        db.close()
    citation = types.Citation(
        memory_ref=created.memory,
        entry_id=created.results[0].entry_id,
        entry_version_id=version_id,
    )
    expected = Expected({"row": f"memory_entry_versions[{version_id}]"})
    return w.unary("Expand", pb.ExpandRequest(citations=[citation])), expected


# ALREADY_EXISTS --------------------------------------------------------------------------------


@case("REQUEST_ID_REUSED", Code.ALREADY_EXISTS)
def request_id_reused(w: World) -> tuple[Termination, Expected]:
    first = pb.RememberRequest(entries=[types.EntryInput(kind="fact", text="a")], request_id="r-1")
    w.ok("Remember", first)
    assert w.ok("Remember", first).memory.revision == 1  # the same request: its first response
    other = pb.RememberRequest(entries=[types.EntryInput(kind="fact", text="b")], request_id="r-1")
    expected = Expected({"field": "request_id", "requestId": "r-1"})
    return w.unary("Remember", other), expected


# RESOURCE_EXHAUSTED ----------------------------------------------------------------------------


@case("TOO_MANY_STREAMS", Code.RESOURCE_EXHAUSTED)
def too_many_streams(w: World) -> tuple[Termination, Expected]:
    w.service.streams = StreamLimits(max_streams=10, max_per_caller=1)
    memory = w.remember(None, "x").memory
    following = w.open_stream("Changes", pb.ChangesRequest(memory=memory, follow=True))
    assert following.take_response().revision.memory_ref == memory  # holds the one slot
    refused = w.stream("Changes", pb.ChangesRequest(memory=memory, since_revision=0))
    following.cancel()
    return refused, Expected({"scope": "caller", "limit": "1"})


# UNAUTHENTICATED and PERMISSION_DENIED ---------------------------------------------------------
# The auth interceptor (transport/auth.py) runs before the servicer, which grpc_testing cannot
# show; here the service method first does what the interceptor does — authenticate the call's
# metadata against tokens in the real database, authorize the request — then runs.


def through_auth(w: World, rpc: str, request: Any, token: str | None) -> Termination:
    authenticator = Authenticator(TokenCache(w.service.backend.access_token, ttl=0))
    metadata = () if token is None else (("authorization", f"Bearer {token}"),)
    name = {
        "GetMemory": "get_memory",
        "Remember": "remember",
        "Search": "search",
        "PutSource": "put_source",
    }[rpc]
    original = getattr(w.service, name)

    async def guarded(*args: Any, **kwargs: Any) -> Any:
        caller = await authenticator.authenticate(metadata)
        authz.authorize(caller, rpc, request)
        return await original(*args, **kwargs)

    setattr(w.service, name, guarded)
    return w.unary(rpc, request)


def stored_token(
    w: World,
    scope: Scope,
    *memories: str,
    now_ms: int | None = None,
    expires_at_ms: int | None = None,
) -> tuple[str, str]:
    """(token id, token) of a new token kept in the world's database."""
    now = now_ms if now_ms is not None else time.time_ns() // 1_000_000
    record, token = issue("agent", scope, memories, now_ms=now, expires_at_ms=expires_at_ms)
    w.loop.run(w.service.backend.add_access_token(record))
    return record.token_id, token


@case("TOKEN_MISSING", Code.UNAUTHENTICATED)
def token_missing(w: World) -> tuple[Termination, Expected]:
    request = pb.GetMemoryRequest(memory=ref("mem_art_x", 0))
    return through_auth(w, "GetMemory", request, None), Expected({})


@case("TOKEN_INVALID", Code.UNAUTHENTICATED)
def token_with_a_wrong_secret(w: World) -> tuple[Termination, Expected]:
    _, token = stored_token(w, Scope.ADMIN)
    forged = token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB")
    request = pb.GetMemoryRequest(memory=ref("mem_art_x", 0))
    termination = through_auth(w, "GetMemory", request, forged)
    assert forged not in termination.details and token[21:] not in termination.details
    return termination, Expected({})


@case("TOKEN_REVOKED", Code.UNAUTHENTICATED)
def token_revoked(w: World) -> tuple[Termination, Expected]:
    token_id, token = stored_token(w, Scope.ADMIN)
    assert w.loop.run(w.service.backend.revoke_access_token(token_id, 1))
    request = pb.GetMemoryRequest(memory=ref("mem_art_x", 0))
    return through_auth(w, "GetMemory", request, token), Expected({"tokenId": token_id})


@case("TOKEN_EXPIRED", Code.UNAUTHENTICATED)
def token_expired(w: World) -> tuple[Termination, Expected]:
    token_id, token = stored_token(
        w, Scope.ADMIN, now_ms=1_767_225_600_000, expires_at_ms=1_767_225_660_000
    )
    request = pb.GetMemoryRequest(memory=ref("mem_art_x", 0))
    expected = Expected({"tokenId": token_id, "expiredAt": "2026-01-01T00:01:00Z"})
    return through_auth(w, "GetMemory", request, token), expected


@case("SCOPE_REQUIRED", Code.PERMISSION_DENIED)
def read_token_writes(w: World) -> tuple[Termination, Expected]:
    _, token = stored_token(w, Scope.READ)
    request = pb.RememberRequest(entries=[types.EntryInput(kind="fact", text="t")])
    expected = Expected({"requiredScope": "write", "tokenScope": "read"})
    return through_auth(w, "Remember", request, token), expected


@case("MEMORY_NOT_ALLOWED", Code.PERMISSION_DENIED)
def search_beyond_the_allow_list(w: World) -> tuple[Termination, Expected]:
    mine, theirs = w.remember(None, "mine").memory, w.remember(None, "theirs").memory
    _, token = stored_token(w, Scope.READ, mine.artifact_id)
    request = pb.SearchRequest(query="mine", memories=[mine, theirs])
    expected = Expected({"artifactId": theirs.artifact_id, "field": "memories[1]"})
    return through_auth(w, "Search", request, token), expected


@case("MEMORY_CREATION_NOT_ALLOWED", Code.PERMISSION_DENIED)
def restricted_token_creates(w: World) -> tuple[Termination, Expected]:
    _, token = stored_token(w, Scope.WRITE, "mem_art_mine")
    request = pb.RememberRequest(entries=[types.EntryInput(kind="fact", text="t")])
    return through_auth(w, "Remember", request, token), Expected({})


@case("SOURCE_MEMORY_REQUIRED", Code.PERMISSION_DENIED)
def restricted_token_stores_a_source_for_no_memory(w: World) -> tuple[Termination, Expected]:
    _, token = stored_token(w, Scope.WRITE, "mem_art_mine")
    request = pb.PutSourceRequest(kind="note", content=b"evidence")
    return through_auth(w, "PutSource", request, token), Expected({"field": "memory_id"})


# UNAVAILABLE -----------------------------------------------------------------------------------


@case("SHUTTING_DOWN", Code.UNAVAILABLE)
def follow_during_shutdown(w: World) -> tuple[Termination, Expected]:
    memory = w.remember(None, "x").memory
    rpc = w.open_stream("Changes", pb.ChangesRequest(memory=memory, follow=True))
    assert rpc.take_response().revision.memory_ref == memory  # following now
    w.loop.call(w.service.notifier.close)  # what the server does first on SIGTERM
    trailing, code, details = rpc.termination()
    expected = Expected({"artifactId": memory.artifact_id, "resumeSinceRevision": "1"})
    return Termination(code, details, tuple(trailing)), expected


@case("DATABASE_UNAVAILABLE", Code.UNAVAILABLE)
def database_unreachable(w: World) -> tuple[Termination, Expected]:
    # The OceanBase adapter's own translation of a connection failure (client error 2003).
    async def unreachable(memory: Any, **options: Any) -> None:
        with _connection_errors_as_unavailable("oceanbase://app@db.internal:2881/memory"):
            raise asyncmy.errors.OperationalError(2003, "Can't connect to MySQL server")

    w.service.get_memory = unreachable  # type: ignore[method-assign,assignment]
    request = pb.GetMemoryRequest(memory=ref("mem_art_x", 0))
    return w.unary("GetMemory", request), Expected({})


@case("DATABASE_TIMEOUT", Code.UNAVAILABLE)
def database_stuck(w: World) -> tuple[Termination, Expected]:
    # The server's bound on database work (backends/timeouts.py) around a call that never
    # answers; tests/e2e/test_database_timeout.py freezes a real seekdb and locks SQLite.
    async def stuck(memory: Any, **options: Any) -> None:
        async with bounded(0.05, "oceanbase://app@db.internal:2881/memory"):
            await asyncio.Event().wait()

    w.service.get_memory = stuck  # type: ignore[method-assign,assignment]
    request = pb.GetMemoryRequest(memory=ref("mem_art_x", 0))
    return w.unary("GetMemory", request), Expected({"timeoutSeconds": "0.05"})


# Merge / Restore / UndoMerge / PreviewRestore (merge_operations.py) -------------------------------


def merged_pair(w: World) -> tuple[pb.MergeResponse, types.EntryRef, types.EntryRef]:
    """Two entries merged into a third: (the merge, input a, input b)."""
    created = w.remember(None, "a", "b")
    a, b = entry_ref(created.results[0]), entry_ref(created.results[1])
    merge = w.ok(
        "Merge", pb.MergeRequest(memory=created.memory, inputs=[a, b], kind="fact", text="a+b")
    )
    return merge, a, b


def preview(w: World, memory: types.ArtifactRef, entry_id: str) -> pb.PreviewRestoreResponse:
    request = pb.PreviewRestoreRequest(
        memory=memory, operation=types.RESTORE_OPERATION_RESTORE, entry_id=entry_id
    )
    response: pb.PreviewRestoreResponse = w.ok("PreviewRestore", request)
    return response


@case("MERGE_NEEDS_TWO_INPUTS", Code.INVALID_ARGUMENT)
def merge_one_input(w: World) -> tuple[Termination, Expected]:
    created = w.remember(None, "a")
    request = pb.MergeRequest(
        memory=created.memory, inputs=[entry_ref(created.results[0])], kind="fact", text="t"
    )
    return w.unary("Merge", request), invalid("inputs")


@case("ENTRY_VERSION_STALE", Code.ABORTED)
def merge_stale_input(w: World) -> tuple[Termination, Expected]:
    created = w.remember(None, "a", "b")
    a, b = entry_ref(created.results[0]), entry_ref(created.results[1])
    revised = w.ok("Remember", revise(created.memory, b, "b2"))
    current = revised.results[0].entry_version_id
    request = pb.MergeRequest(memory=revised.memory, inputs=[a, b], kind="fact", text="t")
    expected = Expected({"field": "inputs[1]", "entryId": b.entry_id, "currentVersionId": current})
    return w.unary("Merge", request), expected


@case("ENTRY_MERGED", Code.FAILED_PRECONDITION)
def reactivate_merged(w: World) -> tuple[Termination, Expected]:
    merge, a, _ = merged_pair(w)
    request = pb.ReactivateRequest(memory=merge.memory, entries=[a])
    expected = Expected(
        {"field": "entries[0]", "entryId": a.entry_id, "mergedInto": merge.result.entry_id},
        subject="entries[0]",
    )
    return w.unary("Reactivate", request), expected


@case("NOT_A_MERGE_RESULT", Code.FAILED_PRECONDITION)
def undo_merge_of_an_input(w: World) -> tuple[Termination, Expected]:
    merge, a, _ = merged_pair(w)
    request = pb.UndoMergeRequest(memory=merge.memory, entry_id=a.entry_id)
    expected = Expected({"field": "entry_id", "entryId": a.entry_id}, subject="entry_id")
    return w.unary("UndoMerge", request), expected


@case("ENTRY_VERSION_NOT_FOUND", Code.INVALID_ARGUMENT)
def restore_unknown_version(w: World) -> tuple[Termination, Expected]:
    merge, a, _ = merged_pair(w)
    request = pb.RestoreRequest(
        memory=merge.memory, entry_id=a.entry_id, entry_version_id="mem_ver_nope"
    )
    return w.unary("Restore", request), invalid("entry_version_id")


@case("ENTRY_VERSION_NOT_OF_ENTRY", Code.INVALID_ARGUMENT)
def restore_version_of_another_entry(w: World) -> tuple[Termination, Expected]:
    merge, a, b = merged_pair(w)
    request = pb.RestoreRequest(
        memory=merge.memory, entry_id=a.entry_id, entry_version_id=b.entry_version_id
    )
    return w.unary("Restore", request), invalid("entry_version_id")


@case("VERSION_NOT_ALLOWED", Code.INVALID_ARGUMENT)
def undo_merge_preview_with_a_version(w: World) -> tuple[Termination, Expected]:
    merge, a, _ = merged_pair(w)
    request = pb.PreviewRestoreRequest(
        memory=merge.memory,
        operation=types.RESTORE_OPERATION_UNDO_MERGE,
        entry_id=merge.result.entry_id,
        entry_version_id=a.entry_version_id,
    )
    return w.unary("PreviewRestore", request), invalid("entry_version_id")


@case("PREVIEW_TOKEN_MISMATCH", Code.INVALID_ARGUMENT)
def preview_token_for_another_entry(w: World) -> tuple[Termination, Expected]:
    merge, a, b = merged_pair(w)
    token = preview(w, merge.memory, a.entry_id).preview_token
    request = pb.RestoreRequest(memory=merge.memory, entry_id=b.entry_id, preview_token=token)
    return w.unary("Restore", request), invalid("preview_token", mismatch="entry")


@case("PREVIEW_TOKEN_INVALID", Code.INVALID_ARGUMENT)
def preview_token_garbled(w: World) -> tuple[Termination, Expected]:
    merge, a, _ = merged_pair(w)
    request = pb.RestoreRequest(memory=merge.memory, entry_id=a.entry_id, preview_token="pc2.x.y")
    return w.unary("Restore", request), invalid("preview_token")


@case("PREVIEW_EXPIRED", Code.FAILED_PRECONDITION)
def preview_token_expired(w: World) -> tuple[Termination, Expected]:
    merge, a, _ = merged_pair(w)
    w.service.merging.preview_ttl_seconds = 0  # expires as it is issued
    previewed = preview(w, merge.memory, a.entry_id)
    request = pb.RestoreRequest(
        memory=merge.memory, entry_id=a.entry_id, preview_token=previewed.preview_token
    )
    expires = str(previewed.expires_at.ToMilliseconds())
    expected = Expected({"field": "preview_token", "expiredAtMs": expires}, subject="preview_token")
    return w.unary("Restore", request), expected


@case("PREVIEW_STALE", Code.ABORTED)
def preview_token_stale(w: World) -> tuple[Termination, Expected]:
    merge, a, _ = merged_pair(w)
    token = preview(w, merge.memory, a.entry_id).preview_token
    forgot = w.ok("Forget", pb.ForgetRequest(memory=merge.memory, entries=[merge.result]))
    request = pb.RestoreRequest(memory=forgot.memory, entry_id=a.entry_id, preview_token=token)
    expected = Expected({"field": "preview_token", "headRevision": "3"})
    return w.unary("Restore", request), expected


@case("LABEL_CONFLICT", Code.ABORTED)
def label_version_stale(w: World) -> tuple[Termination, Expected]:
    memory = w.remember(None, "a fact").memory.artifact_id
    w.ok("SetMemoryLabel", pb.SetMemoryLabelRequest(memory_id=memory, label="first"))
    request = pb.SetMemoryLabelRequest(memory_id=memory, label="second", label_version=0)
    expected = Expected({"artifactId": memory, "expectedLabelVersion": "0", "labelVersion": "1"})
    return w.unary("SetMemoryLabel", request), expected


@case("LABEL_INVALID", Code.INVALID_ARGUMENT)
def label_two_lines(w: World) -> tuple[Termination, Expected]:
    memory = w.remember(None, "a fact").memory.artifact_id
    request = pb.SetMemoryLabelRequest(memory_id=memory, label="two\nlines")
    return w.unary("SetMemoryLabel", request), invalid("label")


# GetRecallManifest / ListEntries page tokens (listing.py) -------------------------------------


def second_page_token(w: World, **filters: Any) -> tuple[types.ArtifactRef, str]:
    """A memory of two entries and the token of its first one-entry recall manifest page."""
    created = w.remember(None, "a", "b")
    first = w.ok(
        "GetRecallManifest",
        pb.GetRecallManifestRequest(memory=created.memory, page_size=1, **filters),
    )
    assert first.next_page_token
    return created.memory, first.next_page_token


@case("PAGE_TOKEN_MISMATCH", Code.INVALID_ARGUMENT)
def page_token_with_other_filters(w: World) -> tuple[Termination, Expected]:
    memory, token = second_page_token(w)
    request = pb.GetRecallManifestRequest(
        memory=memory, page_size=1, page_token=token, kinds=["fact"]
    )
    return w.unary("GetRecallManifest", request), invalid("page_token")


@case("PAGE_TOKEN_INVALID", Code.INVALID_ARGUMENT)
def page_token_tampered(w: World) -> tuple[Termination, Expected]:
    memory, token = second_page_token(w)
    head, body, mac = token.split(".")
    forged = f"{head}.{body}.{'A' if mac[0] != 'A' else 'B'}{mac[1:]}"
    request = pb.GetRecallManifestRequest(memory=memory, page_size=1, page_token=forged)
    return w.unary("GetRecallManifest", request), invalid("page_token")


# INTERNAL --------------------------------------------------------------------------------------


@case("INTERNAL", Code.INTERNAL)
def unexpected_exception(w: World) -> tuple[Termination, Expected]:
    async def broken(source_id: str) -> None:
        raise KeyError("secret row key")

    w.service.get_source = broken  # type: ignore[method-assign,assignment]
    request = pb.GetSourceRequest(source_id="src_x")
    return w.unary("GetSource", request), Expected({}, message=INTERNAL_MESSAGE)


# -- the checks ---------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", CASES, ids=[f"{c.reason}-{c.run.__name__}" for c in CASES])
def test_error_reaches_the_caller_with_its_status_and_details(world: World, spec: Case) -> None:
    termination, expected = spec.run(world)
    assert termination.code == spec.code, termination.details
    status = termination.status
    assert status is not None, "no grpc-status-details-bin trailer"
    assert status.code == spec.code.value[0]
    assert status.message == termination.details
    if expected.message is not None:
        assert status.message == expected.message

    infos = [d for d in status.details if d.Is(error_details_pb2.ErrorInfo.DESCRIPTOR)]
    assert len(infos) == 1
    info = unpack_detail(status, error_details_pb2.ErrorInfo)
    assert info is not None
    assert (info.reason, info.domain) == (spec.reason, ERROR_DOMAIN)
    assert dict(info.metadata) == expected.metadata

    bad_request = unpack_detail(status, error_details_pb2.BadRequest)
    if spec.code == Code.INVALID_ARGUMENT:
        assert bad_request is not None
        assert [v.field for v in bad_request.field_violations] == [expected.field]
        assert bad_request.field_violations[0].description
    else:
        assert bad_request is None

    failure = unpack_detail(status, error_details_pb2.PreconditionFailure)
    if expected.subject is not None:
        assert failure is not None
        assert [(v.type, v.subject) for v in failure.violations] == [
            (spec.reason, expected.subject)
        ]
        assert failure.violations[0].description == status.message
    else:
        assert failure is None
    assert len(status.details) == 1 + (bad_request is not None) + (failure is not None)


def test_every_reason_the_service_raises_has_a_case() -> None:
    raised = set()
    for path in SOURCE_ROOT.rglob("*.py"):
        if path.parent.name == "http_door":
            continue  # refused before any RPC runs (tests/e2e/test_http_door_security.py)
        raised |= set(re.findall(r'reason="([A-Z_]+)"', path.read_text()))
    # Errors raised without an explicit reason carry their class's default one.
    raised |= {"INVALID_ARGUMENT", "REVISION_CONFLICT", "CAPABILITY_NOT_SUPPORTED",
               "STORED_HASH_MISMATCH", "INTERNAL"}  # fmt: skip
    assert raised - ADMIN_ONLY == {c.reason for c in CASES}


def test_every_status_code_of_the_table_has_a_case() -> None:
    assert set(STATUS_CODES.values()) | {Code.INTERNAL} == {c.code for c in CASES}
