"""PutSource and GetSource: store evidence, and read it back whole however large it is.

A GetSource answer carries at most a chunk of the content (3 MiB, what a default gRPC client
receives with room to spare), so get_source() reads a larger source chunk after chunk and
checks the reassembled bytes before handing them over.
"""

from __future__ import annotations

from collections.abc import Mapping

import grpc

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types

from .call_core import _UNSET, CallCore
from .errors import DataLoss
from .source_hash import source_content_hash


class SourceCalls(CallCore):
    async def put_source(
        self,
        content: bytes | str,
        *,
        kind: str,
        uri: str = "",
        media_type: str = "",
        metadata: Mapping[str, str] | None = None,
        memory: str | None = None,
        timeout: float | None = _UNSET,
    ) -> pb.PutSourceResponse:
        """Persist immutable evidence; the same record always gets the same source_id.
        `memory` (a memory id) records it for that memory: a token limited to memories must
        name one of them, and then reads the source back through it. The answer's
        source.content is at most the first chunk (3 MiB; see content_truncated)."""
        data = content.encode() if isinstance(content, str) else content
        request = pb.PutSourceRequest(
            kind=kind,
            uri=uri,
            media_type=media_type,
            content=data,
            metadata=metadata or {},
            memory_id=memory or "",
        )
        # Safe to re-send: storing the same record twice returns the same Source.
        return await self._call(self.stub.PutSource, request, timeout=timeout, read=True)

    async def get_source_chunk(
        self,
        source_id: str,
        *,
        content_offset: int = 0,
        content_limit: int = 0,
        timeout: float | None = _UNSET,
    ) -> pb.GetSourceResponse:
        """One GetSource answer: at most `content_limit` bytes of content (0: the largest
        chunk, 3 MiB) from `content_offset` on, with `content_size` and `content_truncated`;
        every other field of its source describes the whole source."""
        request = pb.GetSourceRequest(
            source_id=source_id, content_offset=content_offset, content_limit=content_limit
        )
        return await self._call(self.stub.GetSource, request, timeout=timeout, read=True)

    async def get_source(self, source_id: str, *, timeout: float | None = _UNSET) -> types.Source:
        """The whole source. A source larger than one answer is read chunk after chunk (each
        chunk a read of its own, with `timeout` and retries); the reassembled content must
        have content_size bytes, every chunk must name the same content_hash, and the whole
        record must hash to it, or DataLoss is raised."""
        first = await self.get_source_chunk(source_id, timeout=timeout)
        if not first.content_truncated:
            return first.source
        source = first.source
        parts = [source.content]
        received = len(source.content)
        while True:
            chunk = await self.get_source_chunk(source_id, content_offset=received, timeout=timeout)
            _check_chunk(first, chunk, received)
            parts.append(chunk.source.content)
            received += len(chunk.source.content)
            if not chunk.content_truncated:
                break
        whole = types.Source()
        whole.CopyFrom(source)
        whole.content = b"".join(parts)
        _check_whole(whole, first.content_size)
        return whole


def _data_loss(source_id: str, why: str) -> DataLoss:
    return DataLoss(grpc.StatusCode.DATA_LOSS, f"source {source_id} read in chunks: {why}")


def _check_chunk(first: pb.GetSourceResponse, chunk: pb.GetSourceResponse, offset: int) -> None:
    """A chunk of the same source as the first, that moves the read forward."""
    source_id = first.source.source_id
    if chunk.source.content_hash != first.source.content_hash:
        raise _data_loss(source_id, f"the chunk at {offset} names another content_hash")
    if chunk.content_size != first.content_size:
        raise _data_loss(source_id, f"the chunk at {offset} names another content_size")
    if chunk.content_truncated and not chunk.source.content:
        raise _data_loss(source_id, f"the chunk at {offset} is empty but not the last")
    if offset + len(chunk.source.content) > first.content_size:
        raise _data_loss(source_id, f"the chunk at {offset} runs past content_size")


def _check_whole(whole: types.Source, content_size: int) -> None:
    if len(whole.content) != content_size:
        raise _data_loss(
            whole.source_id, f"{len(whole.content)} bytes reassembled, content_size {content_size}"
        )
    if source_content_hash(whole) != whole.content_hash:
        raise _data_loss(whole.source_id, "the reassembled record does not match content_hash")
