"""Client: the blocking twin of AsyncClient, for scripts and code without an event loop.

It runs the very same calls (core.py) over a blocking grpc channel (transport.SyncTransport),
so the two clients cannot drift apart: same signatures, errors, retries, update() and follow().
No event loop or thread is involved; a Client may be shared between threads. Functions given
to update() must be plain functions here. `transport=` replaces the channel with one that never
suspends, e.g. a testing.FakeTransport whose handler answers.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Concatenate, ParamSpec, TypeVar

from powercontext.memory.v1 import memory_service_pb2 as pb

from .config import ClientConfig
from .core import FOLLOW_RECONNECT_SECONDS, ClientCore, resolve_config
from .reconnects import OnReconnect
from .retry import Backoff
from .transport import SyncTransport, Transport, run_blocking

P = ParamSpec("P")
R = TypeVar("R")


def _blocking(
    method: Callable[Concatenate[ClientCore, P], Awaitable[R]],
) -> Callable[Concatenate[Client, P], R]:
    @functools.wraps(method)
    def call(self: Client, *args: P.args, **kwargs: P.kwargs) -> R:
        return run_blocking(method(self.core, *args, **kwargs))  # type: ignore[arg-type]

    return call


def _blocking_iter(stream: AsyncIterator[R]) -> Iterator[R]:
    """An async iterator of ClientCore, driven one item at a time (closed when left)."""
    try:
        while True:
            try:
                yield run_blocking(stream.__anext__())  # type: ignore[arg-type]
            except StopAsyncIteration:
                return
    finally:
        run_blocking(stream.aclose())  # type: ignore[attr-defined]


def _blocking_items(
    method: Callable[Concatenate[ClientCore, P], AsyncIterator[R]],
) -> Callable[Concatenate[Client, P], Iterator[R]]:
    @functools.wraps(method)
    def items(self: Client, *args: P.args, **kwargs: P.kwargs) -> Iterator[R]:
        return _blocking_iter(method(self.core, *args, **kwargs))

    return items


class Client:
    """`with Client("127.0.0.1:50051") as client: client.remember(None, [new_entry(...)])`"""

    def __init__(
        self,
        endpoint: str | None = None,
        *,
        config: ClientConfig | None = None,
        backoff: Backoff | None = None,
        transport: Transport | None = None,
    ) -> None:
        config = resolve_config(endpoint, config)
        transport = SyncTransport(config) if transport is None else transport
        self.core = ClientCore(config, transport, backoff)
        self.config = config
        self.stub = self.core.stub  # the raw blocking stub

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    close = _blocking(ClientCore.close)
    put_source = _blocking(ClientCore.put_source)
    get_source = _blocking(ClientCore.get_source)
    get_source_chunk = _blocking(ClientCore.get_source_chunk)
    remember = _blocking(ClientCore.remember)
    forget = _blocking(ClientCore.forget)
    reactivate = _blocking(ClientCore.reactivate)
    organize = _blocking(ClientCore.organize)
    merge = _blocking(ClientCore.merge)
    restore = _blocking(ClientCore.restore)
    undo_merge = _blocking(ClientCore.undo_merge)
    write = _blocking(ClientCore.write)
    update = _blocking(ClientCore.update)
    get_memory = _blocking(ClientCore.get_memory)
    head = _blocking(ClientCore.head)
    get_recall_manifest = _blocking(ClientCore.get_recall_manifest)
    recall_manifest_items = _blocking_items(ClientCore.recall_manifest_items)
    list_entries = _blocking(ClientCore.list_entries)
    list_entries_items = _blocking_items(ClientCore.list_entries_items)
    list_memories = _blocking(ClientCore.list_memories)
    list_memories_items = _blocking_items(ClientCore.list_memories_items)
    set_memory_label = _blocking(ClientCore.set_memory_label)
    preview_restore = _blocking(ClientCore.preview_restore)
    changes = _blocking(ClientCore.changes)
    search = _blocking(ClientCore.search)
    expand = _blocking(ClientCore.expand)
    prepare_context = _blocking(ClientCore.prepare_context)
    capabilities = _blocking(ClientCore.capabilities)
    health = _blocking(ClientCore.health)

    def follow(
        self,
        memory_id: str,
        since: int = 0,
        *,
        on_progress: Callable[[pb.ChangesProgress], None] | None = None,
        on_reconnect: OnReconnect | None = None,
        reconnect_for: float | None = FOLLOW_RECONNECT_SECONDS,
    ) -> Iterator[pb.RevisionChanges]:
        """ClientCore.follow as a blocking iterator (break out of it to end the stream); its
        "resumed" event comes with the first message of the reopened stream."""
        stream: AsyncIterator[pb.RevisionChanges] = self.core.follow(
            memory_id,
            since,
            on_progress=on_progress,
            on_reconnect=on_reconnect,
            reconnect_for=reconnect_for,
        )
        return _blocking_iter(stream)
