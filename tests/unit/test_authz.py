"""The authorization table (security/authz.py): complete, and every memory a request names is
checked against a token's allow-list."""

from __future__ import annotations

from typing import Any

import pytest

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types
from powercontext_memory.domain.errors import PermissionDeniedError
from powercontext_memory.security import authz
from powercontext_memory.security.tokens import AccessToken, Scope, issue

SERVICE = pb.DESCRIPTOR.services_by_name["MemoryService"]
NOW = 1_767_225_600_000
A, B, C = "mem_art_a", "mem_art_b", "mem_art_c"


def ref(artifact_id: str, revision: int = 1) -> types.ArtifactRef:
    return types.ArtifactRef(artifact_id=artifact_id, revision=revision)


def token(scope: Scope, *memories: str) -> AccessToken:
    return issue("test", scope, memories, now_ms=NOW)[0]


def test_every_rpc_of_the_service_is_in_the_table_and_nothing_else() -> None:
    methods = {m.name for m in SERVICE.methods}
    assert set(authz.RPC_SCOPES) == methods
    assert set(authz._EXTRACTORS) == methods
    assert SERVICE.full_name == authz.MEMORY_SERVICE


def test_reads_need_read_and_writes_need_write() -> None:
    writes = {
        "PutSource",
        "Remember",
        "Forget",
        "Reactivate",
        "Organize",
        "Merge",
        "Restore",
        "UndoMerge",
        "SetMemoryLabel",
    }
    for method, scope in authz.RPC_SCOPES.items():
        assert scope is (Scope.WRITE if method in writes else Scope.READ), method
    assert authz.required_scope("SomethingNew") is Scope.ADMIN  # unclassified: the top scope


# Each request names memories in every field that can hold one; the expected refs in order.
NAMING: list[tuple[str, Any, list[tuple[str, str]]]] = [
    (
        "Remember",
        pb.RememberRequest(
            memory=ref(A),
            artifacts=[ref(B), ref(C)],
            entries=[
                types.EntryInput(kind="fact", text="t"),
                types.EntryInput(kind="fact", text="t", artifacts=[ref(C, 2)]),
            ],
        ),
        [("memory", A), ("artifacts[0]", B), ("artifacts[1]", C), ("entries[1].artifacts[0]", C)],
    ),
    ("Remember", pb.RememberRequest(entries=[types.EntryInput(text="t")]), []),
    ("Forget", pb.ForgetRequest(memory=ref(A)), [("memory", A)]),
    ("Reactivate", pb.ReactivateRequest(memory=ref(A)), [("memory", A)]),
    ("Organize", pb.OrganizeRequest(memory=ref(A)), [("memory", A)]),
    ("GetMemory", pb.GetMemoryRequest(memory=ref(A, 0)), [("memory", A)]),
    ("GetMemory", pb.GetMemoryRequest(), []),  # no id: the service refuses it
    ("Changes", pb.ChangesRequest(memory=ref(A), since_revision=0), [("memory", A)]),
    (
        "Changes",
        pb.ChangesRequest(memory=ref(A, 3), since_ref=ref(B)),
        [("memory", A), ("since_ref", B)],
    ),
    (
        "Search",
        pb.SearchRequest(query="q", memories=[ref(A), ref(B), ref(C)]),
        [("memories[0]", A), ("memories[1]", B), ("memories[2]", C)],
    ),
    (
        "Expand",
        pb.ExpandRequest(
            citations=[types.Citation(memory_ref=ref(A)), types.Citation(memory_ref=ref(B))]
        ),
        [("citations[0].memory_ref", A), ("citations[1].memory_ref", B)],
    ),
    ("PutSource", pb.PutSourceRequest(kind="note", memory_id=A), [("memory_id", A)]),
    ("GetSource", pb.GetSourceRequest(source_id="src_x"), []),
    ("GetCapabilities", pb.GetCapabilitiesRequest(), []),
    ("GetRecallManifest", pb.GetRecallManifestRequest(memory=ref(A, 0)), [("memory", A)]),
    ("ListEntries", pb.ListEntriesRequest(memory=ref(A, 0)), [("memory", A)]),
    (
        "Merge",
        pb.MergeRequest(memory=ref(A), artifacts=[ref(B), ref(C, 2)]),
        [("memory", A), ("artifacts[0]", B), ("artifacts[1]", C)],
    ),
    ("Restore", pb.RestoreRequest(memory=ref(A), entry_id="e"), [("memory", A)]),
    ("UndoMerge", pb.UndoMergeRequest(memory=ref(A), entry_id="e"), [("memory", A)]),
    ("PreviewRestore", pb.PreviewRestoreRequest(memory=ref(A, 0)), [("memory", A)]),
]


@pytest.mark.parametrize(("method", "request_", "expected"), NAMING)
def test_every_memory_a_request_names_is_found(
    method: str, request_: Any, expected: list[tuple[str, str]]
) -> None:
    found = [(r.field, r.artifact_id) for r in authz.memory_refs(method, request_)]
    assert found == expected


@pytest.mark.parametrize(("method", "request_", "expected"), NAMING)
def test_a_restricted_token_is_refused_the_first_memory_it_may_not_use(
    method: str, request_: Any, expected: list[tuple[str, str]]
) -> None:
    allowed = token(Scope.ADMIN, A, B, C)
    if method == "Remember" and not request_.HasField("memory"):
        with pytest.raises(PermissionDeniedError) as refused:
            authz.authorize(allowed, method, request_)
        assert refused.value.reason == "MEMORY_CREATION_NOT_ALLOWED"
        authz.authorize(token(Scope.WRITE), method, request_)  # unrestricted: may create
        return
    authz.authorize(allowed, method, request_)
    for artifact_id in dict.fromkeys(a for _, a in expected):  # leave out one at a time
        others = {A, B, C} - {artifact_id}
        with pytest.raises(PermissionDeniedError) as refused:
            authz.authorize(token(Scope.ADMIN, *others), method, request_)
        first = next(f for f, a in expected if a == artifact_id)
        assert refused.value.reason == "MEMORY_NOT_ALLOWED"
        assert refused.value.metadata == {"artifactId": artifact_id, "field": first}


def test_the_scope_is_checked_first_and_named() -> None:
    request = pb.RememberRequest(memory=ref(A))
    with pytest.raises(PermissionDeniedError) as refused:
        authz.authorize(token(Scope.READ, B), "Remember", request)
    assert refused.value.reason == "SCOPE_REQUIRED"
    assert refused.value.metadata == {"requiredScope": "write", "tokenScope": "read"}
    authz.authorize(token(Scope.WRITE), "Remember", request)
    authz.authorize(token(Scope.ADMIN), "Remember", request)
    authz.authorize(token(Scope.READ), "GetMemory", pb.GetMemoryRequest(memory=ref(A)))


def test_a_restricted_token_stores_a_source_only_for_one_of_its_memories() -> None:
    unnamed = pb.PutSourceRequest(kind="note", content=b"x")
    with pytest.raises(PermissionDeniedError) as refused:
        authz.authorize(token(Scope.WRITE, A), "PutSource", unnamed)
    assert refused.value.reason == "SOURCE_MEMORY_REQUIRED"
    assert refused.value.metadata == {"field": "memory_id"}
    authz.authorize(token(Scope.WRITE), "PutSource", unnamed)  # unrestricted: optional
    with pytest.raises(PermissionDeniedError) as other:
        authz.authorize(token(Scope.WRITE, A), "PutSource", pb.PutSourceRequest(memory_id=B))
    assert other.value.reason == "MEMORY_NOT_ALLOWED"
    authz.authorize(token(Scope.WRITE, A), "PutSource", pb.PutSourceRequest(memory_id=A))
    # GetSource names no memory: the service filters what a restricted token may read.
    authz.authorize(token(Scope.READ, A), "GetSource", pb.GetSourceRequest(source_id="src_x"))
