"""Following a memory through server restarts: every revision exactly once, in order.

The followed server is stopped twice, once gracefully (SIGTERM: its streams end UNAVAILABLE,
SHUTTING_DOWN, with the revision to resume from) and once with kill -9 (the connection just
drops). While it is down, a second server process on the same database commits; while it is
up, both commit. Two followers watch: the Python client's `follow()` (what users run) and a
bare stub that reconnects with `since_revision` = the last revision it received and records
every message as it arrives, so a duplicate or a gap sent by the server cannot be masked by the
client's own bookkeeping.
"""

from __future__ import annotations

import asyncio
import time

import grpc

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext_client import AsyncClient
from powercontext_client.errors import error_info

from ..e2e.requests import remember
from ..serving import ServerProcess
from .wire import connected, head_ref, stopped_cleanly

PROGRESS = ("--progress-interval", "0.2")
RESTARTS = ("graceful", "kill")
# Reconnect quickly once the server is back (the default backoff grows to seconds).
CHANNEL_OPTIONS = (
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 500),
)
FOLLOW_TIMEOUT = 60.0
RESTART_ATTEMPTS = 5
RESTART_PAUSE = 0.5  # seconds between attempts to restart on the same port


async def commit(stub: pb_grpc.MemoryServiceStub, artifact_id: str, text: str) -> int:
    head = (await stub.GetMemory(pb.GetMemoryRequest(memory=head_ref(artifact_id)))).memory
    return int((await stub.Remember(remember(head, text))).memory.revision)


async def follow_raw(endpoint: str, artifact_id: str, seen: list[int]) -> None:
    """Record every revision the server sends, reconnecting from the last one received, until
    cancelled."""
    async with grpc.aio.insecure_channel(endpoint, options=CHANNEL_OPTIONS) as channel:
        stub = pb_grpc.MemoryServiceStub(channel)
        while True:
            since = seen[-1] if seen else 0
            request = pb.ChangesRequest(
                memory=head_ref(artifact_id), since_revision=since, follow=True
            )
            try:
                async for message in stub.Changes(request, wait_for_ready=True):
                    if message.HasField("revision"):
                        seen.append(message.revision.memory_ref.revision)
            except grpc.aio.AioRpcError as error:
                assert error.code() == grpc.StatusCode.UNAVAILABLE, error
                reason, metadata = error_info(error)
                if reason == "SHUTTING_DOWN":  # the graceful stop says where to resume
                    assert metadata["resumeSinceRevision"] == str(seen[-1] if seen else 0)


async def follow_client(endpoint: str, artifact_id: str, seen: list[int]) -> None:
    """Record what the Python client's follow() yields, until cancelled."""
    async with AsyncClient(endpoint) as client:
        async for revision in client.follow(artifact_id):
            seen.append(revision.memory_ref.revision)


async def caught_up(follower: asyncio.Task[None], seen: list[int], revision: int) -> None:
    """Wait until `seen` reaches `revision`. A follower never ends by itself: one that did
    raises its failure here (a wrong error code, a wrong resume point) instead of a timeout.

    The followers do not decide when to stop: one that received the last revision before the
    test knew which revision was last would wait for a next one that never comes."""
    while not seen or seen[-1] < revision:
        if follower.done():
            follower.result()
            raise AssertionError(f"the follower ended at {seen[-1:]}, before revision {revision}")
        await asyncio.sleep(0.05)


def restarted(database: str, endpoint: str) -> ServerProcess:
    """The followed server again on its port. Another process may hold that port for a moment
    (a probe for a free port), so a start that fails is tried again before giving up."""
    for attempt in range(RESTART_ATTEMPTS):
        try:
            return ServerProcess(database, "--listen", endpoint, *PROGRESS)
        except AssertionError:  # ServerProcess: no startup line, e.g. the bind was refused
            if attempt == RESTART_ATTEMPTS - 1:
                raise
            time.sleep(RESTART_PAUSE)
    raise AssertionError("unreachable")


async def test_follow_sees_every_revision_once_across_restarts(database: str) -> None:
    raw: list[int] = []
    via_client: list[int] = []
    followers: dict[asyncio.Task[None], list[int]] = {}
    with stopped_cleanly(ServerProcess(database, *PROGRESS)) as other:
        followed = ServerProcess(database, *PROGRESS)  # port 0: the port it reports is its own
        endpoint = f"127.0.0.1:{followed.port}"
        try:
            async with connected(other.port) as other_stub:
                async with connected(followed.port) as stub:
                    created = await stub.Remember(remember(None, "r1"))
                    memory_id = created.memory.artifact_id
                    revision = await commit(stub, memory_id, "r2")
                followers = {
                    asyncio.create_task(follow_raw(endpoint, memory_id, raw)): raw,
                    asyncio.create_task(follow_client(endpoint, memory_id, via_client)): via_client,
                }
                for how in RESTARTS:
                    for task, seen in followers.items():  # both live on the followed server
                        await asyncio.wait_for(caught_up(task, seen, revision), FOLLOW_TIMEOUT)
                    if how == "graceful":
                        assert followed.stop() == 0
                    else:
                        followed.kill()
                    for n in range(2):  # committed while the followed server is down
                        revision = await commit(other_stub, memory_id, f"{how}: down {n}")
                    followed = restarted(database, endpoint)
                    async with connected(followed.port) as stub:  # and while it is up
                        revision = await commit(stub, memory_id, f"{how}: up")
                        revision = await commit(other_stub, memory_id, f"{how}: up, elsewhere")
                for task, seen in followers.items():
                    await asyncio.wait_for(caught_up(task, seen, revision), FOLLOW_TIMEOUT)
        finally:
            for task in followers:
                task.cancel()
            followed.kill()
    assert revision == 2 + len(RESTARTS) * 4
    assert raw == list(range(1, revision + 1))
    assert via_client == list(range(1, revision + 1))
