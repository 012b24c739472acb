"""Idempotent writes over a real connection: the answer of a committed write is lost on the way
back (a TCP proxy drops every connection between the commit and the response), the Python
client sends the write again with its request id, and gets the first response; the memory has
exactly one new revision."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import sqlean

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext_client import AsyncClient, new_entry
from powercontext_client.errors import AlreadyExists
from powercontext_memory.transport.server import RunningServer

from ..serving import CLIENT_COMMAND, server_env
from .conftest import running_server


class CuttingProxy:
    """A TCP proxy in front of the server that can drop every open connection at once."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = 0
        self.accepted = 0
        self.cuts = 0
        self._writers: list[asyncio.StreamWriter] = []
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        self.cut()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    def cut(self) -> None:
        """Abort both sides of every connection (a RST, as a failing network or NAT does)."""
        for writer in self._writers:
            writer.transport.abort()
        self._writers.clear()
        self.cuts += 1

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        self._writers += [writer, up_writer]
        await asyncio.gather(
            _pipe(reader, up_writer), _pipe(up_reader, writer), return_exceptions=True
        )


async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    try:
        while data := await source.read(65536):
            sink.write(data)
            await sink.drain()
    finally:
        sink.close()


class Cutter:
    """The commit hook: once armed, cuts the proxy's connections right after the next commit
    is durable, before the server has answered."""

    def __init__(self, proxy: CuttingProxy) -> None:
        self.proxy = proxy
        self.armed = False
        self.commits = 0

    def __call__(self, step: str) -> None:
        if step != "committed":
            return
        self.commits += 1
        if self.armed:
            self.armed = False
            self.proxy.cut()


@pytest.fixture
async def through_proxy(
    tmp_path: Path,
) -> AsyncIterator[tuple[RunningServer, CuttingProxy, Cutter]]:
    async with running_server(tmp_path / "memory.sqlite3") as server:
        proxy = CuttingProxy(server.port)
        await proxy.start()
        cutter = Cutter(proxy)
        server.memory_service.backend.commit_hook = cutter
        try:
            yield server, proxy, cutter
        finally:
            await proxy.close()


def _count(server: RunningServer, table: str) -> int:
    db = sqlean.connect(server.memory_service.backend.adapter.location)
    try:
        return int(db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    finally:
        db.close()


@pytest.mark.parametrize("creates", [True, False], ids=["create", "update"])
async def test_a_write_whose_answer_was_lost_commits_once(
    through_proxy: tuple[RunningServer, CuttingProxy, Cutter], creates: bool
) -> None:
    server, proxy, cutter = through_proxy
    async with AsyncClient(f"127.0.0.1:{proxy.port}") as client:
        base = None if creates else (await client.remember(None, [new_entry("fact", "base")]))
        revisions_before = _count(server, "artifact_revisions")
        cutter.armed = True
        response = await client.remember(
            base.memory if base else None, [new_entry("fact", "sent through a dropped link")]
        )
        assert proxy.cuts == 1 and proxy.accepted == 2  # the answer was lost, then re-sent
        # Exactly one new revision, and the response is the one that commit made.
        assert _count(server, "artifact_revisions") == revisions_before + 1
        assert _count(server, "artifact_heads") == 1
        assert cutter.commits == (1 if creates else 2)
        head = await client.get_memory(response.memory.artifact_id)
        assert head.memory == response.memory and response.changed
        assert head.content_hash == response.content_hash
        [own] = await client.changes(response.memory)
        assert list(own.changes) == list(response.changes)
        assert [r.entry_id for r in response.results] == [c.entry_id for c in own.changes]


async def test_a_repeat_gets_the_first_answer_after_the_head_moved(
    through_proxy: tuple[RunningServer, CuttingProxy, Cutter],
) -> None:
    server, proxy, _ = through_proxy
    async with AsyncClient(f"127.0.0.1:{proxy.port}") as client:
        created = await client.remember(None, [new_entry("fact", "base")], request_id="job-7:c")
        request = pb.RememberRequest(
            memory=created.memory, entries=[new_entry("fact", "once")], request_id="job-7:r"
        )
        first = await client.write(request)
        await client.remember(first.memory, [new_entry("fact", "someone else's")])
        assert await client.write(request) == first  # not ABORTED on its old base
        assert (
            await client.remember(None, [new_entry("fact", "base")], request_id="job-7:c")
            == created
        )
        assert _count(server, "artifact_revisions") == 3
        with pytest.raises(AlreadyExists) as reused:
            await client.remember(None, [new_entry("fact", "another")], request_id="job-7:c")
    assert reused.value.reason == "REQUEST_ID_REUSED"
    assert reused.value.metadata == {"field": "request_id", "requestId": "job-7:c"}


async def test_identical_calls_racing_commit_once(
    through_proxy: tuple[RunningServer, CuttingProxy, Cutter],
) -> None:
    server, proxy, _ = through_proxy
    async with AsyncClient(f"127.0.0.1:{proxy.port}") as client:
        request = pb.RememberRequest(entries=[new_entry("fact", "raced")], request_id="race-1")
        responses = await asyncio.gather(*(client.write(request) for _ in range(8)))
    assert all(r == responses[0] for r in responses) and responses[0].changed
    assert _count(server, "artifact_revisions") == 1


async def test_the_cli_request_id_makes_a_command_safe_to_run_again(
    through_proxy: tuple[RunningServer, CuttingProxy, Cutter], tmp_path: Path
) -> None:
    server, _, _ = through_proxy
    env = server_env({"POWERCONTEXT_ENDPOINT": f"127.0.0.1:{server.port}"})

    async def run(*args: str) -> subprocess.CompletedProcess[str]:
        return await asyncio.to_thread(
            subprocess.run,
            [CLIENT_COMMAND, "-o", "json", *args],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=60,
        )

    first, again = [await run("create", "a fact", "--request-id", "nightly-1") for _ in range(2)]
    assert first.returncode == again.returncode == 0, first.stderr + again.stderr
    assert first.stdout == again.stdout and _count(server, "artifact_revisions") == 1
    refused = await run("create", "other fact", "--request-id", "nightly-1")
    assert refused.returncode == 9, refused.stderr
    assert refused.stderr.startswith("error: REQUEST_ID_REUSED (ALREADY_EXISTS)")
