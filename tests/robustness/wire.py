"""What the robustness suites do over the wire, and the offline verifier they end with."""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import AsyncIterator, Iterator

import grpc

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types

from ..serving import SERVER_COMMAND, ServerProcess, server_env

VERIFY_TIMEOUT = 120.0


def head_ref(artifact_id: str) -> types.ArtifactRef:
    return types.ArtifactRef(artifact_id=artifact_id, revision=0)


@contextlib.asynccontextmanager
async def connected(port: int) -> AsyncIterator[pb_grpc.MemoryServiceStub]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        yield pb_grpc.MemoryServiceStub(channel)


@contextlib.contextmanager
def stopped_cleanly(server: ServerProcess) -> Iterator[ServerProcess]:
    """`server` for a `with` block, then SIGTERM; a graceful stop must exit 0."""
    try:
        yield server
    except BaseException:
        server.kill()
        raise
    assert server.stop() == 0, "server did not stop cleanly"


async def history(stub: pb_grpc.MemoryServiceStub, artifact_id: str) -> list[pb.RevisionChanges]:
    """Every revision of the memory up to its head, oldest first (Changes since 0)."""
    head = (await stub.GetMemory(pb.GetMemoryRequest(memory=head_ref(artifact_id)))).memory
    stream = stub.Changes(pb.ChangesRequest(memory=head, since_revision=0))
    return [message.revision async for message in stream if message.HasField("revision")]


def verify(database: str) -> str:
    """`powercontext-memory verify --database …` must pass; its report."""
    done = subprocess.run(
        [SERVER_COMMAND, "verify", "--database", database],
        cwd="/",
        env=server_env(),
        capture_output=True,
        text=True,
        timeout=VERIFY_TIMEOUT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("OK: "), done.stdout
    return done.stdout
