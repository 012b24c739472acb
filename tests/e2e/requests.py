"""Request builders shared by the end-to-end tests."""

from __future__ import annotations

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types


def remember(memory: types.ArtifactRef | None, text: str) -> pb.RememberRequest:
    """Add one fact to `memory` (a new memory when None)."""
    request = pb.RememberRequest(entries=[types.EntryInput(kind="fact", text=text)])
    if memory is not None:
        request.memory.CopyFrom(memory)
    return request
