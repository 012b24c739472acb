"""Authorization: THE table of the scope each MemoryService RPC needs, and the memories a
request names, checked against a token's allow-list.

Rules (README "Running on a network"):

* Reads (GetMemory, Changes, Search, Expand, GetSource, GetCapabilities, PrepareContext,
  GetRecallManifest, ListEntries, PreviewRestore, ListMemories) need `read`; every write
  (Remember, Forget, Reactivate, Organize, PutSource, Merge, Restore, UndoMerge, SetMemoryLabel)
  needs `write`. PreviewRestore
  writes nothing: its token only lets the same caller apply the write, which needs `write`.
  `admin` includes both; no RPC needs more today (the admin commands work on the database,
  not over gRPC).
* A token limited to some memories may only name those: every memory a request names is
  checked — the target memory, a Changes `since_ref`, every memory of a Search, every
  citation of Expand, and every artifact cited as evidence by a Remember (operation-level and
  per entry) or a Merge. Such a token may not create a memory (Remember without `memory`): it
  could never read the new memory back, and creating memories is an unrestricted grant's job.
* Sources are content-addressed (a source id is a hash of its record) and shared, but a token
  limited to some memories sees only theirs: the sources those memories cite or had recorded
  for them. Such a token must name one of its memories in PutSource (`memory_id`: the source
  is recorded for it); anything else it reads or cites (GetSource, evidence of a write) is
  checked by the service against the database and answers as a source that does not exist.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final

from powercontext.memory.v1 import memory_service_pb2 as pb

from ..domain.errors import PermissionDeniedError
from .tokens import AccessToken, Scope

MEMORY_SERVICE: Final = pb.DESCRIPTOR.services_by_name["MemoryService"].full_name

# THE table: MemoryService method name -> the scope its caller needs.
RPC_SCOPES: Final[Mapping[str, Scope]] = MappingProxyType(
    {
        "PutSource": Scope.WRITE,
        "GetSource": Scope.READ,
        "Remember": Scope.WRITE,
        "Forget": Scope.WRITE,
        "Reactivate": Scope.WRITE,
        "Organize": Scope.WRITE,
        "GetMemory": Scope.READ,
        "Changes": Scope.READ,
        "Search": Scope.READ,
        "Expand": Scope.READ,
        "GetCapabilities": Scope.READ,
        "PrepareContext": Scope.READ,
        "GetRecallManifest": Scope.READ,
        "ListEntries": Scope.READ,
        "Merge": Scope.WRITE,
        "Restore": Scope.WRITE,
        "UndoMerge": Scope.WRITE,
        "PreviewRestore": Scope.READ,
        "ListMemories": Scope.READ,
        "SetMemoryLabel": Scope.WRITE,
    }
)
# A method missing from the table (a new RPC nobody classified) needs the top scope.
UNLISTED_SCOPE: Final = Scope.ADMIN


@dataclass(frozen=True, slots=True)
class MemoryRef:
    """A memory a request names, and where (the request field, as in error details)."""

    field: str
    artifact_id: str


def _refs(field: str, refs: Any) -> Iterator[MemoryRef]:
    for i, ref in enumerate(refs):
        yield MemoryRef(f"{field}[{i}]", ref.artifact_id)


def _remember(request: pb.RememberRequest) -> Iterator[MemoryRef]:
    if request.HasField("memory"):
        yield MemoryRef("memory", request.memory.artifact_id)
    yield from _refs("artifacts", request.artifacts)
    for i, entry in enumerate(request.entries):
        yield from _refs(f"entries[{i}].artifacts", entry.artifacts)


def _target(request: Any) -> Iterator[MemoryRef]:
    yield MemoryRef("memory", request.memory.artifact_id)


def _merge(request: pb.MergeRequest) -> Iterator[MemoryRef]:
    yield MemoryRef("memory", request.memory.artifact_id)
    yield from _refs("artifacts", request.artifacts)


def _changes(request: pb.ChangesRequest) -> Iterator[MemoryRef]:
    yield MemoryRef("memory", request.memory.artifact_id)
    if request.WhichOneof("since") == "since_ref":
        yield MemoryRef("since_ref", request.since_ref.artifact_id)


def _search(request: pb.SearchRequest | pb.PrepareContextRequest) -> Iterator[MemoryRef]:
    yield from _refs("memories", request.memories)


def _expand(request: pb.ExpandRequest) -> Iterator[MemoryRef]:
    for i, citation in enumerate(request.citations):
        yield MemoryRef(f"citations[{i}].memory_ref", citation.memory_ref.artifact_id)


def _memory_id(request: pb.PutSourceRequest | pb.SetMemoryLabelRequest) -> Iterator[MemoryRef]:
    yield MemoryRef("memory_id", request.memory_id)


def _none(request: Any) -> Iterator[MemoryRef]:
    return iter(())


_EXTRACTORS: Final[Mapping[str, Callable[[Any], Iterator[MemoryRef]]]] = MappingProxyType(
    {
        "PutSource": _memory_id,
        "GetSource": _none,
        "Remember": _remember,
        "Forget": _target,
        "Reactivate": _target,
        "Organize": _target,
        "GetMemory": _target,
        "Changes": _changes,
        "Search": _search,
        "Expand": _expand,
        "GetCapabilities": _none,
        "PrepareContext": _search,
        "GetRecallManifest": _target,
        "ListEntries": _target,
        "Merge": _merge,
        "Restore": _target,
        "UndoMerge": _target,
        "PreviewRestore": _target,
        "ListMemories": _none,
        "SetMemoryLabel": _memory_id,
    }
)


def memory_refs(method: str, request: Any) -> list[MemoryRef]:
    """Every memory `request` names. Empty ids are left out: they name no memory, and the
    service refuses them as invalid arguments."""
    return [ref for ref in _EXTRACTORS[method](request) if ref.artifact_id]


def required_scope(method: str) -> Scope:
    return RPC_SCOPES.get(method, UNLISTED_SCOPE)


def require_scope(token: AccessToken, scope: Scope, method: str) -> None:
    if not token.grants(scope):
        raise PermissionDeniedError(
            f"{method} needs a token with scope {scope.value}; this token has {token.scope.value}",
            reason="SCOPE_REQUIRED",
            metadata={"requiredScope": scope.value, "tokenScope": token.scope.value},
        )


def authorize(token: AccessToken, method: str, request: Any) -> None:
    """PERMISSION_DENIED unless `token` may call MemoryService `method` with `request`."""
    require_scope(token, required_scope(method), method)
    if not token.restricted:
        return
    if method == "Remember" and not request.HasField("memory"):
        raise PermissionDeniedError(
            "a token limited to listed memories cannot create a memory: use a token without "
            "a memory list",
            reason="MEMORY_CREATION_NOT_ALLOWED",
        )
    if method == "PutSource" and not request.memory_id:
        raise PermissionDeniedError(
            "memory_id: a token limited to listed memories stores a source for one of them: "
            "name it in memory_id",
            reason="SOURCE_MEMORY_REQUIRED",
            metadata={"field": "memory_id"},
        )
    for ref in memory_refs(method, request):
        if not token.allows(ref.artifact_id):
            raise PermissionDeniedError(
                f"{ref.field}: this token may not use memory {ref.artifact_id}",
                reason="MEMORY_NOT_ALLOWED",
                metadata={"artifactId": ref.artifact_id, "field": ref.field},
            )
