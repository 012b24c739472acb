"""`serve` on OceanBase (a real seekdb server): gRPC end to end, and two servers racing.

Two server processes on one database are two writers that share nothing but the database, so
compare-and-swap on artifact_heads is all that keeps the history linear.
"""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import AsyncIterator

import grpc
import pytest

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_client.errors import error_info
from powercontext_memory.backends.oceanbase.wire import OceanBaseDsn

from ..oceanbase_server import fresh_database
from ..serving import SERVER_COMMAND, serve_process, server_env
from .requests import race, remember, remember_at_head


@pytest.fixture
async def database(oceanbase_server: str) -> AsyncIterator[str]:
    async with fresh_database(oceanbase_server) as dsn:
        yield dsn


async def test_serve_on_an_oceanbase_dsn(database: str) -> None:
    with serve_process(database) as served:
        shown = OceanBaseDsn.parse(database).display  # the password is never printed
        assert f"(oceanbase: {shown}; vectors: off" in served.line
        async with grpc.aio.insecure_channel(f"127.0.0.1:{served.port}") as channel:
            stub = pb_grpc.MemoryServiceStub(channel)
            caps = (await stub.GetCapabilities(pb.GetCapabilitiesRequest())).capabilities
            assert caps.backend == "oceanbase" and caps.fts and not caps.vector
            assert caps.engine_version == "4.3.5.3" and caps.fts_unavailable_reason == ""
            memory = (await stub.Remember(remember(None, "Go UI tests run with make ui"))).memory
            # Two-letter words survive the SPACE parser (it drops tokens under 3 characters).
            found = await stub.Search(
                pb.SearchRequest(query="go ui", memories=[memory], mode=types.SEARCH_MODE_FTS)
            )
            assert [h.text for h in found.hits] == ["Go UI tests run with make ui"]
    # The offline commands take the same DSN.
    verify = subprocess.run(
        [SERVER_COMMAND, "verify", "--database", database],
        cwd="/",
        env=server_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert verify.stdout.startswith("OK: 1 memories, 1 revisions")


async def test_two_servers_racing_commit_each_revision_once(database: str) -> None:
    with serve_process(database) as one, serve_process(database) as two:
        async with (
            grpc.aio.insecure_channel(f"127.0.0.1:{one.port}") as ch1,
            grpc.aio.insecure_channel(f"127.0.0.1:{two.port}") as ch2,
        ):
            stubs = [pb_grpc.MemoryServiceStub(ch1), pb_grpc.MemoryServiceStub(ch2)]
            base = (await stubs[0].Remember(remember(None, "base entry"))).memory

            # Both servers commit on the same base: exactly one wins, the other is ABORTED.
            wins, losses = await race(
                stubs[0].Remember(remember(base, "from server one")),
                stubs[1].Remember(remember(base, "from server two")),
            )
            assert len(wins) == 1 and len(losses) == 1
            assert wins[0].memory.revision == 2
            assert losses[0].code() == grpc.StatusCode.ABORTED
            assert error_info(losses[0])[0] == "REVISION_CONFLICT"

            # Six writers spread over both servers, re-reading the head after each ABORTED.
            head_ref = types.ArtifactRef(artifact_id=base.artifact_id, revision=0)
            aborted = 0

            async def writer(n: int) -> None:
                nonlocal aborted
                for i in range(4):
                    text = f"writer {n} note {i}"
                    aborted += await remember_at_head(stubs[n % 2], base.artifact_id, text)

            await asyncio.gather(*(writer(n) for n in range(6)))
            head = await stubs[1].GetMemory(pb.GetMemoryRequest(memory=head_ref))
            assert head.memory.revision == 2 + 6 * 4 and head.active_entries == 2 + 6 * 4
            stream = stubs[0].Changes(pb.ChangesRequest(memory=head.memory, since_revision=0))
            revisions = [m.revision.memory_ref.revision async for m in stream]
            assert revisions == list(range(1, 27))
            assert aborted > 0  # the servers really did race


async def test_follow_on_one_server_sees_commits_made_through_another(database: str) -> None:
    with serve_process(database) as one, serve_process(database) as two:
        async with (
            grpc.aio.insecure_channel(f"127.0.0.1:{one.port}") as ch1,
            grpc.aio.insecure_channel(f"127.0.0.1:{two.port}") as ch2,
        ):
            reader, writer = pb_grpc.MemoryServiceStub(ch1), pb_grpc.MemoryServiceStub(ch2)
            base = (await writer.Remember(remember(None, "first"))).memory
            head = types.ArtifactRef(artifact_id=base.artifact_id, revision=0)
            stream = reader.Changes(pb.ChangesRequest(memory=head, since_revision=0, follow=True))
            first = await asyncio.wait_for(stream.read(), 10)
            assert first.revision.memory_ref.revision == 1
            await writer.Remember(remember(base, "second, through the other server"))
            # Well inside the 15 s progress interval: the follower polls the shared head.
            second = await asyncio.wait_for(stream.read(), 10)
            assert second.revision.memory_ref.revision == 2
            stream.cancel()
