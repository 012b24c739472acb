"""A plain HTTP client of the HTTP door for the tests, and a real server that serves one.

Everything goes over real HTTP (aiohttp's client) to a real server (gRPC port, private Unix
socket, door); nothing here knows the door's code beyond what a Connect client knows.
"""

from __future__ import annotations

import base64
import contextlib
import json
import struct
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
from google.rpc import error_details_pb2
from multidict import CIMultiDictProxy

from powercontext_memory.http_door.address import DoorAddress
from powercontext_memory.transport.server import RunningServer

from .conftest import running_server

SERVICE = "/powercontext.memory.v1.MemoryService/"
STREAM_TYPE = "application/connect+json"
END_STREAM = 0x02


@dataclass
class Answer:
    status: int
    headers: CIMultiDictProxy[str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    def detail(self, type_name: str) -> dict[str, Any]:
        """The `debug` JSON of the error detail of that type (google.rpc.ErrorInfo, ...)."""
        return error_detail(self.json(), type_name)

    @property
    def reason(self) -> str:
        return str(self.detail("google.rpc.ErrorInfo")["reason"])


def error_detail(error: Mapping[str, Any], type_name: str) -> dict[str, Any]:
    found = [d for d in error.get("details", ()) if d["type"] == type_name]
    assert found, f"no {type_name} in {error}"
    return dict(found[0]["debug"])


def decoded_error_info(error: Mapping[str, Any]) -> error_details_pb2.ErrorInfo:
    """The ErrorInfo detail from its `value` (unpadded base64), as a Connect client reads it."""
    value = next(d["value"] for d in error["details"] if d["type"] == "google.rpc.ErrorInfo")
    assert "=" not in value
    return error_details_pb2.ErrorInfo.FromString(base64.b64decode(value + "=" * (-len(value) % 4)))


def frame(message: Mapping[str, Any] | bytes, flags: int = 0) -> bytes:
    payload = message if isinstance(message, bytes) else json.dumps(message).encode()
    return struct.pack(">BI", flags, len(payload)) + payload


async def read_frame(response: aiohttp.ClientResponse) -> tuple[int, Any]:
    """The next (flags, JSON) of a Connect stream being received."""
    flags, length = struct.unpack(">BI", await response.content.readexactly(5))
    return flags, json.loads(await response.content.readexactly(length))


class Door:
    def __init__(self, session: aiohttp.ClientSession, url: str) -> None:
        self.session = session
        self.url = url.rstrip("/")

    async def post(
        self,
        path: str,
        body: bytes | str,
        content_type: str | None = "application/json",
        headers: Mapping[str, str] | None = None,
    ) -> Answer:
        sent = dict(headers or {})
        if content_type is not None:
            sent["Content-Type"] = content_type
        data = body.encode() if isinstance(body, str) else body
        async with self.session.post(self.url + path, data=data, headers=sent) as response:
            return Answer(response.status, response.headers, await response.read())

    async def get(self, path: str, headers: Mapping[str, str] | None = None) -> Answer:
        async with self.session.get(self.url + path, headers=headers) as response:
            return Answer(response.status, response.headers, await response.read())

    async def call(
        self,
        method: str,
        request: Mapping[str, Any],
        *,
        token: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Answer:
        """A unary call with a JSON body."""
        sent = dict(headers or {})
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        return await self.post(SERVICE + method, json.dumps(request), headers=sent)

    async def ok(self, method: str, request: Mapping[str, Any], token: str | None = None) -> Any:
        answer = await self.call(method, request, token=token)
        assert answer.status == 200, (method, answer.status, answer.body)
        return answer.json()

    @contextlib.asynccontextmanager
    async def stream(
        self, method: str, request: Mapping[str, Any], headers: Mapping[str, str] | None = None
    ) -> AsyncIterator[aiohttp.ClientResponse]:
        """A server-streaming call, open: read it with `read_frame`."""
        sent = {"Content-Type": STREAM_TYPE, **(headers or {})}
        async with self.session.post(
            self.url + SERVICE + method, data=frame(request), headers=sent
        ) as response:
            yield response

    async def whole_stream(
        self, method: str, request: Mapping[str, Any]
    ) -> tuple[list[Any], dict[str, Any]]:
        """(every message, the end-of-stream document) of a stream that ends by itself."""
        messages: list[Any] = []
        async with self.stream(method, request) as response:
            assert response.status == 200
            assert response.headers["Content-Type"] == STREAM_TYPE
            while True:
                flags, document = await read_frame(response)
                if flags & END_STREAM:
                    return messages, document
                messages.append(document)


@contextlib.asynccontextmanager
async def door_server(tmp_path: Path, **options: Any) -> AsyncIterator[tuple[RunningServer, Door]]:
    """A real server with its door on 127.0.0.1:0, and a client of the door."""
    async with running_server(
        tmp_path / "memory.sqlite3", http=DoorAddress("127.0.0.1:0"), **options
    ) as running:
        assert running.http_url is not None
        async with aiohttp.ClientSession() as session:
            yield running, Door(session, running.http_url)
