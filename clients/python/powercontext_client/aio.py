"""AsyncClient: the client's calls (core.py) over one grpc.aio channel.

async with AsyncClient("127.0.0.1:50051") as client:   # or AsyncClient() from the env
    head = await client.head(memory_id)

`transport=` replaces the channel, e.g. with a testing.FakeTransport whose handler answers.
"""

from __future__ import annotations

from .config import ClientConfig
from .core import ClientCore, resolve_config
from .retry import Backoff
from .transport import AioTransport, Transport


class AsyncClient(ClientCore):
    def __init__(
        self,
        endpoint: str | None = None,
        *,
        config: ClientConfig | None = None,
        backoff: Backoff | None = None,
        transport: Transport | None = None,
    ) -> None:
        config = resolve_config(endpoint, config)
        super().__init__(config, AioTransport(config) if transport is None else transport, backoff)

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()
