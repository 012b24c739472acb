"""gRPC status -> Connect error: its code name, its HTTP status, and its JSON.

A failed gRPC call carries a google.rpc.Status (transport/errors.py): one ErrorInfo with the
stable reason, plus BadRequest (the field) or PreconditionFailure. The Connect error keeps every
detail as Connect writes them, `{"type": "google.rpc.ErrorInfo", "value": "<unpadded base64
of the message>", "debug": {...the message as JSON...}}`: a client decodes `value`, a person
with curl reads `debug`. Errors the door itself answers go through the same error table.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf import descriptor_pool, json_format
from google.protobuf.any_pb2 import Any as AnyPb
from google.protobuf.message import DecodeError
from google.protobuf.message_factory import GetMessageClass
from google.rpc import error_details_pb2, status_pb2

from ..domain.errors import MemoryServiceError
from ..transport.errors import STATUS_DETAILS_KEY, to_status
from .codec import json_bytes

# Connect's table (connectrpc.com/docs/protocol#error-codes): the google.rpc.Code mapping.
HTTP_STATUS: dict[grpc.StatusCode, int] = {
    grpc.StatusCode.CANCELLED: 499,
    grpc.StatusCode.UNKNOWN: 500,
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.FAILED_PRECONDITION: 400,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.OUT_OF_RANGE: 400,
    grpc.StatusCode.UNIMPLEMENTED: 501,
    grpc.StatusCode.INTERNAL: 500,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DATA_LOSS: 500,
    grpc.StatusCode.UNAUTHENTICATED: 401,
}
_BY_NUMBER = {code.value[0]: code for code in grpc.StatusCode}
# Registers the detail types with the default pool, so `debug` can decode them.
KNOWN_DETAILS = (error_details_pb2.ErrorInfo, error_details_pb2.BadRequest)


def code_name(code: grpc.StatusCode) -> str:
    """Connect's name of a code: gRPC's in lower case, but "canceled" with one l."""
    return "canceled" if code is grpc.StatusCode.CANCELLED else code.name.lower()


@dataclass
class ConnectError:
    code: grpc.StatusCode
    message: str
    details: Sequence[AnyPb] = ()
    http_status: int = 0  # 0: the one Connect's table gives the code
    headers: dict[str, str] = field(default_factory=dict)  # extra response headers

    @property
    def status(self) -> int:
        return self.http_status or HTTP_STATUS.get(self.code, 500)

    def document(self) -> dict[str, Any]:
        found: dict[str, Any] = {"code": code_name(self.code)}
        if self.message:
            found["message"] = self.message
        if self.details:
            found["details"] = [_detail(item) for item in self.details]
        return found

    def body(self) -> bytes:
        return json_bytes(self.document())


class ConnectFailure(Exception):
    """Raised to answer a call with `error`."""

    def __init__(self, error: ConnectError) -> None:
        super().__init__(error.message)
        self.error = error


def from_status(status: status_pb2.Status) -> ConnectError:
    code = _BY_NUMBER.get(status.code, grpc.StatusCode.UNKNOWN)
    return ConnectError(code, status.message, list(status.details))


def from_rpc_error(
    code: grpc.StatusCode | None, message: str | None, trailing: Iterable[tuple[str, Any]] | None
) -> ConnectError:
    """The error a failed gRPC call answered: its status details when it sent them (the
    server's own errors always do), else its bare code and message."""
    for key, value in trailing or ():
        if key == STATUS_DETAILS_KEY and isinstance(value, bytes):
            try:
                return from_status(status_pb2.Status.FromString(value))
            except DecodeError:
                break
    return ConnectError(code or grpc.StatusCode.UNKNOWN, message or "")


def from_domain(error: MemoryServiceError, http_status: int = 0) -> ConnectError:
    """An error the door answers itself, as the gRPC server would have (the same table)."""
    _, status = to_status(error)
    found = from_status(status)
    found.http_status = http_status
    return found


def _detail(item: AnyPb) -> dict[str, Any]:
    name = item.TypeName()
    value = base64.b64encode(item.value).decode("ascii").rstrip("=")
    found: dict[str, Any] = {"type": name, "value": value}
    debug = _debug(name, item.value)
    if debug is not None:
        found["debug"] = debug
    return found


def _debug(name: str, value: bytes) -> Any:
    """The detail as JSON, when its type is known here (a person reads it; clients must not)."""
    try:
        descriptor = descriptor_pool.Default().FindMessageTypeByName(name)
        return json_format.MessageToDict(GetMessageClass(descriptor).FromString(value))
    except (KeyError, DecodeError):
        return None


def end_stream(error: ConnectError | None, metadata: dict[str, list[str]] | None = None) -> bytes:
    """The EndStreamResponse that closes every Connect stream: `{}` after a success."""
    document: dict[str, Any] = {}
    if error is not None:
        document["error"] = error.document()
    if metadata:
        document["metadata"] = metadata
    return json_bytes(document)
