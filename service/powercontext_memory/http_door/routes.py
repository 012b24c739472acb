"""The procedures the door serves, read from the service descriptors: every method of
MemoryService and of grpc.health.v1.Health that takes one request (unary, or a server stream).
A method added to the contract is served without a change here."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from google.protobuf.descriptor import ServiceDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from grpc_health.v1 import health_pb2

from powercontext.memory.v1 import memory_service_pb2 as pb

SERVICES: tuple[ServiceDescriptor, ...] = (
    pb.DESCRIPTOR.services_by_name["MemoryService"],
    health_pb2.DESCRIPTOR.services_by_name["Health"],
)


@dataclass(frozen=True, slots=True)
class Procedure:
    path: str  # "/powercontext.memory.v1.MemoryService/Remember": the HTTP path and gRPC method
    request: type[Message]
    response: type[Message]
    streaming: bool  # the server answers with a stream


def procedures(services: Iterable[ServiceDescriptor] = SERVICES) -> dict[str, Procedure]:
    """Path -> procedure; client-streaming methods are left out (one request per HTTP call)."""
    found = {}
    for service in services:
        for method in service.methods:
            if method.client_streaming:
                continue
            path = f"/{service.full_name}/{method.name}"
            found[path] = Procedure(
                path,
                GetMessageClass(method.input_type),
                GetMessageClass(method.output_type),
                method.server_streaming,
            )
    return found
