"""Python client for PowerContext Memory (powercontext.memory.v1 over gRPC).

    from powercontext_client import Client, new_entry

    with Client("127.0.0.1:50051") as client:
        created = client.remember(None, [new_entry("fact", "Builds use uv.")])
        hits = client.search("uv", [created.memory]).hits

AsyncClient is the asyncio twin. Requests and responses are the generated messages of
`powercontext.memory.v1` (types_pb2, memory_service_pb2); `requests` has helpers that build
them. Failures raise PowerContextError subclasses (errors.py draws the tree). FakeTransport
(testing.py) runs either client without a server, for tests of code that uses it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._version import __version__
    from .aio import AsyncClient
    from .config import ClientConfig, TlsConfig
    from .core import Change, WriteRequest, WriteResponse, new_request_id
    from .errors import (
        Aborted,
        AlreadyExists,
        Cancelled,
        CapabilityNotSupported,
        CitationMismatch,
        DataLoss,
        DeadlineExceeded,
        FailedPrecondition,
        InternalError,
        InvalidArgument,
        NotFound,
        PermissionDenied,
        PowerContextError,
        ResourceExhausted,
        RevisionConflict,
        Unauthenticated,
        Unavailable,
    )
    from .reconnects import FollowEvent
    from .requests import as_ref, citation, entry_ref, new_entry, ref, revise, source_ref
    from .retry import Backoff
    from .sync import Client
    from .testing import FakeCall, FakeTransport, connect_error, rpc_error

# Exports load on first use (PEP 562): an agent hook starts a new process per event, and
# importing every client module up front costs it tens of milliseconds it does not need.
_EXPORTS: dict[str, str] = {
    "Aborted": "errors",
    "AlreadyExists": "errors",
    "AsyncClient": "aio",
    "Backoff": "retry",
    "Cancelled": "errors",
    "CapabilityNotSupported": "errors",
    "Change": "core",
    "CitationMismatch": "errors",
    "Client": "sync",
    "ClientConfig": "config",
    "DataLoss": "errors",
    "DeadlineExceeded": "errors",
    "FailedPrecondition": "errors",
    "FakeCall": "testing",
    "FakeTransport": "testing",
    "FollowEvent": "reconnects",
    "InternalError": "errors",
    "InvalidArgument": "errors",
    "NotFound": "errors",
    "PermissionDenied": "errors",
    "PowerContextError": "errors",
    "ResourceExhausted": "errors",
    "RevisionConflict": "errors",
    "TlsConfig": "config",
    "Unauthenticated": "errors",
    "Unavailable": "errors",
    "WriteRequest": "core",
    "WriteResponse": "core",
    "__version__": "_version",
    "as_ref": "requests",
    "citation": "requests",
    "connect_error": "testing",
    "entry_ref": "requests",
    "new_entry": "requests",
    "new_request_id": "core",
    "ref": "requests",
    "revise": "requests",
    "rpc_error": "testing",
    "source_ref": "requests",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "Aborted",
    "AsyncClient",
    "Backoff",
    "Cancelled",
    "CapabilityNotSupported",
    "Change",
    "CitationMismatch",
    "Client",
    "ClientConfig",
    "DataLoss",
    "DeadlineExceeded",
    "FailedPrecondition",
    "FakeCall",
    "FakeTransport",
    "FollowEvent",
    "InternalError",
    "InvalidArgument",
    "NotFound",
    "PermissionDenied",
    "PowerContextError",
    "RevisionConflict",
    "TlsConfig",
    "Unauthenticated",
    "ResourceExhausted",
    "AlreadyExists",
    "Unavailable",
    "WriteRequest",
    "WriteResponse",
    "__version__",
    "as_ref",
    "citation",
    "connect_error",
    "entry_ref",
    "new_entry",
    "new_request_id",
    "ref",
    "revise",
    "rpc_error",
    "source_ref",
]
