"""A real server on 127.0.0.1:0 over a fresh SQLite file, and a connected aio stub."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext_memory.serving.config import ServeConfig
from powercontext_memory.serving.model import open_configured
from powercontext_memory.transport.server import RunningServer, start_server

PROGRESS_INTERVAL = 0.2


@contextlib.asynccontextmanager
async def running_server(database: Path, **start_options: Any) -> AsyncIterator[RunningServer]:
    """A server on 127.0.0.1:0 over `database`, started with `start_options`, always stopped."""
    config = ServeConfig(
        database=str(database),
        listen="127.0.0.1:0",
        embedding="none",
        progress_interval=PROGRESS_INTERVAL,
    )
    service = await open_configured(config, progress_interval=config.progress_interval)
    running = await start_server(service, config.listen, **start_options)
    try:
        yield running
    finally:
        await running.stop(grace=1.0)  # idempotent: some tests stop it themselves


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[RunningServer]:
    async with running_server(tmp_path / "memory.sqlite3") as running:
        yield running


@pytest.fixture
async def channel(server: RunningServer) -> AsyncIterator[grpc.aio.Channel]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as ch:
        yield ch


@pytest.fixture
def stub(channel: grpc.aio.Channel) -> pb_grpc.MemoryServiceStub:
    return pb_grpc.MemoryServiceStub(channel)
