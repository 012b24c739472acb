"""A real server with its HTTP door (port 0) on a temporary SQLite file, seeded over gRPC, and
Debian's Chromium driven by Playwright, watched for anything the page must never do."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from playwright import sync_api as playwright_api

from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc

from ..serving import ServerProcess
from .harness import Console, launch, new_console, start_door_server
from .seed import Story, story

__all__ = ["Console", "DoorServer", "new_console", "start_door_server"]


@dataclass
class DoorServer:
    process: ServerProcess
    http_port: int
    stub: pb_grpc.MemoryServiceStub
    database: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}/"


@pytest.fixture(scope="session")
def door(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DoorServer]:
    """The server every console test shares; MiniLM so that vector and hybrid search run."""
    database = tmp_path_factory.mktemp("console") / "memory.sqlite3"
    process, port = start_door_server(database, "--embedding", "minilm")
    channel = grpc.insecure_channel(f"127.0.0.1:{process.port}")
    try:
        yield DoorServer(process, port, pb_grpc.MemoryServiceStub(channel), database)
    finally:
        channel.close()
        assert process.stop() == 0


@pytest.fixture
def story_memory(door: DoorServer) -> Story:
    """A fresh memory with the seeded story, for a test to read and change alone."""
    return story(door.stub)


@pytest.fixture(scope="package")
def browser() -> Iterator[playwright_api.Browser]:
    with playwright_api.sync_playwright() as playwright:
        launched = launch(playwright)
        yield launched
        launched.close()


@pytest.fixture
def console(browser: playwright_api.Browser, door: DoorServer) -> Iterator[Console]:
    """A fresh browser context on the console; after the test, nothing forbidden happened."""
    context, opened = new_console(browser, door.url)
    try:
        yield opened
        opened.assert_clean()
    finally:
        context.close()
