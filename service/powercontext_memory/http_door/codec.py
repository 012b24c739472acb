"""The Connect protocol's bodies: media types, envelopes, and messages as JSON or binary protobuf.

Unary calls carry a bare message (`application/json` or `application/proto`); streaming calls
carry enveloped messages (`application/connect+json` or `application/connect+proto`): one flag
byte (0x01 compressed, 0x02 end of stream), a 4-byte big-endian length, the message. JSON is
the protobuf JSON mapping: a request may name fields in lowerCamelCase or as in the .proto,
a response names them in lowerCamelCase (int64 as strings, enums by name, default values left
out), as every Connect implementation does.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass

from google.protobuf import json_format
from google.protobuf.message import DecodeError, Message

JSON = "json"
PROTO = "proto"
COMPRESSED_FLAG = 0x01
END_STREAM_FLAG = 0x02
_HEADER = struct.Struct(">BI")
ENVELOPE_HEADER_BYTES = _HEADER.size


@dataclass(frozen=True, slots=True)
class MediaType:
    codec: str  # JSON or PROTO
    streaming: bool  # application/connect+CODEC: enveloped messages

    @property
    def content_type(self) -> str:
        return f"application/{'connect+' if self.streaming else ''}{self.codec}"


UNARY_TYPES = (MediaType(JSON, False), MediaType(PROTO, False))
STREAMING_TYPES = (MediaType(JSON, True), MediaType(PROTO, True))


class BodyError(ValueError):
    """The request body is not what its media type says (answered as INVALID_ARGUMENT)."""


def media_type(header: str | None) -> MediaType | None:
    """The Connect media type of a Content-Type header; None for anything else (text/plain,
    forms, a JSON with another charset, a missing header)."""
    if not header:
        return None
    essence, _, parameters = header.partition(";")
    essence = essence.strip().lower()
    streaming = essence.startswith("application/connect+")
    codec = essence.removeprefix("application/connect+" if streaming else "application/")
    if codec not in (JSON, PROTO) or not essence.startswith("application/"):
        return None
    for parameter in parameters.split(";"):
        name, _, value = parameter.strip().partition("=")
        if name.lower() == "charset" and value.strip('"').lower() not in ("utf-8", "utf8"):
            return None
    return MediaType(codec, streaming)


# -- envelopes ------------------------------------------------------------------------------------


def envelope(payload: bytes, flags: int = 0) -> bytes:
    return _HEADER.pack(flags, len(payload)) + payload


def single_message(body: bytes) -> bytes:
    """The one message of a streaming request's body (a server-streaming call takes exactly
    one), uncompressed."""
    if len(body) < ENVELOPE_HEADER_BYTES:
        raise BodyError("the body must be one enveloped message (5-byte prefix, then the message)")
    flags, length = _HEADER.unpack_from(body)
    if flags & COMPRESSED_FLAG:
        raise BodyError("compressed messages are not accepted (Connect-Content-Encoding identity)")
    if flags:
        raise BodyError(f"a request message must have flags 0, not {flags:#04x}")
    if len(body) != ENVELOPE_HEADER_BYTES + length:
        raise BodyError(
            f"the envelope says {length} bytes, the body holds "
            f"{len(body) - ENVELOPE_HEADER_BYTES} after it (exactly one message is expected)"
        )
    return body[ENVELOPE_HEADER_BYTES:]


def messages(stream: bytes) -> list[tuple[int, bytes]]:
    """Every (flags, message) of a complete enveloped stream (a response, read by a client)."""
    found = []
    at = 0
    while at < len(stream):
        if len(stream) - at < ENVELOPE_HEADER_BYTES:
            raise BodyError("the stream ends inside an envelope prefix")
        flags, length = _HEADER.unpack_from(stream, at)
        at += ENVELOPE_HEADER_BYTES
        if len(stream) - at < length:
            raise BodyError("the stream ends inside a message")
        found.append((flags, stream[at : at + length]))
        at += length
    return found


# -- messages -------------------------------------------------------------------------------------


def request_bytes(payload: bytes, codec: str, request_type: type[Message]) -> bytes:
    """The binary protobuf a request payload stands for (what gRPC carries). Binary payloads pass
    as they are: the gRPC server decodes them, and refuses them as it refuses any caller's."""
    if codec == PROTO:
        return payload
    message = request_type()
    try:
        document = json.loads(payload) if payload.strip() else {}
        if not isinstance(document, dict):
            raise json_format.ParseError("a message is a JSON object")
        json_format.ParseDict(document, message)
    except (ValueError, json_format.ParseError) as error:
        raise BodyError(
            f"is not a valid {request_type.DESCRIPTOR.full_name} in JSON: {error}"
        ) from None
    return message.SerializeToString()


def response_payload(raw: bytes, codec: str, response_type: type[Message]) -> bytes:
    """A response message from gRPC's binary protobuf into `codec`."""
    if codec == PROTO:
        return raw
    try:
        message = response_type.FromString(raw)
    except DecodeError as error:  # the server's own answer: a bug, not the caller's
        raise RuntimeError(f"undecodable {response_type.DESCRIPTOR.full_name}") from error
    return json_bytes(json_format.MessageToDict(message))


def json_bytes(document: object) -> bytes:
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
