"""The runtime's calls to the server: one attempt each, inside one overall deadline.

Hooks must answer within 2 s whatever the server does (down, slow, refusing), so the runtime
does not use the client's retry loops (a write re-sent 4 times with its whole timeout each
would blow the budget). Every call here gets the time left on a Deadline, does not wait for a
connection (`wait_for_ready=False`: no server = UNAVAILABLE at once), and raises the client's
PowerContextError family. The only repeat is a Remember that lost a race for the head
(ABORTED): it is re-built on the new head while time is left — the candidate pipeline must
see the head it writes on.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, Final

import grpc

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types

from ..config import ClientConfig
from ..core import new_request_id
from ..errors import DeadlineExceeded, RevisionConflict, from_rpc_error
from ..requests import ref
from ..sync import Client
from .sources import SourceInput

MIN_CALL_SECONDS: Final = 0.02
EXTRACT_ATTEMPTS: Final = 3


class Deadline:
    def __init__(self, seconds: float) -> None:
        self.at = time.monotonic() + seconds

    def remaining(self) -> float:
        left = self.at - time.monotonic()
        if left < MIN_CALL_SECONDS:
            raise DeadlineExceeded(
                grpc.StatusCode.DEADLINE_EXCEEDED, "the runtime's budget is spent"
            )
        return left


class Calls:
    """A blocking client used under a Deadline (close it, or use it as a context manager)."""

    def __init__(
        self, config: ClientConfig, deadline: Deadline, recorded_endpoint: str = ""
    ) -> None:
        self.config = config
        self.deadline = deadline
        # What the manifest records for a memory created through these calls (endpoints.py).
        self.recorded_endpoint = recorded_endpoint or config.endpoint
        self.client = Client(config=config)
        self._metadata = config.call_metadata()

    def __enter__(self) -> Calls:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.client.close()

    def _call(self, method: Any, request: Any) -> Any:
        try:
            return method(
                request,
                timeout=self.deadline.remaining(),
                metadata=self._metadata,
                wait_for_ready=False,
            )
        except grpc.RpcError as rpc_error:
            raise from_rpc_error(rpc_error) from rpc_error

    def put_source(self, source: SourceInput, memory_id: str | None = None) -> types.SourceRef:
        """Store the source, recorded for `memory_id` when the repository has a memory (a
        token limited to memories stores sources only for one of them)."""
        request = pb.PutSourceRequest(
            kind=source.kind,
            uri=source.uri,
            media_type=source.media_type,
            content=source.content,
            memory_id=memory_id or "",
        )
        stored = self._call(self.client.stub.PutSource, request).source
        return types.SourceRef(source_id=stored.source_id, content_hash=stored.content_hash)

    def head(self, memory_id: str) -> types.ArtifactRef:
        response = self._call(
            self.client.stub.GetMemory, pb.GetMemoryRequest(memory=ref(memory_id))
        )
        return response.memory

    def extract(
        self, memory_id: str | None, sources: Sequence[types.SourceRef], *, request_id: str = ""
    ) -> pb.RememberResponse:
        """Remember in EXTRACT mode over `sources`: on the head of `memory_id`, or creating a
        memory (None; the server creates one only when there is something to save)."""
        request_id = request_id or new_request_id()
        for attempt in range(1, EXTRACT_ATTEMPTS + 1):
            request = pb.RememberRequest(
                sources=sources, mode=pb.REMEMBER_MODE_EXTRACT, request_id=request_id
            )
            if memory_id is not None:
                request.memory.CopyFrom(self.head(memory_id))
            try:
                return self._call(self.client.stub.Remember, request)
            except RevisionConflict:
                if attempt == EXTRACT_ATTEMPTS:
                    raise
        raise AssertionError("unreachable")

    def forget(
        self, memory_id: str, entries: Sequence[types.EntryRef], *, reason: str
    ) -> pb.ForgetResponse:
        for attempt in range(1, EXTRACT_ATTEMPTS + 1):
            request = pb.ForgetRequest(
                memory=self.head(memory_id),
                entries=entries,
                reason=reason,
                request_id=new_request_id(),
            )
            try:
                return self._call(self.client.stub.Forget, request)
            except RevisionConflict:
                if attempt == EXTRACT_ATTEMPTS:
                    raise
        raise AssertionError("unreachable")

    def prepare_context(
        self, memory_id: str, query: str = "", budget_bytes: int = 0
    ) -> pb.PrepareContextResponse:
        request = pb.PrepareContextRequest(
            memories=[ref(memory_id)], query=query, budget_bytes=budget_bytes
        )
        return self._call(self.client.stub.PrepareContext, request)
