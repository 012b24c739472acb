"""What the fuzz starts from: real data on the server, and a valid request for each RPC.

Random messages mostly stop at the first check (an id that does not exist, an empty text);
valid requests with a few fields changed (messages.mutated) get through to the deep code,
where the 2^53 encoder bug was. Every RPC of the service needs one here: `valid_request`
returns None for an RPC it does not know, and test_fuzz.py then fails for that RPC, so a new
RPC cannot be fuzzed with random messages alone (which rarely get past its first check).
"""

from __future__ import annotations

from dataclasses import dataclass

from google.protobuf.message import Message

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types


@dataclass(frozen=True)
class Seeded:
    """A memory (revision 1: two entries; 2: the first revised; 3: the second forgotten)
    citing a source."""

    memory_id: str
    revised: types.EntryRef  # active, at its second version
    forgotten: types.EntryRef  # inactive
    first_version_id: str
    source: types.SourceRef
    content_hash: str  # of revision 3

    @property
    def plausible(self) -> tuple[str, ...]:
        """Strings the fuzz mixes into every string field: ids and hashes that exist."""
        return (
            self.memory_id,
            self.revised.entry_id,
            self.revised.entry_version_id,
            self.first_version_id,
            self.forgotten.entry_id,
            self.forgotten.entry_version_id,
            self.source.source_id,
            self.source.content_hash,
            self.content_hash,
            "fact",
            "preference",
            "make test",
        )


def seed(stub: pb_grpc.MemoryServiceStub) -> Seeded:
    source = stub.PutSource(pb.PutSourceRequest(kind="user_note", content=b"seed")).source
    cite = types.SourceRef(source_id=source.source_id, content_hash=source.content_hash)
    first = stub.Remember(
        pb.RememberRequest(
            sources=[cite],
            entries=[
                types.EntryInput(kind="fact", text="tests run with make test", sources=[cite]),
                types.EntryInput(kind="preference", text="tabs over spaces"),
            ],
        )
    )
    one, two = first.results
    revise = types.EntryInput(
        entry=types.EntryRef(entry_id=one.entry_id, entry_version_id=one.entry_version_id),
        kind="fact",
        text="tests run with make test, on both backends",
    )
    revised = stub.Remember(pb.RememberRequest(memory=first.memory, entries=[revise]))
    forgotten = types.EntryRef(entry_id=two.entry_id, entry_version_id=two.entry_version_id)
    forgot = stub.Forget(pb.ForgetRequest(memory=revised.memory, entries=[forgotten]))
    return Seeded(
        memory_id=first.memory.artifact_id,
        revised=types.EntryRef(
            entry_id=one.entry_id, entry_version_id=revised.results[0].entry_version_id
        ),
        forgotten=forgotten,
        first_version_id=one.entry_version_id,
        source=cite,
        content_hash=forgot.content_hash,
    )


def _two_entries(stub: pb_grpc.MemoryServiceStub, seeded: Seeded) -> pb.RememberResponse:
    """A new memory with two active entries: what a merge folds (an earlier example may have
    merged the seeded memory's entries already)."""
    return stub.Remember(
        pb.RememberRequest(
            sources=[seeded.source],
            entries=[
                types.EntryInput(kind="fact", text="lint with ruff", sources=[seeded.source]),
                types.EntryInput(kind="fact", text="ruff is the linter"),
            ],
        )
    )


def _merge_of(created: pb.RememberResponse) -> pb.MergeRequest:
    return pb.MergeRequest(
        memory=created.memory,
        inputs=[
            types.EntryRef(entry_id=r.entry_id, entry_version_id=r.entry_version_id)
            for r in created.results
        ],
        kind="fact",
        text="ruff lints the code",
        reason="the same rule twice",
    )


def _label_version(stub: pb_grpc.MemoryServiceStub, memory_id: str) -> int:
    """The memory's current label version, from its listing (every page: examples add memories)."""
    token = ""
    while True:
        page = stub.ListMemories(pb.ListMemoriesRequest(page_size=100, page_token=token))
        for listed in page.memories:
            if listed.head.artifact_id == memory_id:
                return listed.label_version
        if not page.next_page_token:
            raise AssertionError(f"memory {memory_id} is not listed")
        token = page.next_page_token


def valid_request(name: str, stub: pb_grpc.MemoryServiceStub, seeded: Seeded) -> Message | None:
    """A request for RPC `name` that succeeds (writes on a memory: on its current head, which
    earlier examples may have moved); None for an RPC this module does not know."""
    head_ref = types.ArtifactRef(artifact_id=seeded.memory_id)
    if name == "Merge":  # a new memory each time: its two entries are still active
        merge = _merge_of(_two_entries(stub, seeded))
        merge.sources.append(seeded.source)
        return merge
    if name == "UndoMerge":  # a new merge each time, so there is always one to undo
        created = _two_entries(stub, seeded)
        merged = stub.Merge(_merge_of(created))
        return pb.UndoMergeRequest(
            memory=merged.memory, entry_id=merged.result.entry_id, reason="keep them apart"
        )
    if name == "Restore":  # the forgotten entry (a no-op once an example restored it)
        head = stub.GetMemory(pb.GetMemoryRequest(memory=head_ref)).memory
        return pb.RestoreRequest(memory=head, entry_id=seeded.forgotten.entry_id, reason="back")
    if name in ("Forget", "Reactivate", "Organize"):
        head = stub.GetMemory(
            pb.GetMemoryRequest(memory=types.ArtifactRef(artifact_id=seeded.memory_id))
        ).memory
        if name == "Forget":
            return pb.ForgetRequest(memory=head, entries=[seeded.revised], reason="stale")
        if name == "Reactivate":
            return pb.ReactivateRequest(memory=head, entries=[seeded.forgotten], reason="back")
        steps = [pb.ORGANIZE_STEP_DEDUPE, pb.ORGANIZE_STEP_NORMALIZE]
        return pb.OrganizeRequest(memory=head, steps=steps)
    at = types.ArtifactRef(artifact_id=seeded.memory_id, revision=2)
    citation = types.Citation(
        memory_ref=at,
        entry_id=seeded.revised.entry_id,
        entry_version_id=seeded.revised.entry_version_id,
    )
    fact = types.EntryInput(
        kind="fact", text="the CI runs make test", sources=[seeded.source], reason="CI log"
    )
    label_version = _label_version(stub, seeded.memory_id)
    requests: dict[str, Message] = {
        "ListMemories": pb.ListMemoriesRequest(page_size=2),
        "SetMemoryLabel": pb.SetMemoryLabelRequest(
            memory_id=seeded.memory_id, label="fuzzed memory", label_version=label_version
        ),
        "PutSource": pb.PutSourceRequest(
            kind="user_note",
            uri="file:///notes/today.md",
            media_type="text/markdown",
            content=b"# today\nran make test",
            metadata={"author": "fuzz"},
        ),
        "GetSource": pb.GetSourceRequest(source_id=seeded.source.source_id),
        # A new memory each time, so an earlier example never makes it ABORTED.
        "Remember": pb.RememberRequest(
            sources=[seeded.source], artifacts=[at], entries=[fact], mode=pb.REMEMBER_MODE_APPEND
        ),
        "GetMemory": pb.GetMemoryRequest(memory=at),
        "Changes": pb.ChangesRequest(memory=at, since_revision=0),
        "Search": pb.SearchRequest(
            query="make test",
            memories=[types.ArtifactRef(artifact_id=seeded.memory_id)],
            limit=5,
            mode=types.SEARCH_MODE_FTS,
        ),
        "Expand": pb.ExpandRequest(citations=[citation]),
        "GetCapabilities": pb.GetCapabilitiesRequest(),
        "PrepareContext": pb.PrepareContextRequest(
            memories=[head_ref], query="how are tests run", budget_bytes=2000
        ),
        "GetRecallManifest": pb.GetRecallManifestRequest(
            memory=head_ref, page_size=1, kinds=["fact"], tag_match=types.TAG_MATCH_ANY
        ),
        "ListEntries": pb.ListEntriesRequest(
            memory=head_ref,
            page_size=1,
            statuses=[types.ENTRY_STATUS_ACTIVE, types.ENTRY_STATUS_INACTIVE],
            include_text=True,
        ),
        "PreviewRestore": pb.PreviewRestoreRequest(
            memory=head_ref,
            operation=types.RESTORE_OPERATION_RESTORE,
            entry_id=seeded.revised.entry_id,
            entry_version_id=seeded.first_version_id,
        ),
    }
    return requests.get(name)
