"""The client's exceptions, parsed from the `grpc-status-details-bin` trailer of a failed call.

The server sends a google.rpc.Status with one ErrorInfo (domain "powercontext.memory", a stable
UPPER_SNAKE reason, lowerCamel metadata) plus BadRequest / PreconditionFailure where they help.
Every failed call raises exactly one of these classes (never a bare grpc.RpcError); catch the
family you can act on, or the base class:

    PowerContextError                  code, reason, message, metadata, status (the details)
    ├── InvalidArgument                bad input; .field_violations [(field, description)]
    ├── NotFound                       unknown memory, revision, source or artifact
    │   └── CitationMismatch           a citation whose version is not the one in its revision
    ├── Aborted                        ABORTED: what the request read has moved on — a Merge
    │   │                              input revised since (ENTRY_VERSION_STALE), a stale
    │   │                              preview token (PREVIEW_STALE), a memory label set since
    │   │                              (LABEL_CONFLICT): read again, decide again
    │   └── RevisionConflict           the base is not the head; .head_revision
    ├── FailedPrecondition             valid input, wrong state (stale entry, non-head search)
    │   └── CapabilityNotSupported     e.g. vector search without a model; .capability
    ├── DataLoss                       stored bytes do not match their hash
    ├── Unavailable                    retry later; .resume_since_revision on a shut-down stream
    ├── Cancelled                      the call was cancelled on the server's side (a server
    │                                  draining for shutdown cancels calls that arrive)
    ├── DeadlineExceeded               the deadline passed (a write was re-sent first; one
    │                                  sent with your own request_id may be resent later)
    ├── PermissionDenied               the token may not do this (scope, memory allow-list)
    ├── Unauthenticated                missing, unknown or expired token
    ├── ResourceExhausted              a server limit (open streams, ...); retry later
    ├── AlreadyExists                  REQUEST_ID_REUSED: a write's request id was used
    │                                  for a different request
    └── InternalError                  a server bug, or a status this client does not know

A call that reaches no server at all (connection refused, host name not found, TLS handshake
refused) is an Unavailable whose message names the endpoint and the cause grpc reports, e.g.
`cannot reach 127.0.0.1:50051: connection refused` (connect_failure, unreachable).

The gRPC status code picks the family; for NOT_FOUND, ABORTED and FAILED_PRECONDITION the
ErrorInfo reason picks the subclass (an ABORTED without a known reason is a RevisionConflict,
which update() re-applies on the new head; a plain Aborted is never re-applied). Parsing is
lazy and never raises: a trailer that is missing or not decodable leaves reason "" and empty
metadata.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import grpc
from google.protobuf.message import DecodeError
from google.rpc import error_details_pb2, status_pb2

ERROR_DOMAIN = "powercontext.memory"
STATUS_DETAILS_KEY = "grpc-status-details-bin"


class PowerContextError(Exception):
    """A failed call: its gRPC status code, ErrorInfo reason and metadata, and the message."""

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        *,
        reason: str = "",
        metadata: Mapping[str, str] | None = None,
        status: status_pb2.Status | None = None,
    ) -> None:
        super().__init__(f"{code.name}: {message}" + (f" [{reason}]" if reason else ""))
        self.code = code
        self.message = message
        self.reason = reason
        self.metadata: dict[str, str] = dict(metadata or {})
        self.status = status

    def detail(self, message_type: type[Any]) -> Any | None:
        """The first status detail of `message_type` (e.g. error_details_pb2.BadRequest)."""
        return unpack_detail(self.status, message_type)

    def _int(self, key: str) -> int | None:
        try:
            return int(self.metadata[key])
        except (KeyError, ValueError):
            return None


class InvalidArgument(PowerContextError):
    @property
    def field_violations(self) -> list[tuple[str, str]]:
        bad = self.detail(error_details_pb2.BadRequest)
        if bad is None:
            field = self.metadata.get("field")
            return [(field, self.message)] if field else []
        return [(v.field, v.description) for v in bad.field_violations]


class NotFound(PowerContextError):
    pass


class CitationMismatch(NotFound):
    pass


class Aborted(PowerContextError):
    pass


class RevisionConflict(Aborted):
    @property
    def artifact_id(self) -> str:
        return self.metadata.get("artifactId", "")

    @property
    def expected_revision(self) -> int | None:
        return self._int("expectedRevision")

    @property
    def head_revision(self) -> int | None:
        """The memory's head when the write was refused: re-read it and re-apply there."""
        return self._int("headRevision")


class FailedPrecondition(PowerContextError):
    pass


class CapabilityNotSupported(FailedPrecondition):
    @property
    def capability(self) -> str:
        return self.metadata.get("capability", "")


class DataLoss(PowerContextError):
    pass


class Unavailable(PowerContextError):
    @property
    def resume_since_revision(self) -> int | None:
        """On a follow stream ended by a server shutdown: the last revision it delivered."""
        return self._int("resumeSinceRevision")


class Cancelled(PowerContextError):
    pass


class DeadlineExceeded(PowerContextError):
    pass


class PermissionDenied(PowerContextError):
    pass


class Unauthenticated(PowerContextError):
    pass


class ResourceExhausted(PowerContextError):
    pass


class AlreadyExists(PowerContextError):
    pass


class InternalError(PowerContextError):
    pass


_BY_CODE: dict[grpc.StatusCode, type[PowerContextError]] = {
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgument,
    grpc.StatusCode.OUT_OF_RANGE: InvalidArgument,
    grpc.StatusCode.NOT_FOUND: NotFound,
    grpc.StatusCode.ABORTED: RevisionConflict,
    grpc.StatusCode.FAILED_PRECONDITION: FailedPrecondition,
    grpc.StatusCode.DATA_LOSS: DataLoss,
    grpc.StatusCode.UNAVAILABLE: Unavailable,
    grpc.StatusCode.CANCELLED: Cancelled,
    grpc.StatusCode.DEADLINE_EXCEEDED: DeadlineExceeded,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDenied,
    grpc.StatusCode.UNAUTHENTICATED: Unauthenticated,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ResourceExhausted,
    grpc.StatusCode.ALREADY_EXISTS: AlreadyExists,
}
_BY_REASON: dict[str, type[PowerContextError]] = {
    "CITATION_MISMATCH": CitationMismatch,
    "CAPABILITY_NOT_SUPPORTED": CapabilityNotSupported,
    # ABORTED ones only (other writes answer ENTRY_VERSION_STALE as FAILED_PRECONDITION).
    "ENTRY_VERSION_STALE": Aborted,
    "PREVIEW_STALE": Aborted,
    "LABEL_CONFLICT": Aborted,
}
# Where a code's reason-picked classes must belong (default: the code's own class).
_FAMILIES: dict[grpc.StatusCode, type[PowerContextError]] = {grpc.StatusCode.ABORTED: Aborted}


def status_details(rpc_error: grpc.RpcError) -> status_pb2.Status | None:
    """The google.rpc.Status from the trailer of a failed call, if the server sent one."""
    trailing = getattr(rpc_error, "trailing_metadata", None)
    for key, value in (trailing() if callable(trailing) else None) or ():
        if key == STATUS_DETAILS_KEY:
            try:
                return status_pb2.Status.FromString(value)
            except DecodeError:
                return None
    return None


def unpack_detail(status: status_pb2.Status | None, message_type: type[Any]) -> Any | None:
    for detail in status.details if status is not None else ():
        if detail.Is(message_type.DESCRIPTOR):
            message = message_type()
            detail.Unpack(message)
            return message
    return None


def retryable(error: PowerContextError) -> bool:
    """Safe to send again when the call changes nothing: the server was not there, was going
    away, or its database was (UNAVAILABLE), or it cancelled the call while draining."""
    return isinstance(error, Unavailable | Cancelled)


# grpc's words for a call it could not put on any connection, so no server has seen it.
_NOT_CONNECTED = re.compile(
    r"^failed to connect to all addresses; last error: [A-Z_]+: \S+?: "
    r"(?:Failed to connect to remote host: )?(?P<cause>.+)$",
    re.DOTALL,
)
_NOT_RESOLVED = re.compile(r"^(?:errors resolving|DNS resolution failed for) ", re.IGNORECASE)


def connect_failure(rpc_error: grpc.RpcError) -> str | None:
    """Why grpc could not send the call to any server (e.g. "connection refused"), which
    makes it safe to send again whatever it is; None when a server may have seen it."""
    code_of, details_of = getattr(rpc_error, "code", None), getattr(rpc_error, "details", None)
    if not callable(code_of) or code_of() != grpc.StatusCode.UNAVAILABLE:
        return None
    details = (details_of() if callable(details_of) else None) or ""
    if status_details(rpc_error) is not None:
        return None  # the server's own UNAVAILABLE (SHUTTING_DOWN, DATABASE_UNAVAILABLE)
    connecting = _NOT_CONNECTED.match(details)
    if connecting is not None:
        return _sentence(connecting["cause"])
    if _NOT_RESOLVED.match(details):
        return "name resolution failed: " + _sentence(details.rsplit(": ", 1)[-1].strip(" []"))
    return None


def _sentence(cause: str) -> str:
    cause = cause.strip()
    return cause[:1].lower() + cause[1:]


def unreachable(endpoint: str, cause: str) -> Unavailable:
    """The error of a call that reached no server: UNAVAILABLE, naming where and why."""
    return Unavailable(grpc.StatusCode.UNAVAILABLE, f"cannot reach {endpoint}: {cause}")


def error_info(rpc_error: grpc.RpcError) -> tuple[str, dict[str, str]]:
    """(reason, metadata) of the ErrorInfo of a failed call; ("", {}) when there is none."""
    info = unpack_detail(status_details(rpc_error), error_details_pb2.ErrorInfo)
    return (info.reason, dict(info.metadata)) if info is not None else ("", {})


def from_rpc_error(rpc_error: grpc.RpcError) -> PowerContextError:
    """The exception for a failed call (grpc.RpcError and grpc.aio.AioRpcError alike)."""
    code_of = getattr(rpc_error, "code", None)
    code = code_of() if callable(code_of) else grpc.StatusCode.UNKNOWN
    details_of = getattr(rpc_error, "details", None)
    message = (details_of() if callable(details_of) else None) or str(code.name)
    status = status_details(rpc_error)
    info = unpack_detail(status, error_details_pb2.ErrorInfo)
    reason = info.reason if info is not None else ""
    default = _BY_CODE.get(code, InternalError)
    cls = _BY_REASON.get(reason, default)
    if not issubclass(cls, _FAMILIES.get(code, default)):
        cls = default  # a reason never overrides the code's family
    metadata = dict(info.metadata) if info is not None else {}
    return cls(code, message, reason=reason, metadata=metadata, status=status)


def describe(error: PowerContextError) -> str:
    """One line for a person: `REASON (CODE): message`, plus the fields a bad request names
    and the head a conflict reports (the CLI's error line and the MCP bridge's tool error)."""
    text = f"{error.reason or error.code.name} ({error.code.name}): {error.message}"
    if isinstance(error, InvalidArgument):
        fields = [f for f, _ in error.field_violations if f and f not in error.message]
        text += "".join(f" [field {f}]" for f in fields)
    if isinstance(error, RevisionConflict) and error.head_revision:
        text += f" [head {error.head_revision}]"
    return text
