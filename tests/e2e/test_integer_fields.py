"""Every integer a request carries is range-checked before it reaches the canonical encoder or
the database: out of range is INVALID_ARGUMENT naming the field, never INTERNAL.

RFC 8785 encodes only integers an IEEE double holds exactly (<= 2^53 - 1); a Remember whose
artifact evidence named revision 2^53 used to fail inside the encoder with INTERNAL.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_client.errors import error_info, status_details, unpack_detail

Stub = pb_grpc.MemoryServiceStub
TOO_BIG = 2**53  # the first integer RFC 8785 cannot encode exactly
INT64_MAX = 2**63 - 1


def ref(artifact_id: str, revision: int) -> types.ArtifactRef:
    return types.ArtifactRef(artifact_id=artifact_id, revision=revision)


async def _drain(call: Any) -> None:
    async for _ in call:
        pass


Request = Callable[[Stub, types.ArtifactRef, int], Awaitable[Any]]

# (field the error must name, the call with the value in that field)
CASES: list[tuple[str, Request]] = [
    (
        "artifacts[0].revision",
        lambda stub, memory, n: stub.Remember(
            pb.RememberRequest(
                artifacts=[ref(memory.artifact_id, n)],
                entries=[types.EntryInput(kind="fact", text="t", artifacts=[ref("a", 1)])],
            )
        ),
    ),
    (
        "entries[0].artifacts[0].revision",
        lambda stub, memory, n: stub.Remember(
            pb.RememberRequest(
                memory=memory,
                entries=[
                    types.EntryInput(kind="fact", text="t", artifacts=[ref(memory.artifact_id, n)])
                ],
            )
        ),
    ),
    (
        "memory.revision",
        lambda stub, memory, n: stub.Remember(
            pb.RememberRequest(
                memory=ref(memory.artifact_id, n), entries=[types.EntryInput(kind="f", text="t")]
            )
        ),
    ),
    (
        "memory.revision",
        lambda stub, memory, n: stub.GetMemory(
            pb.GetMemoryRequest(memory=ref(memory.artifact_id, n))
        ),
    ),
    (
        "memory.revision",
        lambda stub, memory, n: stub.Organize(
            pb.OrganizeRequest(memory=ref(memory.artifact_id, n))
        ),
    ),
    (
        "memory.revision",
        lambda stub, memory, n: _drain(
            stub.Changes(pb.ChangesRequest(memory=ref(memory.artifact_id, n)))
        ),
    ),
    (
        "since_revision",
        lambda stub, memory, n: _drain(
            stub.Changes(pb.ChangesRequest(memory=memory, since_revision=n))
        ),
    ),
    (
        "since_ref.revision",
        lambda stub, memory, n: _drain(
            stub.Changes(pb.ChangesRequest(memory=memory, since_ref=ref(memory.artifact_id, n)))
        ),
    ),
    (
        "memories[0].revision",
        lambda stub, memory, n: stub.Search(
            pb.SearchRequest(query="q", memories=[ref(memory.artifact_id, n)])
        ),
    ),
    (
        "citations[0].memory_ref.revision",
        lambda stub, memory, n: stub.Expand(
            pb.ExpandRequest(
                citations=[
                    types.Citation(
                        memory_ref=ref(memory.artifact_id, n),
                        entry_id="mem_ent_x",
                        entry_version_id="mem_ver_x",
                    )
                ]
            )
        ),
    ),
]


@pytest.mark.parametrize("value", [TOO_BIG, INT64_MAX, -1])
@pytest.mark.parametrize(("field", "call"), CASES, ids=[f"{i}-{c[0]}" for i, c in enumerate(CASES)])
async def test_out_of_range_integer_is_invalid_argument_naming_the_field(
    stub: Stub, field: str, call: Request, value: int
) -> None:
    created = await stub.Remember(
        pb.RememberRequest(entries=[types.EntryInput(kind="f", text="x")])
    )
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call(stub, created.memory, value)
    error = caught.value
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error.details()
    reason, metadata = error_info(error)
    assert (reason, metadata["field"]) == ("INVALID_REVISION", field)
    status = status_details(error)
    assert status is not None
    bad_request = unpack_detail(status, error_details_pb2.BadRequest)
    assert bad_request is not None
    assert [v.field for v in bad_request.field_violations] == [field]


async def test_the_largest_exact_integer_is_accepted_up_to_the_database(stub: Stub) -> None:
    """2^53 - 1 passes validation: the call fails only because no such revision exists."""
    created = await stub.Remember(
        pb.RememberRequest(entries=[types.EntryInput(kind="f", text="x")])
    )
    memory = created.memory
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.Remember(
            pb.RememberRequest(
                memory=memory,
                artifacts=[ref(memory.artifact_id, TOO_BIG - 1)],
                entries=[types.EntryInput(kind="f", text="t")],
            )
        )
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    assert error_info(caught.value)[0] == "ARTIFACT_NOT_FOUND"
