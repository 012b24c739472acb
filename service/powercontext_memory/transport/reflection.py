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
    files = descriptor_pb2.FileDescriptorSet.FromString(data).file
    for file in files:
        _without_json_names(file.message_type)
    return {f.name: f for f in files}


def _without_json_names(messages: Iterable[descriptor_pb2.DescriptorProto]) -> None:
    """protoc writes each field's camelCase json_name into a descriptor set, the generated
    modules do not; reflection clients (grpcurl) then print JSON with the .proto's own field
    names, as they did before comments were served, and as the documentation shows."""
    for message in messages:
        for field in message.field:
            field.ClearField("json_name")
        _without_json_names(message.nested_type)


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
        if asked == "all_extension_numbers_of_type":
            return self._extension_numbers(request, request.all_extension_numbers_of_type)
        return _not_found(request, f"{asked}: no such extension")  # the contract defines none

    def _extension_numbers(
        self, request: rpb.ServerReflectionRequest, type_name: str
    ) -> rpb.ServerReflectionResponse:
        """A known message's extension numbers: none in the contract; clients (grpcurl) ask
        before they decode a message, such as the ErrorInfo in an error's details."""
        numbers: list[int] = []
        if type_name not in self._by_symbol:
            try:
                message = self._pool.FindMessageTypeByName(type_name)
            except KeyError:
                return _not_found(request, f"no message {type_name}")
            numbers = sorted(e.number for e in self._pool.FindAllExtensions(message))
        found = rpb.ExtensionNumberResponse(base_type_name=type_name, extension_number=numbers)
        return rpb.ServerReflectionResponse(
            original_request=request, all_extension_numbers_response=found
        )

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
