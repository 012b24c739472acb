"""Server reflection that serves the contract with its comments.

grpcio-reflection answers from the generated modules' descriptors, which carry no comments, so
`grpcurl describe` would show fields without their meaning. This servicer answers the same
protocol (grpc.reflection.v1alpha) from the descriptor set `make proto` writes with source info,
and from the process's default pool for anything else (health, reflection itself).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping
from importlib import resources
from typing import Any

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection_pb2 as rpb
from grpc_reflection.v1alpha import reflection_pb2_grpc

DESCRIPTOR_SET = ("powercontext.memory.v1", "descriptor_set.binpb")


def contract_files() -> dict[str, descriptor_pb2.FileDescriptorProto]:
    """The contract's files (and what they import) by name, comments included."""
    data = resources.files(DESCRIPTOR_SET[0]).joinpath(DESCRIPTOR_SET[1]).read_bytes()
    return {f.name: f for f in descriptor_pb2.FileDescriptorSet.FromString(data).file}


def _symbols(file: descriptor_pb2.FileDescriptorProto) -> Iterable[str]:
    """Every fully qualified name `file` defines (what file_containing_symbol may ask for)."""
    prefix = file.package + "." if file.package else ""

    def messages(items: Iterable[descriptor_pb2.DescriptorProto], scope: str) -> Iterable[str]:
        for message in items:
            name = scope + message.name
            yield name
            yield from (f"{name}.{field.name}" for field in message.field)
            yield from (f"{name}.{enum.name}" for enum in message.enum_type)
            yield from messages(message.nested_type, name + ".")

    yield from messages(file.message_type, prefix)
    for enum in file.enum_type:
        yield prefix + enum.name
        yield from (prefix + value.name for value in enum.value)  # values live in the scope
    for service in file.service:
        yield prefix + service.name
        yield from (f"{prefix}{service.name}.{method.name}" for method in service.method)


class CommentedReflection(reflection_pb2_grpc.ServerReflectionServicer):
    def __init__(
        self,
        service_names: Iterable[str],
        files: Mapping[str, descriptor_pb2.FileDescriptorProto] | None = None,
    ) -> None:
        self._services = sorted(service_names)
        self._files = dict(contract_files() if files is None else files)
        self._by_symbol = {s: name for name, f in self._files.items() for s in _symbols(f)}
        self._pool = descriptor_pool.Default()

    async def ServerReflectionInfo(
        self, request_iterator: AsyncIterator[rpb.ServerReflectionRequest], context: Any
    ) -> AsyncIterator[rpb.ServerReflectionResponse]:
        async for request in request_iterator:
            yield self._answer(request)

    def _answer(self, request: rpb.ServerReflectionRequest) -> rpb.ServerReflectionResponse:
        asked = request.WhichOneof("message_request")
        if asked == "list_services":
            services = [rpb.ServiceResponse(name=name) for name in self._services]
            listed = rpb.ListServiceResponse(service=services)
            return rpb.ServerReflectionResponse(
                original_request=request, list_services_response=listed
            )
        if asked == "file_by_filename":
            return self._files_response(request, request.file_by_filename)
        if asked == "file_containing_symbol":
            symbol = request.file_containing_symbol
            name = self._by_symbol.get(symbol)
            if name is None:
                try:
                    name = self._pool.FindFileContainingSymbol(symbol).name
                except KeyError:
                    return _not_found(request, f"no symbol {symbol}")
            return self._files_response(request, name)
        # The contract defines no extensions; asking for them is answered as not found.
        return _not_found(request, f"{asked}: no extensions are defined")

    def _files_response(
        self, request: rpb.ServerReflectionRequest, name: str
    ) -> rpb.ServerReflectionResponse:
        found: dict[str, bytes] = {}
        if not self._collect(name, found):
            return _not_found(request, f"no file {name}")
        files = rpb.FileDescriptorResponse(file_descriptor_proto=list(found.values()))
        return rpb.ServerReflectionResponse(
            original_request=request, file_descriptor_response=files
        )

    def _collect(self, name: str, found: dict[str, bytes]) -> bool:
        """`name` and everything it imports, serialized, commented where the set has it."""
        if name in found:
            return True
        file = self._files.get(name)
        if file is None:
            try:
                file = descriptor_pb2.FileDescriptorProto()
                self._pool.FindFileByName(name).CopyToProto(file)
            except KeyError:
                return False
        found[name] = file.SerializeToString()
        return all(self._collect(dependency, found) for dependency in file.dependency)


def _not_found(request: rpb.ServerReflectionRequest, message: str) -> rpb.ServerReflectionResponse:
    error = rpb.ErrorResponse(error_code=grpc.StatusCode.NOT_FOUND.value[0], error_message=message)
    return rpb.ServerReflectionResponse(original_request=request, error_response=error)
