"""Domain errors: what went wrong, independent of the transport.

Every error the service raises on purpose is one of these; the gRPC layer maps each class to a
status code in one table (transport/errors.py). Anything else that escapes is a bug (INTERNAL).

    MemoryServiceError                       reason (UPPER_SNAKE), message, metadata
    ├── InvalidArgumentError                 bad input; names the field(s)
    ├── NotFoundError                        unknown memory, revision, source
    ├── RevisionConflictError                base revision is not the head (CAS lost)
    ├── AbortedError                         state the request read has moved on (stale input
    │                                        version of a Merge, stale preview): re-read, retry
    ├── FailedPreconditionError              valid input, wrong state (stale entry, not head)
    │   └── CapabilityNotSupportedError      mode/feature not available in this deployment
    ├── DataLossError                        stored bytes do not match their hash
    ├── UnavailableError                     shutting down, database unreachable or too slow
    ├── UnauthenticatedError                 no, unknown, revoked or expired token
    ├── PermissionDeniedError                the token lacks the scope or the memory
    ├── ResourceExhaustedError               a limit (open streams, ...) is reached
    └── AlreadyExistsError                   e.g. a request id reused for another request
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FieldViolation:
    field: str
    description: str


class MemoryServiceError(Exception):
    """Base of all deliberate errors. `reason` is a stable UPPER_SNAKE code."""

    default_reason = "MEMORY_ERROR"

    def __init__(
        self,
        message: str,
        *,
        reason: str | None = None,
        metadata: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason or self.default_reason
        self.metadata: dict[str, str] = dict(metadata or {})


class InvalidArgumentError(MemoryServiceError):
    default_reason = "INVALID_ARGUMENT"

    def __init__(
        self,
        field: str,
        message: str,
        *,
        reason: str | None = None,
        metadata: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(
            f"{field}: {message}", reason=reason, metadata={"field": field, **(metadata or {})}
        )
        self.field = field
        self.violations = (FieldViolation(field, message),)


class NotFoundError(MemoryServiceError):
    default_reason = "NOT_FOUND"


class RevisionConflictError(MemoryServiceError):
    default_reason = "REVISION_CONFLICT"

    def __init__(self, artifact_id: str, expected: int, actual: int | None) -> None:
        super().__init__(
            f"memory {artifact_id} is at revision {actual}, not {expected}: "
            "re-read the head and re-apply the operation",
            metadata={
                "artifactId": artifact_id,
                "expectedRevision": str(expected),
                "headRevision": str(actual if actual is not None else 0),
            },
        )
        self.artifact_id = artifact_id
        self.expected = expected
        self.actual = actual


class AbortedError(MemoryServiceError):
    """Like a lost CAS, but about what the request names (an entry version, a preview)."""

    default_reason = "ABORTED"


class FailedPreconditionError(MemoryServiceError):
    default_reason = "FAILED_PRECONDITION"

    def __init__(
        self,
        message: str,
        *,
        reason: str | None = None,
        subject: str = "",
        metadata: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message, reason=reason, metadata=metadata)
        self.subject = subject


class CapabilityNotSupportedError(FailedPreconditionError):
    default_reason = "CAPABILITY_NOT_SUPPORTED"

    def __init__(self, capability: str, message: str) -> None:
        super().__init__(message, subject=capability, metadata={"capability": capability})
        self.capability = capability


class DataLossError(MemoryServiceError):
    default_reason = "STORED_HASH_MISMATCH"


class UnavailableError(MemoryServiceError):
    default_reason = "UNAVAILABLE"


class UnauthenticatedError(MemoryServiceError):
    default_reason = "UNAUTHENTICATED"


class PermissionDeniedError(MemoryServiceError):
    default_reason = "PERMISSION_DENIED"


class ResourceExhaustedError(MemoryServiceError):
    default_reason = "RESOURCE_EXHAUSTED"


class AlreadyExistsError(MemoryServiceError):
    default_reason = "ALREADY_EXISTS"
