"""Bearer-token authentication and authorization of every call (server interceptor).

Installed inside ObservingInterceptor, so a refused call is logged, counted and traced like any
other, with its request id. Per call:

1. the method: `grpc.health.v1.Health` is always open (load balancers and the container
   HEALTHCHECK ask it without a token); reflection is open, or needs a token like the rest
   (`--reflection token`, the default);
2. authentication, before the request is decoded: the `authorization: Bearer pcm_…` metadata,
   its record (security/token_cache.py: at most a few seconds old) and security/tokens.verify —
   UNAUTHENTICATED with TOKEN_MISSING, TOKEN_INVALID, TOKEN_REVOKED or TOKEN_EXPIRED;
3. authorization, on the decoded request: the scope of the RPC and every memory it names
   (security/authz.py) — PERMISSION_DENIED with SCOPE_REQUIRED, MEMORY_NOT_ALLOWED,
   MEMORY_CREATION_NOT_ALLOWED or SOURCE_MEMORY_REQUIRED;
4. the call runs `acting_as(Caller(token id, token name, memory list))`: idempotency records
   and stream limits are kept per token, and sources are read through its memory list.

A stream checks its token again before each message it sends, so a revoked or expired token
also ends the follow streams it opened (at their next revision or progress message). Errors go
through the one error table (errors.py). The token itself is never logged, counted or echoed.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import aclosing
from typing import Any, Final

import grpc
from grpc_health.v1 import health

from ..domain.errors import UnauthenticatedError
from ..security import authz
from ..security.caller import Caller, acting_as
from ..security.token_cache import TokenCache
from ..security.tokens import AccessToken, Scope, parse_presented, require_active, verify
from .errors import translate_errors

AUTHORIZATION_KEY: Final = "authorization"
REFLECTION_SERVICES: Final = frozenset(
    {"grpc.reflection.v1alpha.ServerReflection", "grpc.reflection.v1.ServerReflection"}
)
Behavior = Callable[[Any, grpc.aio.ServicerContext], Any]
Metadata = Sequence[tuple[str, Any]]


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def presented_token(metadata: Metadata) -> str:
    """The bearer token of the call's metadata; UNAUTHENTICATED when it has none, several or
    another kind of credential."""
    values = [value for key, value in metadata if key == AUTHORIZATION_KEY]
    if not values:
        raise UnauthenticatedError(
            "this server requires a token: send the metadata 'authorization: Bearer <token>' "
            "(clients: POWERCONTEXT_TOKEN or --token)",
            reason="TOKEN_MISSING",
        )
    if len(values) > 1 or not isinstance(values[0], str):
        raise UnauthenticatedError(
            "send exactly one 'authorization: Bearer <token>'", reason="TOKEN_INVALID"
        )
    scheme, _, credential = values[0].strip().partition(" ")
    if scheme.lower() != "bearer" or not credential.strip():
        raise UnauthenticatedError(
            "the authorization metadata must be 'Bearer <token>'", reason="TOKEN_INVALID"
        )
    return credential.strip()


class Authenticator:
    """Presented token -> its active stored record, or UNAUTHENTICATED."""

    def __init__(self, tokens: TokenCache, clock: Callable[[], int] = _now_ms) -> None:
        self.tokens = tokens
        self.clock = clock

    async def authenticate(self, metadata: Metadata) -> AccessToken:
        presented = parse_presented(presented_token(metadata))
        if presented is None:
            raise UnauthenticatedError("the bearer token is not valid", reason="TOKEN_INVALID")
        record = await self.tokens.get(presented.token_id)
        return verify(record, presented, self.clock())

    async def recheck(self, token: AccessToken) -> None:
        """Still active (not revoked since, not expired): for streams that outlive a call."""
        record = await self.tokens.get(token.token_id)
        if record is None:  # deleted from the database by hand: as good as revoked
            raise UnauthenticatedError("the bearer token is not valid", reason="TOKEN_INVALID")
        require_active(record, self.clock())


class AuthInterceptor(grpc.aio.ServerInterceptor):
    def __init__(self, authenticator: Authenticator, *, open_reflection: bool = False) -> None:
        self.authenticator = authenticator
        self.open_reflection = open_reflection

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(handler_call_details)
        if handler is None:
            return handler  # unknown method: UNIMPLEMENTED, answered by ObservingInterceptor
        service, _, method = handler_call_details.method.lstrip("/").partition("/")
        if service == health.SERVICE_NAME or (
            service in REFLECTION_SERVICES and self.open_reflection
        ):
            return handler
        try:
            token = await self.authenticator.authenticate(
                handler_call_details.invocation_metadata or ()
            )
        except Exception as error:  # a refusal, or a failed lookup: answered in the call
            return _refusing(handler, error)
        if service == authz.MEMORY_SERVICE:
            check = _memory_check(token, method)
        else:  # reflection (token-protected), or a service nobody classified: the top scope
            scope = Scope.READ if service in REFLECTION_SERVICES else authz.UNLISTED_SCOPE
            check = _scope_check(token, scope, method)
        return _Guarded(self.authenticator, token, check).wrap(handler)


Check = Callable[[Any], None]


def _memory_check(token: AccessToken, method: str) -> Check:
    return lambda request: authz.authorize(token, method, request)


def _scope_check(token: AccessToken, scope: Scope, method: str) -> Check:
    return lambda request: authz.require_scope(token, scope, method)


def _ignore_request(raw: bytes) -> None:
    return None


def _behavior(handler: grpc.RpcMethodHandler) -> Behavior:
    if handler.request_streaming:
        return handler.stream_stream or handler.stream_unary
    return handler.unary_stream or handler.unary_unary


def _factory(handler: grpc.RpcMethodHandler) -> Callable[..., grpc.RpcMethodHandler]:
    if handler.request_streaming:
        if handler.response_streaming:
            return grpc.stream_stream_rpc_method_handler
        return grpc.stream_unary_rpc_method_handler
    if handler.response_streaming:
        return grpc.unary_stream_rpc_method_handler
    return grpc.unary_unary_rpc_method_handler


def _refusing(handler: grpc.RpcMethodHandler, error: Exception) -> grpc.RpcMethodHandler:
    """A handler of the same shape that answers `error` without decoding the request: an
    unauthenticated caller learns nothing from how its bytes parse."""

    async def refuse(request: Any, context: grpc.aio.ServicerContext) -> None:
        async with translate_errors(context, "authentication"):
            raise error

    return _factory(handler)(
        refuse,
        request_deserializer=None if handler.request_streaming else _ignore_request,
        response_serializer=handler.response_serializer,
    )


class _Guarded:
    """The real handler, run after the check, as the token's caller."""

    def __init__(self, authenticator: Authenticator, token: AccessToken, check: Check) -> None:
        self.authenticator = authenticator
        self.token = token
        self.check = check
        self.caller = Caller(token.token_id, token.name, token.memories)

    def wrap(self, handler: grpc.RpcMethodHandler) -> grpc.RpcMethodHandler:
        behavior = _behavior(handler)
        if handler.request_streaming:
            guarded = self._request_stream(behavior)
        elif not handler.response_streaming:
            guarded = self._unary(behavior)
        elif inspect.isasyncgenfunction(behavior):
            guarded = self._response_generator(behavior)
        else:
            guarded = self._response_writer(behavior)
        return _factory(handler)(
            guarded,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )

    async def _authorize(self, request: Any, context: grpc.aio.ServicerContext) -> None:
        async with translate_errors(context, "authorization"):
            self.check(request)

    async def _recheck(self, context: grpc.aio.ServicerContext) -> None:
        async with translate_errors(context, "authentication"):
            await self.authenticator.recheck(self.token)

    def _unary(self, behavior: Behavior) -> Behavior:
        async def unary(request: Any, context: grpc.aio.ServicerContext) -> Any:
            await self._authorize(request, context)
            with acting_as(self.caller):
                return await behavior(request, context)

        return unary

    def _response_generator(self, behavior: Behavior) -> Behavior:
        async def stream(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
            await self._authorize(request, context)
            with acting_as(self.caller):
                async with aclosing(behavior(request, context)) as responses:
                    async for response in responses:
                        await self._recheck(context)
                        yield response

        return stream

    def _response_writer(self, behavior: Behavior) -> Behavior:
        async def stream(request: Any, context: grpc.aio.ServicerContext) -> None:
            await self._authorize(request, context)
            with acting_as(self.caller):
                await behavior(request, _RecheckingContext(context, self._recheck))

        return stream

    def _request_stream(self, behavior: Behavior) -> Behavior:
        # Reflection: a bidirectional stream whose messages name no memory.
        async def stream(requests: Any, context: grpc.aio.ServicerContext) -> Any:
            await self._authorize(None, context)
            with acting_as(self.caller):
                if inspect.isasyncgenfunction(behavior):
                    async with aclosing(behavior(requests, context)) as responses:
                        async for response in responses:
                            yield response
                    return
                result = behavior(requests, context)
                if inspect.isawaitable(result):
                    await result

        return stream


class _RecheckingContext:
    """A servicer context whose `write` first checks that the token is still active (for
    streaming handlers that write instead of yielding)."""

    def __init__(
        self,
        context: grpc.aio.ServicerContext,
        recheck: Callable[[grpc.aio.ServicerContext], Awaitable[None]],
    ) -> None:
        self._context = context
        self._recheck = recheck

    async def write(self, message: Any) -> None:
        await self._recheck(self._context)
        await self._context.write(message)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)
