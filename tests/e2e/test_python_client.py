"""The Python client against a real server: every RPC, typed errors, update(), follow()."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
import sqlean

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types
from powercontext_client import (
    AsyncClient,
    CapabilityNotSupported,
    CitationMismatch,
    Client,
    ClientConfig,
    DataLoss,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PowerContextError,
    RevisionConflict,
    Unavailable,
    citation,
    entry_ref,
    new_entry,
    ref,
    revise,
    source_ref,
)
from powercontext_memory.app import open_service
from powercontext_memory.transport.server import RunningServer, start_server

from ..doc_blocks import reserved_port
from ..serving import serve_process

CJK_TEXT = "验证约定：常规代码变更运行 make test；仅文档变更优先运行 make docs-test。"
CJK_QUERY = "修改文档前需要知道哪些构建和验证约定？"


@pytest.fixture
async def client(server: RunningServer) -> AsyncIterator[AsyncClient]:
    async with AsyncClient(f"127.0.0.1:{server.port}") as c:
        yield c


async def test_every_rpc_with_wire_types(client: AsyncClient) -> None:
    assert await client.health() == 1  # SERVING
    caps = await client.capabilities()
    assert caps.backend == "sqlite" and caps.fts and not caps.vector

    note = await client.put_source("the user said so", kind="user_note", media_type="text/plain")
    assert isinstance(note, pb.PutSourceResponse) and note.created
    assert (await client.get_source(note.source.source_id)).content == b"the user said so"
    evidence = source_ref(note)

    created = await client.remember(
        None, [new_entry("preference", CJK_TEXT, sources=[evidence])], sources=[evidence]
    )
    assert created.changed and created.memory.revision == 1
    added = created.results[0]

    found = await client.search(CJK_QUERY, [created.memory], mode=types.SEARCH_MODE_FTS)
    assert [h.entry_id for h in found.hits] == [added.entry_id]
    assert list(found.hits[0].matched_by) == [types.SEARCH_CHANNEL_FTS]

    revised = await client.remember(
        created.memory,
        [revise(found.hits[0], CJK_TEXT + "评审前运行 make check。", kind="preference")],
    )
    assert revised.results[0].outcome == pb.ENTRY_OUTCOME_REVISED
    forgotten = await client.forget(revised.memory, [entry_ref(revised.results[0])], reason="x")
    assert [c.op for c in forgotten.changes] == [types.CHANGE_OP_DEACTIVATE]
    back = await client.reactivate(forgotten.memory, [entry_ref(revised.results[0])])
    assert back.memory.revision == 4
    organized = await client.organize(back.memory)
    assert not organized.changed and organized.memory == back.memory

    memory_id = created.memory.artifact_id
    head = await client.get_memory(memory_id)
    assert head.memory.revision == 4 and head.active_entries == 1
    assert await client.head(memory_id) == head.memory
    history = await client.changes(head.memory, 0)
    assert [r.memory_ref.revision for r in history] == [1, 2, 3, 4]
    assert [r.memory_ref.revision for r in await client.changes(head.memory)] == [4]

    version_2 = revised.results[0].entry_version_id
    cited = await client.expand([citation(ref(memory_id, 2), added.entry_id, version_2)])
    assert cited.entries[0].version.version == 2


async def test_errors_are_typed_with_their_details(client: AsyncClient) -> None:
    created = await client.remember(None, [new_entry("fact", "one")])
    memory = created.memory
    second = await client.remember(memory, [new_entry("fact", "two")])

    with pytest.raises(RevisionConflict) as conflict:
        await client.remember(memory, [new_entry("fact", "three")])
    assert conflict.value.code is grpc.StatusCode.ABORTED
    assert conflict.value.reason == "REVISION_CONFLICT"
    assert conflict.value.head_revision == 2 and conflict.value.expected_revision == 1
    assert conflict.value.artifact_id == memory.artifact_id

    with pytest.raises(InvalidArgument) as invalid:
        await client.remember(second.memory, [new_entry("fact", "   ")])
    assert invalid.value.field_violations[0][0] == "entries[0].text"

    with pytest.raises(NotFound) as missing:
        await client.get_memory("mem_art_" + "0" * 32)
    assert missing.value.reason == "MEMORY_NOT_FOUND"

    wrong = citation(memory, created.results[0].entry_id, second.results[0].entry_version_id)
    with pytest.raises(CitationMismatch):
        await client.expand([wrong])

    with pytest.raises(CapabilityNotSupported) as unsupported:
        await client.search("one", [second.memory], mode=types.SEARCH_MODE_VECTOR)
    assert unsupported.value.capability == "vector"
    assert isinstance(unsupported.value, FailedPrecondition)

    with pytest.raises(FailedPrecondition) as not_head:
        await client.search("one", [memory])
    assert not_head.value.reason == "MEMORY_NOT_AT_HEAD"
    assert not isinstance(not_head.value, CapabilityNotSupported)


async def test_tampered_source_is_data_loss(tmp_path: Path) -> None:
    database = tmp_path / "memory.sqlite3"
    service = await open_service(database)
    running = await start_server(service, "127.0.0.1:0")
    try:
        async with AsyncClient(f"127.0.0.1:{running.port}") as client:
            stored = await client.put_source(b"original", kind="file")
            db = sqlean.connect(str(database), isolation_level=None)
            db.execute("UPDATE sources SET content = ?", (b"tampered",))
            db.close()
            with pytest.raises(DataLoss):
                await client.get_source(stored.source.source_id)
    finally:
        await running.stop(grace=1.0)


async def test_update_reapplies_on_the_head_that_won(client: AsyncClient) -> None:
    created = await client.remember(None, [new_entry("fact", "base")])
    memory_id = created.memory.artifact_id
    seen: list[int] = []

    async def change(head: pb.GetMemoryResponse) -> pb.RememberRequest:
        seen.append(head.memory.revision)
        if len(seen) == 1:  # another writer commits between our read and our write
            await client.remember(head.memory, [new_entry("fact", "the other writer")])
        return pb.RememberRequest(entries=[new_entry("fact", "mine")])

    result = await client.update(memory_id, change)
    assert seen == [1, 2]  # re-read at the head the conflict reported, re-applied there
    assert isinstance(result, pb.RememberResponse) and result.memory.revision == 3

    assert await client.update(memory_id, lambda head: None) is None


async def test_update_under_contention_never_loses_a_write(client: AsyncClient) -> None:
    created = await client.remember(None, [new_entry("fact", "base")])
    memory_id = created.memory.artifact_id

    async def add(n: int) -> None:
        await client.update(
            memory_id,
            lambda head: pb.RememberRequest(entries=[new_entry("fact", f"w{n}")]),
            attempts=50,
        )

    await asyncio.gather(*(add(n) for n in range(8)))
    head = await client.get_memory(memory_id)
    assert head.memory.revision == 9 and head.active_entries == 9


async def test_update_gives_up_after_its_attempts(client: AsyncClient) -> None:
    created = await client.remember(None, [new_entry("fact", "base")])

    async def always_loses(head: pb.GetMemoryResponse) -> pb.RememberRequest:
        await client.remember(head.memory, [new_entry("fact", f"winner {head.memory.revision}")])
        return pb.RememberRequest(entries=[new_entry("fact", "loser")])

    with pytest.raises(RevisionConflict):
        await client.update(created.memory.artifact_id, always_loses, attempts=3)
    assert (await client.head(created.memory.artifact_id)).revision == 4  # three winners


async def test_follow_delivers_history_then_live_commits(client: AsyncClient) -> None:
    created = await client.remember(None, [new_entry("fact", "r1")])
    second = await client.remember(created.memory, [new_entry("fact", "r2")])
    follower = client.follow(created.memory.artifact_id, since=0)
    assert (await anext(follower)).memory_ref.revision == 1
    assert (await anext(follower)).memory_ref.revision == 2
    await client.remember(second.memory, [new_entry("fact", "r3")])
    third = await asyncio.wait_for(anext(follower), 10)
    assert third.memory_ref.revision == 3 and third.changes[0].op == types.CHANGE_OP_ADD
    await follower.aclose()  # type: ignore[attr-defined]


async def test_follow_raises_other_errors_at_once(client: AsyncClient) -> None:
    with pytest.raises(NotFound):
        await anext(client.follow("mem_art_" + "1" * 32))


async def test_reads_retry_while_the_server_comes_back(tmp_path: Path) -> None:
    with reserved_port() as port:  # refused until the server takes it over
        await _retry_until_the_server_comes(tmp_path, port)


async def _retry_until_the_server_comes(tmp_path: Path, port: int) -> None:
    endpoint = f"127.0.0.1:{port}"
    async with AsyncClient(endpoint) as client:
        with pytest.raises(Unavailable):  # nobody is listening: tried for the window, in vain
            await client.remember(None, [new_entry("fact", "lost")], timeout=2)
    # A connect window long enough for a server process to start inside it.
    async with AsyncClient(config=ClientConfig(endpoint=endpoint, connect_timeout=60)) as client:

        def start_later() -> None:
            with serve_process(tmp_path / "m.sqlite3", "--listen", endpoint):
                started.set()
                stop.wait(30)

        started, stop = threading.Event(), threading.Event()
        thread = threading.Thread(target=start_later)
        thread.start()
        try:
            caps = await client.capabilities(timeout=60)  # retried until the server is up
            assert caps.fts and started.is_set()
        finally:
            stop.set()
            thread.join()


async def test_blocking_client(server: RunningServer) -> None:
    """Run in a thread: the in-process server needs this test's event loop to keep going."""

    def scenario() -> list[int]:
        with Client(f"127.0.0.1:{server.port}") as client:
            created = client.remember(None, [new_entry("fact", "sync one")])
            memory_id = created.memory.artifact_id
            updated = client.update(
                memory_id, lambda head: pb.RememberRequest(entries=[new_entry("fact", "two")])
            )
            assert updated is not None and updated.memory.revision == 2
            with pytest.raises(RevisionConflict):
                client.remember(created.memory, [new_entry("fact", "stale")])

            def nested(head: pb.GetMemoryResponse) -> pb.RememberRequest:
                assert client.head(memory_id) == head.memory  # the same client, inside: fine
                return pb.RememberRequest(entries=[new_entry("fact", "three")])

            assert client.update(memory_id, nested).memory.revision == 3  # type: ignore[union-attr]

            async def needs_a_loop(head: pb.GetMemoryResponse) -> None:
                await asyncio.sleep(0)

            with pytest.raises(RuntimeError, match="use AsyncClient"):
                client.update(memory_id, needs_a_loop)
            revisions = []
            for revision in client.follow(memory_id):
                revisions.append(revision.memory_ref.revision)
                if len(revisions) == 2:
                    break
            assert client.search("sync", [client.head(memory_id)]).hits[0].text == "sync one"
            return revisions

    assert await asyncio.to_thread(scenario) == [1, 2]


async def test_blocking_client_follows_across_threads(server: RunningServer) -> None:
    """One blocking Client shared by a following thread and a writing thread."""
    with Client(f"127.0.0.1:{server.port}") as client:
        created = await asyncio.to_thread(client.remember, None, [new_entry("fact", "one")])
        memory_id = created.memory.artifact_id

        def follow() -> list[int]:
            seen = []
            for revision in client.follow(memory_id):
                seen.append(revision.memory_ref.revision)
                if len(seen) == 3:
                    return seen
            return seen

        following = asyncio.create_task(asyncio.to_thread(follow))
        head = created.memory
        for text in ("two", "three"):
            head = (
                await asyncio.to_thread(client.remember, head, [new_entry("fact", text)])
            ).memory
        assert await asyncio.wait_for(following, 30) == [1, 2, 3]


async def test_every_error_is_a_powercontext_error(client: AsyncClient) -> None:
    with pytest.raises(PowerContextError) as caught:
        await client.get_source("src_" + "0" * 32)
    assert isinstance(caught.value, NotFound) and caught.value.reason == "SOURCE_NOT_FOUND"
    assert caught.value.status is not None and caught.value.status.code == 5
