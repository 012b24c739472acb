"""One RPC over HTTP: check the Connect request, forward it, translate the answer.

Unary: `POST /<service>/<method>` with `application/json` or `application/proto`, answered 200
with the message in the same codec, or with the Connect error JSON and the HTTP status its code
maps to. Server streaming: `application/connect+json` or `+proto`, one enveloped request; the
answer is 200 with one enveloped message per response and a final end-of-stream message that
carries the error, if any. A stream ends when the gRPC stream ends (also when the server shuts
down), and when the HTTP caller goes away (its gRPC call is cancelled at once).
"""

from __future__ import annotations

import grpc
from aiohttp import web
from aiohttp.typedefs import Handler

from ..domain.errors import InvalidArgumentError, ResourceExhaustedError
from ..transport.interceptor import MALFORMED_REQUEST
from .codec import (
    END_STREAM_FLAG,
    ENVELOPE_HEADER_BYTES,
    STREAMING_TYPES,
    UNARY_TYPES,
    BodyError,
    MediaType,
    envelope,
    media_type,
    request_bytes,
    response_payload,
    single_message,
)
from .connect_errors import ConnectError, ConnectFailure, end_stream, from_domain
from .forward import (
    Upstream,
    call_metadata,
    failure,
    response_headers,
    text_pairs,
    timeout_seconds,
    trailing_document,
)
from .observe import request_id
from .routes import Procedure

IDENTITY = "identity"
PROTOCOL_VERSION = "1"
UNSUPPORTED_MEDIA_TYPE = 415


def error_response(error: ConnectError) -> web.Response:
    """A unary-style error: always JSON, whatever codec the request used."""
    return web.Response(
        status=error.status,
        body=error.body(),
        content_type="application/json",
        headers=error.headers,
    )


class Calls:
    def __init__(self, upstream: Upstream, max_message_bytes: int) -> None:
        self.upstream = upstream
        self.max_message_bytes = max_message_bytes

    def handler(self, procedure: Procedure) -> Handler:
        async def call(request: web.Request) -> web.StreamResponse:
            if request.method != "POST":
                raise web.HTTPMethodNotAllowed(request.method, ["POST"])
            allowed = STREAMING_TYPES if procedure.streaming else UNARY_TYPES
            media = media_type(request.headers.get("Content-Type"))
            if media not in allowed:
                return error_response(_unsupported(request, allowed))
            assert media is not None
            try:
                payload = await self._payload(request, procedure, media)
                timeout = timeout_seconds(request)
            except ConnectFailure as refused:
                if procedure.streaming:
                    return await _end_only(request, media, refused.error)
                return error_response(refused.error)
            metadata = call_metadata(request, request_id(request))
            if procedure.streaming:
                return await self._stream(request, procedure, media, payload, metadata, timeout)
            return await self._unary(procedure, media, payload, metadata, timeout)

        return call

    async def _payload(self, request: web.Request, procedure: Procedure, media: MediaType) -> bytes:
        """The request as gRPC's binary protobuf (ConnectFailure when it cannot be)."""
        encoding_header = "Connect-Content-Encoding" if media.streaming else "Content-Encoding"
        encoding = request.headers.get(encoding_header, IDENTITY).strip().lower()
        if encoding != IDENTITY:
            raise ConnectFailure(
                ConnectError(
                    grpc.StatusCode.UNIMPLEMENTED,
                    f"{encoding_header} {encoding!r} is not supported; supported: {IDENTITY}",
                )
            )
        version = request.headers.get("Connect-Protocol-Version")
        if version is not None and version.strip() != PROTOCOL_VERSION:
            raise ConnectFailure(
                from_domain(
                    InvalidArgumentError(
                        "Connect-Protocol-Version", f"must be {PROTOCOL_VERSION}, not {version!r}"
                    )
                )
            )
        body = await self._body(request, media)
        try:
            payload = single_message(body) if media.streaming else body
            return request_bytes(payload, media.codec, procedure.request)
        except BodyError as error:
            raise ConnectFailure(
                from_domain(InvalidArgumentError("request", str(error), reason=MALFORMED_REQUEST))
            ) from None

    async def _body(self, request: web.Request, media: MediaType) -> bytes:
        limit = self.max_message_bytes + (ENVELOPE_HEADER_BYTES if media.streaming else 0)
        length = request.content_length
        if length is None or length <= limit:
            try:
                body = await request.read()
            except web.HTTPRequestEntityTooLarge:
                body = b""
                length = limit + 1
            else:
                if len(body) <= limit:
                    return body
                length = len(body)
        raise ConnectFailure(
            from_domain(
                ResourceExhaustedError(
                    f"the request body ({length} bytes or more) is larger than the "
                    f"{self.max_message_bytes} bytes a message may have",
                    reason="REQUEST_TOO_LARGE",
                )
            )
        )

    async def _unary(
        self,
        procedure: Procedure,
        media: MediaType,
        payload: bytes,
        metadata: tuple[tuple[str, str], ...],
        timeout: float | None,
    ) -> web.StreamResponse:
        try:
            raw, initial, trailing = await self.upstream.unary(
                procedure, payload, metadata, timeout
            )
        except ConnectFailure as failed:
            return error_response(failed.error)
        return web.Response(
            body=response_payload(raw, media.codec, procedure.response),
            content_type=media.content_type,
            headers=response_headers(initial, trailing),
        )

    async def _stream(
        self,
        request: web.Request,
        procedure: Procedure,
        media: MediaType,
        payload: bytes,
        metadata: tuple[tuple[str, str], ...],
        timeout: float | None,
    ) -> web.StreamResponse:
        call = self.upstream.stream(procedure, payload, metadata, timeout)
        response = web.StreamResponse(headers={"Content-Type": media.content_type})
        error: ConnectError | None = None
        trailing: dict[str, list[str]] = {}
        try:
            for key, value in response_headers(
                text_pairs(await call.initial_metadata()), ()
            ).items():
                response.headers[key] = value
            await response.prepare(request)
            async for raw in call:
                await response.write(
                    envelope(response_payload(raw, media.codec, procedure.response))
                )
            trailing = trailing_document(text_pairs(await call.trailing_metadata()))
        except grpc.aio.AioRpcError as failed:
            error = failure(failed)
        except ConnectionResetError:  # the caller went away while a message was written
            return response
        finally:
            call.cancel()  # the caller went away (or anything else failed): end the gRPC call
        try:
            if not response.prepared:
                await response.prepare(request)
            await response.write(envelope(end_stream(error, trailing), END_STREAM_FLAG))
            await response.write_eof()
        except ConnectionResetError:
            pass  # gone before the end: nobody is left to tell
        return response


async def _end_only(
    request: web.Request, media: MediaType, error: ConnectError
) -> web.StreamResponse:
    """A streaming call refused before it began: 200 and the end-of-stream message, as Connect
    streams always answer."""
    response = web.StreamResponse(headers={"Content-Type": media.content_type})
    await response.prepare(request)
    await response.write(envelope(end_stream(error), END_STREAM_FLAG))
    await response.write_eof()
    return response


def _unsupported(request: web.Request, allowed: tuple[MediaType, ...]) -> ConnectError:
    accepted = ", ".join(media.content_type for media in allowed)
    given = request.headers.get("Content-Type") or "none"
    error = from_domain(
        InvalidArgumentError(
            "Content-Type",
            f"{given!r} is not accepted here; send one of: {accepted}",
            reason="UNSUPPORTED_MEDIA_TYPE",
        ),
        http_status=UNSUPPORTED_MEDIA_TYPE,
    )
    error.headers["Accept-Post"] = accepted
    return error
