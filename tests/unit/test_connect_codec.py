"""The Connect codec of the HTTP door: media types, envelopes, JSON and binary messages, and
gRPC status -> Connect error (code names, HTTP statuses, details with `value` and `debug`)."""

from __future__ import annotations

import base64
import json

import grpc
import pytest
from google.protobuf.any_pb2 import Any as AnyPb
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types
from powercontext_memory.domain.errors import InvalidArgumentError, RevisionConflictError
from powercontext_memory.http_door import codec
from powercontext_memory.http_door.codec import BodyError, MediaType
from powercontext_memory.http_door.connect_errors import (
    HTTP_STATUS,
    ConnectError,
    code_name,
    end_stream,
    from_domain,
    from_rpc_error,
)
from powercontext_memory.http_door.routes import procedures
from powercontext_memory.transport.errors import STATUS_DETAILS_KEY, to_status


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("application/json", MediaType("json", False)),
        ("Application/JSON; charset=utf-8", MediaType("json", False)),
        ("application/proto", MediaType("proto", False)),
        ("application/connect+json", MediaType("json", True)),
        ("application/connect+proto", MediaType("proto", True)),
        ("application/json; charset=latin-1", None),
        ("text/plain", None),
        ("text/plain; charset=utf-8", None),
        ("application/x-www-form-urlencoded", None),
        ("multipart/form-data; boundary=x", None),
        ("application/connect+xml", None),
        ("text/json", None),
        ("", None),
        (None, None),
    ],
)
def test_only_connect_media_types_are_recognised(
    header: str | None, expected: MediaType | None
) -> None:
    assert codec.media_type(header) == expected


def test_an_envelope_is_a_flag_byte_a_big_endian_length_and_the_message() -> None:
    framed = codec.envelope(b'{"a":1}', codec.END_STREAM_FLAG)
    assert framed == b"\x02\x00\x00\x00\x07" + b'{"a":1}'
    assert codec.single_message(codec.envelope(b"xyz")) == b"xyz"
    assert codec.single_message(codec.envelope(b"")) == b""
    stream = codec.envelope(b"one") + codec.envelope(b"") + codec.envelope(b"{}", 2)
    assert codec.messages(stream) == [(0, b"one"), (0, b""), (2, b"{}")]


@pytest.mark.parametrize(
    ("body", "complaint"),
    [
        (b"\x00\x00\x00", "5-byte prefix"),
        (codec.envelope(b"xyz", codec.COMPRESSED_FLAG), "compressed"),
        (codec.envelope(b"xyz", codec.END_STREAM_FLAG), "flags 0"),
        (codec.envelope(b"xyz")[:-1], "exactly one message"),
        (codec.envelope(b"xyz") + codec.envelope(b"more"), "exactly one message"),
    ],
)
def test_a_streaming_request_must_be_exactly_one_plain_envelope(
    body: bytes, complaint: str
) -> None:
    with pytest.raises(BodyError, match=complaint):
        codec.single_message(body)


def test_a_truncated_response_stream_is_an_error() -> None:
    with pytest.raises(BodyError):
        codec.messages(codec.envelope(b"abc")[:-1])
    with pytest.raises(BodyError):
        codec.messages(b"\x00\x00")


def test_json_requests_take_both_field_spellings() -> None:
    camel = b'{"memory": {"artifactId": "mem_art_1", "revision": "3"}, "metadataOnly": true}'
    snake = b'{"memory": {"artifact_id": "mem_art_1", "revision": 3}, "metadata_only": true}'
    expected = pb.GetMemoryRequest(
        memory=types.ArtifactRef(artifact_id="mem_art_1", revision=3), metadata_only=True
    ).SerializeToString()
    assert codec.request_bytes(camel, "json", pb.GetMemoryRequest) == expected
    assert codec.request_bytes(snake, "json", pb.GetMemoryRequest) == expected
    assert codec.request_bytes(b"", "json", pb.GetMemoryRequest) == b""  # an empty body is {}
    assert codec.request_bytes(b"\xff\x01", "proto", pb.GetMemoryRequest) == b"\xff\x01"


@pytest.mark.parametrize(
    "body", [b'{"memory": ', b'{"noSuchField": 1}', b'"text"', b"[]", b'{"memory": 3}', b"\xff"]
)
def test_bad_json_requests_are_body_errors(body: bytes) -> None:
    with pytest.raises(BodyError, match="powercontext.memory.v1.GetMemoryRequest"):
        codec.request_bytes(body, "json", pb.GetMemoryRequest)


def test_json_responses_are_lower_camel_with_int64_as_strings() -> None:
    response = pb.RememberResponse(
        memory=types.ArtifactRef(artifact_id="mem_art_1", revision=12),
        changed=True,
        content_hash="abc",
    )
    payload = codec.response_payload(response.SerializeToString(), "json", pb.RememberResponse)
    assert json.loads(payload) == {
        "memory": {"artifactId": "mem_art_1", "revision": "12"},
        "changed": True,
        "contentHash": "abc",
    }
    raw = response.SerializeToString()
    assert codec.response_payload(raw, "proto", pb.RememberResponse) == raw


def test_every_grpc_code_has_connects_name_and_http_status() -> None:
    errors = [code for code in grpc.StatusCode if code is not grpc.StatusCode.OK]
    assert set(HTTP_STATUS) == set(errors)
    assert code_name(grpc.StatusCode.CANCELLED) == "canceled"
    assert code_name(grpc.StatusCode.INVALID_ARGUMENT) == "invalid_argument"
    assert HTTP_STATUS[grpc.StatusCode.ABORTED] == 409
    assert HTTP_STATUS[grpc.StatusCode.FAILED_PRECONDITION] == 400
    assert HTTP_STATUS[grpc.StatusCode.UNAUTHENTICATED] == 401
    assert HTTP_STATUS[grpc.StatusCode.RESOURCE_EXHAUSTED] == 429
    assert HTTP_STATUS[grpc.StatusCode.DEADLINE_EXCEEDED] == 504


def _unpadded(value: str) -> bytes:
    assert "=" not in value
    return base64.b64decode(value + "=" * (-len(value) % 4))


def test_an_invalid_argument_keeps_its_reason_and_field_in_value_and_debug() -> None:
    error = from_domain(InvalidArgumentError("entries[0].text", "must not be empty"))
    assert error.status == 400
    document = json.loads(error.body())
    assert document["code"] == "invalid_argument"
    assert document["message"] == "entries[0].text: must not be empty"
    info, bad_request = document["details"]
    assert info["type"] == "google.rpc.ErrorInfo"
    decoded = error_details_pb2.ErrorInfo.FromString(_unpadded(info["value"]))
    assert decoded.reason == "INVALID_ARGUMENT" == info["debug"]["reason"]
    assert info["debug"]["metadata"] == {"field": "entries[0].text"}
    assert bad_request["type"] == "google.rpc.BadRequest"
    violation = error_details_pb2.BadRequest.FromString(_unpadded(bad_request["value"]))
    assert violation.field_violations[0].field == "entries[0].text"
    assert bad_request["debug"]["fieldViolations"][0]["field"] == "entries[0].text"


def test_the_status_details_trailer_of_a_failed_call_becomes_the_error() -> None:
    _, status = to_status(RevisionConflictError("mem_art_1", 1, 2))
    error = from_rpc_error(
        grpc.StatusCode.ABORTED, "ignored", [(STATUS_DETAILS_KEY, status.SerializeToString())]
    )
    assert error.code is grpc.StatusCode.ABORTED and error.status == 409
    assert error.message == status.message
    assert json.loads(error.body())["details"][0]["debug"]["reason"] == "REVISION_CONFLICT"


def test_a_call_without_status_details_keeps_its_code_and_message() -> None:
    bare = from_rpc_error(grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded", None)
    assert json.loads(bare.body()) == {"code": "deadline_exceeded", "message": "Deadline Exceeded"}
    assert bare.status == 504
    garbled = from_rpc_error(grpc.StatusCode.INTERNAL, "x", [(STATUS_DETAILS_KEY, b"\xff\xff")])
    assert garbled.code is grpc.StatusCode.INTERNAL and not garbled.details


def test_an_unknown_detail_type_has_a_value_but_no_debug() -> None:
    unknown = AnyPb(type_url="type.googleapis.com/acme.v1.Secret", value=b"\x08\x01")
    document = ConnectError(grpc.StatusCode.INTERNAL, "x", [unknown]).document()
    assert document["details"] == [{"type": "acme.v1.Secret", "value": "CAE"}]


def test_end_of_stream_messages() -> None:
    assert json.loads(end_stream(None)) == {}
    assert json.loads(end_stream(None, {"server-timing": ["search;dur=1"]})) == {
        "metadata": {"server-timing": ["search;dur=1"]}
    }
    failed = json.loads(end_stream(ConnectError(grpc.StatusCode.UNAVAILABLE, "stopping")))
    assert failed == {"error": {"code": "unavailable", "message": "stopping"}}


def test_routes_come_from_the_descriptors() -> None:
    found = procedures()
    service = pb.DESCRIPTOR.services_by_name["MemoryService"]
    for method in service.methods:
        procedure = found[f"/powercontext.memory.v1.MemoryService/{method.name}"]
        assert procedure.streaming == method.server_streaming
        assert procedure.request.DESCRIPTOR is method.input_type
    health = health_pb2.DESCRIPTOR.services_by_name["Health"]
    assert "/grpc.health.v1.Health/Check" in found
    assert len(found) == len(service.methods) + len(health.methods)
