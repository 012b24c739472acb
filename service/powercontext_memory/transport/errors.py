"""Domain errors -> gRPC status, in one table. (Clients read these details with
powercontext_client.errors.)

Every failed call carries a google.rpc.Status in the `grpc-status-details-bin` trailer with
exactly one ErrorInfo (stable reason, domain "powercontext.memory", lowerCamel metadata), plus
BadRequest for invalid arguments and PreconditionFailure where a precondition names a subject.
Anything that is not a MemoryServiceError is a bug: INTERNAL with a generic message, the
traceback goes to the log only.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import aclosing, asynccontextmanager
from typing import Any, TypeVar

import grpc
from google.protobuf.any_pb2 import Any as AnyPb
from google.rpc import error_details_pb2, status_pb2

from ..domain.errors import (
    AbortedError,
    AlreadyExistsError,
    CapabilityNotSupportedError,
    DataLossError,
    FailedPreconditionError,
    InvalidArgumentError,
    MemoryServiceError,
    NotFoundError,
    PermissionDeniedError,
    ResourceExhaustedError,
    RevisionConflictError,
    UnauthenticatedError,
    UnavailableError,
)
from ..logs import current_request
from .request_id import REQUEST_ID_KEY

logger = logging.getLogger(__name__)

ERROR_DOMAIN = "powercontext.memory"
STATUS_DETAILS_KEY = "grpc-status-details-bin"
INTERNAL_REASON = "INTERNAL"
INTERNAL_MESSAGE = "internal error; see the server log"

# THE table. Lookup walks the class hierarchy, so the most specific class listed wins
# (CapabilityNotSupportedError before its base FailedPreconditionError).
STATUS_CODES: dict[type[MemoryServiceError], grpc.StatusCode] = {
    InvalidArgumentError: grpc.StatusCode.INVALID_ARGUMENT,
    NotFoundError: grpc.StatusCode.NOT_FOUND,
    RevisionConflictError: grpc.StatusCode.ABORTED,
    AbortedError: grpc.StatusCode.ABORTED,
    CapabilityNotSupportedError: grpc.StatusCode.FAILED_PRECONDITION,
    FailedPreconditionError: grpc.StatusCode.FAILED_PRECONDITION,
    DataLossError: grpc.StatusCode.DATA_LOSS,
    UnavailableError: grpc.StatusCode.UNAVAILABLE,
    UnauthenticatedError: grpc.StatusCode.UNAUTHENTICATED,
    PermissionDeniedError: grpc.StatusCode.PERMISSION_DENIED,
    ResourceExhaustedError: grpc.StatusCode.RESOURCE_EXHAUSTED,
    AlreadyExistsError: grpc.StatusCode.ALREADY_EXISTS,
}


def status_code(error: MemoryServiceError) -> grpc.StatusCode:
    for cls in type(error).__mro__:
        code = STATUS_CODES.get(cls)
        if code is not None:
            return code
    return grpc.StatusCode.INTERNAL  # an unlisted MemoryServiceError subclass: a bug too


def lower_camel(key: str) -> str:
    """`resume_since_revision` -> `resumeSinceRevision`; lowerCamel keys pass unchanged."""
    head, *rest = key.split("_")
    return head[:1].lower() + head[1:] + "".join(p[:1].upper() + p[1:] for p in rest)


def _pack(message: Any) -> AnyPb:
    packed = AnyPb()
    packed.Pack(message)
    return packed


def _error_info(reason: str, metadata: Mapping[str, str]) -> error_details_pb2.ErrorInfo:
    return error_details_pb2.ErrorInfo(
        reason=reason,
        domain=ERROR_DOMAIN,
        metadata={lower_camel(k): str(v) for k, v in metadata.items()},
    )


def _extra_details(error: MemoryServiceError) -> list[Any]:
    """The detail messages besides ErrorInfo that the error's class calls for."""
    if isinstance(error, InvalidArgumentError):
        return [
            error_details_pb2.BadRequest(
                field_violations=[
                    error_details_pb2.BadRequest.FieldViolation(
                        field=v.field, description=v.description
                    )
                    for v in error.violations
                ]
            )
        ]
    if isinstance(error, FailedPreconditionError) and error.subject:
        return [
            error_details_pb2.PreconditionFailure(
                violations=[
                    error_details_pb2.PreconditionFailure.Violation(
                        type=error.reason, subject=error.subject, description=error.message
                    )
                ]
            )
        ]
    return []


def to_status(error: MemoryServiceError) -> tuple[grpc.StatusCode, status_pb2.Status]:
    code = status_code(error)
    details = [_error_info(error.reason, error.metadata), *_extra_details(error)]
    status = status_pb2.Status(
        code=code.value[0], message=error.message, details=[_pack(d) for d in details]
    )
    return code, status


def internal_status() -> tuple[grpc.StatusCode, status_pb2.Status]:
    code = grpc.StatusCode.INTERNAL
    info = _error_info(INTERNAL_REASON, {})
    return code, status_pb2.Status(
        code=code.value[0], message=INTERNAL_MESSAGE, details=[_pack(info)]
    )


async def _abort(
    context: grpc.aio.ServicerContext, code: grpc.StatusCode, status: status_pb2.Status
) -> None:
    trailing = [(STATUS_DETAILS_KEY, status.SerializeToString())]
    request = current_request()
    if request is not None:  # abort replaces the trailing metadata: keep the request id
        trailing.append((REQUEST_ID_KEY, request.request_id))
    await context.abort(code, status.message, trailing_metadata=tuple(trailing))


@asynccontextmanager
async def translate_errors(
    context: grpc.aio.ServicerContext, rpc: str = "RPC"
) -> AsyncIterator[None]:
    """Turn whatever escapes the block into the matching gRPC status (aborting the call)."""
    try:
        yield
    except Exception as error:
        await abort_with_status(context, error, rpc)


async def abort_with_status(
    context: grpc.aio.ServicerContext, error: Exception, rpc: str = "RPC"
) -> None:
    """Abort the call with the status that matches `error`; call it inside the `except` that
    caught it (an unexpected error is logged with its traceback)."""
    if isinstance(error, grpc.aio.AbortError):
        raise error  # the call was already aborted with its own status
    if isinstance(error, MemoryServiceError):
        await _abort(context, *to_status(error))
    else:
        logger.exception("unhandled error in %s", rpc)
        await _abort(context, *internal_status())


F = TypeVar("F", bound=Callable[..., Any])


def grpc_errors(method: F) -> F:
    """Decorator for servicer methods `(self, request, context)`, unary or server-streaming."""
    if inspect.isasyncgenfunction(method):

        @functools.wraps(method)
        async def stream(self: Any, request: Any, context: grpc.aio.ServicerContext) -> Any:
            async with (
                translate_errors(context, method.__name__),
                aclosing(method(self, request, context)) as responses,
            ):
                async for response in responses:
                    yield response

        return stream  # type: ignore[return-value]

    @functools.wraps(method)
    async def unary(self: Any, request: Any, context: grpc.aio.ServicerContext) -> Any:
        # try/except rather than `async with translate_errors`: one generator less per call.
        try:
            return await method(self, request, context)
        except Exception as error:
            await abort_with_status(context, error, method.__name__)
        raise AssertionError("unreachable: an abort raises")

    return unary  # type: ignore[return-value]
