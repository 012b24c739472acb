"""Server reflection answers from the contract with its comments, and from the process's
default pool for the services it does not define (health, reflection)."""

from __future__ import annotations

import grpc
from google.protobuf import descriptor_pb2
from google.rpc import error_details_pb2  # noqa: F401  (error_details.proto in the default pool)
from grpc_health.v1 import health_pb2  # noqa: F401  (puts health.proto into the default pool)
from grpc_reflection.v1alpha import reflection_pb2 as rpb

from powercontext_memory.transport.reflection import CommentedReflection

SERVICE = "powercontext.memory.v1.MemoryService"
SERVICE_FILE = "powercontext/memory/v1/memory_service.proto"


def files(response: rpb.ServerReflectionResponse) -> dict[str, descriptor_pb2.FileDescriptorProto]:
    assert response.WhichOneof("message_response") == "file_descriptor_response"
    protos = response.file_descriptor_response.file_descriptor_proto
    parsed = [descriptor_pb2.FileDescriptorProto.FromString(data) for data in protos]
    return {f.name: f for f in parsed}


def comments(file: descriptor_pb2.FileDescriptorProto) -> str:
    return "".join(location.leading_comments for location in file.source_code_info.location)


def ask(**request: object) -> rpb.ServerReflectionResponse:
    servicer = CommentedReflection([SERVICE, "grpc.health.v1.Health"])
    return servicer._answer(rpb.ServerReflectionRequest(**request))  # type: ignore[arg-type]


def test_services_are_listed() -> None:
    listed = ask(list_services="*").list_services_response.service
    assert [s.name for s in listed] == ["grpc.health.v1.Health", SERVICE]


def test_a_symbol_brings_its_file_with_comments_and_every_import() -> None:
    types_file = "powercontext/memory/v1/types.proto"
    for symbol, defined_in in (
        (SERVICE, SERVICE_FILE),
        (f"{SERVICE}.Search", SERVICE_FILE),
        ("powercontext.memory.v1.SearchRequest", SERVICE_FILE),
        ("powercontext.memory.v1.SearchRequest.memories", SERVICE_FILE),
        ("powercontext.memory.v1.SEARCH_MODE_HYBRID", types_file),
    ):
        found = files(ask(file_containing_symbol=symbol))
        assert next(iter(found)) == defined_in, symbol
    found = files(ask(file_by_filename=SERVICE_FILE))
    assert sorted(found) == ["google/protobuf/timestamp.proto", SERVICE_FILE, types_file]
    assert "Memories to search (at least one; duplicates removed)" in comments(found[SERVICE_FILE])
    assert "What this deployment can do." in comments(found[SERVICE_FILE])


def test_other_services_come_from_the_default_pool() -> None:
    found = files(ask(file_containing_symbol="grpc.health.v1.Health"))
    assert [f.name for f in found.values()] == ["grpc_health/v1/health.proto"]


def test_known_messages_have_no_extensions() -> None:
    """grpcurl asks this before it decodes a message, e.g. an error's ErrorInfo details."""
    for name in ("powercontext.memory.v1.SearchRequest", "google.rpc.ErrorInfo"):
        answer = ask(all_extension_numbers_of_type=name).all_extension_numbers_response
        assert (answer.base_type_name, list(answer.extension_number)) == (name, [])


def test_unknown_names_are_not_found() -> None:
    for request in (
        {"file_containing_symbol": "powercontext.memory.v1.NoSuchThing"},
        {"file_by_filename": "no/such.proto"},
        {"all_extension_numbers_of_type": "powercontext.memory.v1.NoSuchThing"},
        {
            "file_containing_extension": rpb.ExtensionRequest(
                containing_type="powercontext.memory.v1.SearchRequest", extension_number=100
            )
        },
    ):
        error = ask(**request).error_response
        assert error.error_code == grpc.StatusCode.NOT_FOUND.value[0], request
        assert error.error_message
