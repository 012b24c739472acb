"""Memories for the console's tests, written over real gRPC: a small story with every kind of
revision (add, revise, forget, merge) and evidence, and bulk memories for measuring."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types

BULK_BATCH = 1000  # entries per Remember (the server's limit per request)


@dataclass
class Story:
    """A memory after four revisions, and the exact refs the tests look for."""

    memory: types.ArtifactRef
    entries: dict[str, types.EntryRef] = field(default_factory=dict)  # by role
    texts: dict[str, str] = field(default_factory=dict)
    source: types.SourceRef | None = None

    @property
    def artifact_id(self) -> str:
        return self.memory.artifact_id


def put_source(
    stub: pb_grpc.MemoryServiceStub,
    content: str,
    *,
    kind: str = "user_note",
    uri: str = "",
    media_type: str = "text/plain",
    metadata: dict[str, str] | None = None,
) -> types.SourceRef:
    answer = stub.PutSource(
        pb.PutSourceRequest(
            kind=kind,
            uri=uri,
            media_type=media_type,
            content=content.encode(),
            metadata=metadata or {},
        )
    )
    return types.SourceRef(
        source_id=answer.source.source_id, content_hash=answer.source.content_hash
    )


def remember(
    stub: pb_grpc.MemoryServiceStub,
    memory: types.ArtifactRef | None,
    entries: Sequence[types.EntryInput],
    sources: Sequence[types.SourceRef] = (),
) -> pb.RememberResponse:
    request = pb.RememberRequest(entries=entries, sources=sources, mode=pb.REMEMBER_MODE_APPEND)
    if memory is not None:
        request.memory.CopyFrom(memory)
    return stub.Remember(request)


def ref(result: pb.EntryResult) -> types.EntryRef:
    return types.EntryRef(entry_id=result.entry_id, entry_version_id=result.entry_version_id)


TEXTS = {
    "rule": "site/ is generated output: never edit it by hand.",
    "style": "Format Python with ruff format before committing.",
    "nightly": "The nightly job exports the index.",
    "signed": "Deploys need a signed tag.",
    "ci": "Release tags are made by the CI pipeline.",
}
REVISED_NIGHTLY = "The nightly job exports the search index at 02:00 UTC."
MERGED_TEXT = "Deploys need a signed tag, and the CI pipeline makes release tags."


def story(stub: pb_grpc.MemoryServiceStub) -> Story:
    """Revision 1 adds five entries (one with a user note as evidence), 2 revises one, 3
    forgets one, 4 merges two into a new entry."""
    note = put_source(stub, "User said: the nightly export runs at 02:00 UTC.", uri="note://chat/1")
    kinds = {
        "rule": "constraint",
        "style": "preference",
        "nightly": "fact",
        "signed": "decision",
        "ci": "fact",
    }
    inputs = [
        types.EntryInput(
            kind=kinds[role],
            text=text,
            tags=["deploy"] if role in ("signed", "ci") else [],
            sources=[note] if role == "nightly" else [],
        )
        for role, text in TEXTS.items()
    ]
    first = remember(stub, None, inputs, [note])
    refs = {role: ref(result) for role, result in zip(TEXTS, first.results, strict=True)}
    revised = remember(
        stub,
        first.memory,
        [
            types.EntryInput(
                entry=refs["nightly"], kind="fact", text=REVISED_NIGHTLY, reason="more precise"
            )
        ],
    )
    refs["nightly"] = ref(revised.results[0])
    forgot = stub.Forget(
        pb.ForgetRequest(memory=revised.memory, entries=[refs["style"]], reason="outdated")
    )
    merged = stub.Merge(
        pb.MergeRequest(
            memory=forgot.memory,
            inputs=[refs["signed"], refs["ci"]],
            kind="decision",
            text=MERGED_TEXT,
            reason="one rule",
        )
    )
    refs["merged"] = merged.result
    texts = {**TEXTS, "nightly": REVISED_NIGHTLY, "merged": MERGED_TEXT}
    return Story(memory=merged.memory, entries=refs, texts=texts, source=note)


def bulk(stub: pb_grpc.MemoryServiceStub, size: int) -> types.ArtifactRef:
    """A memory of `size` distinct facts, written in batches."""
    memory: types.ArtifactRef | None = None
    for start in range(0, size, BULK_BATCH):
        entries = [
            types.EntryInput(
                kind="fact", text=f"Bulk fact number {n}: module {n % 97} owns step {n}."
            )
            for n in range(start, min(size, start + BULK_BATCH))
        ]
        memory = remember(stub, memory, entries).memory
    assert memory is not None
    return memory
