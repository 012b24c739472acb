"""Python client for PowerContext Memory (powercontext.memory.v1 over gRPC).

    from powercontext_client import Client, new_entry

    with Client("127.0.0.1:50051") as client:
        created = client.remember(None, [new_entry("fact", "Builds use uv.")])
        hits = client.search("uv", [created.memory]).hits

AsyncClient is the asyncio twin. Requests and responses are the generated messages of
`powercontext.memory.v1` (types_pb2, memory_service_pb2); `requests` has helpers that build
them. Failures raise PowerContextError subclasses (errors.py draws the tree).
"""

from ._version import __version__
from .aio import AsyncClient
from .config import ClientConfig, TlsConfig
from .core import Change, WriteRequest, WriteResponse, new_request_id
from .errors import (
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
from .requests import as_ref, citation, entry_ref, new_entry, ref, revise, source_ref
from .retry import Backoff
from .sync import Client

__all__ = [
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
    "entry_ref",
    "new_entry",
    "new_request_id",
    "ref",
    "revise",
    "source_ref",
]
