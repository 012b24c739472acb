"""Sixteen writers on one memory through a real server process, on SQLite and on seekdb.

Each writer adds a note, revises it and adds another, re-reading the head after every ABORTED
(the documented way to write under contention). Whatever the interleaving: the history is
gapless, every acknowledged change is in it at the revision it was acknowledged with and is
still in the final head (at that version or a later one), and every loser was told the real
head: ABORTED, REVISION_CONFLICT, headRevision above the revision it wrote on, and a revision
that exists. (The CAS itself is covered in-process by tests/conformance; this is the same rule
under real concurrency over gRPC, with the server's own scheduling.)
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

import grpc

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_client.errors import error_info

from ..e2e.requests import remember
from ..serving import ServerProcess
from .wire import connected, head_ref, history, stopped_cleanly

WRITERS = 16
COMMITS_PER_WRITER = 3  # add, revise it, add another


@dataclass(frozen=True)
class Ack:
    """An acknowledged commit: its revision and the entry version it wrote."""

    revision: int
    entry_id: str
    entry_version_id: str


@dataclass
class Writer:
    stub: pb_grpc.MemoryServiceStub
    artifact_id: str
    acks: list[Ack] = field(default_factory=list)
    losses: list[tuple[int, int]] = field(default_factory=list)  # (expected, head) per ABORTED

    async def commit(
        self,
        build: Callable[[types.ArtifactRef], pb.RememberRequest],
        start: asyncio.Barrier | None = None,
    ) -> Ack:
        """Write on the head until it commits; every ABORTED is checked and recorded."""
        while True:
            read = pb.GetMemoryRequest(memory=head_ref(self.artifact_id))
            head = await self.stub.GetMemory(read)
            if start is not None:  # the first attempt of every writer on the same base
                await start.wait()
                start = None
            try:
                response = await self.stub.Remember(build(head.memory))
            except grpc.aio.AioRpcError as error:
                self.losses.append(conflict(error, head.memory.revision))
                continue
            (result,) = response.results
            ack = Ack(response.memory.revision, result.entry_id, result.entry_version_id)
            self.acks.append(ack)
            return ack

    async def run(self, n: int, start: asyncio.Barrier) -> None:
        first = await self.commit(lambda head: remember(head, f"writer {n}: first note"), start)
        revised = types.EntryInput(
            entry=types.EntryRef(entry_id=first.entry_id, entry_version_id=first.entry_version_id),
            kind="fact",
            text=f"writer {n}: first note, revised",
        )
        await self.commit(lambda head: pb.RememberRequest(memory=head, entries=[revised]))
        await self.commit(lambda head: remember(head, f"writer {n}: second note"))


def conflict(error: grpc.aio.AioRpcError, expected: int) -> tuple[int, int]:
    """A lost race must say so precisely: (the revision written on, the head that won)."""
    assert error.code() == grpc.StatusCode.ABORTED, error
    reason, metadata = error_info(error)
    assert reason == "REVISION_CONFLICT", error
    assert metadata["expectedRevision"] == str(expected)
    head = int(metadata["headRevision"])
    assert head > expected, f"ABORTED on revision {expected} names head {head}"
    return expected, head


async def test_sixteen_writers_keep_a_gapless_history_and_every_acknowledged_change(
    database: str,
) -> None:
    with stopped_cleanly(ServerProcess(database)) as server:
        async with connected(server.port) as stub:
            base = (await stub.Remember(remember(None, "base entry"))).memory
            writers = [Writer(stub, base.artifact_id) for _ in range(WRITERS)]
            start = asyncio.Barrier(WRITERS)
            await asyncio.gather(*(w.run(n, start) for n, w in enumerate(writers)))
            revisions = await history(stub, base.artifact_id)
            final = await stub.GetMemory(pb.GetMemoryRequest(memory=head_ref(base.artifact_id)))

    last = 1 + WRITERS * COMMITS_PER_WRITER
    # Gapless, and every commit acknowledged exactly once.
    assert [r.memory_ref.revision for r in revisions] == list(range(1, last + 1))
    acks = [ack for w in writers for ack in w.acks]
    assert sorted(ack.revision for ack in acks) == list(range(2, last + 1))
    # All sixteen wrote on revision 1 at once: exactly one of those first attempts won.
    first_attempt_lost = sum(1 for w in writers if w.losses and w.losses[0][0] == 1)
    assert first_attempt_lost == WRITERS - 1

    # No acknowledged change lost: it is in the history at its revision, and the final head
    # holds the entry at that version or one written after it.
    by_revision = {r.memory_ref.revision: r for r in revisions}
    version_history: dict[str, list[str]] = {}
    for revision in revisions:
        for change in revision.changes:
            version_history.setdefault(change.entry_id, []).append(change.to_entry_version_id)
    manifest = {e.entry_id: e.entry_version_id for e in final.content.manifest.entries}
    for ack in acks:
        changed = {(c.entry_id, c.to_entry_version_id) for c in by_revision[ack.revision].changes}
        assert (ack.entry_id, ack.entry_version_id) in changed, ack
        versions = version_history[ack.entry_id]
        assert manifest[ack.entry_id] in versions[versions.index(ack.entry_version_id) :], ack
    assert final.active_entries == 1 + WRITERS * 2

    # Every loser was told a head that really was committed.
    losses = [loss for w in writers for loss in w.losses]
    assert losses, "sixteen writers on one memory never conflicted"
    assert all(head in by_revision for _, head in losses)
