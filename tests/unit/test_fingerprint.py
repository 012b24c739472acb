"""transport/fingerprint.py: the idempotency key of a write is its request_id and a SHA-256 of
the method name and the request's deterministic serialization without the id."""

from __future__ import annotations

import hashlib

import pytest
from google.protobuf.message import Message

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types
from powercontext_memory.domain.idempotency import IdempotencyKey
from powercontext_memory.transport.fingerprint import idempotency_key

MEMORY = types.ArtifactRef(artifact_id="mem_art_" + "a" * 32, revision=3)
ENTRY = types.EntryRef(entry_id="ent_" + "b" * 32, entry_version_id="ver_" + "c" * 32)


def forget(**changes: object) -> pb.ForgetRequest:
    fields: dict[str, object] = {
        "memory": MEMORY,
        "entries": [ENTRY],
        "reason": "stale",
        "request_id": "r-1",
    }
    fields.update(changes)
    return pb.ForgetRequest(**fields)  # type: ignore[arg-type]


def fingerprint(method: str, request: Message) -> str:
    key = idempotency_key(method, request)
    assert key is not None
    return key.fingerprint


def test_no_request_id_means_no_key() -> None:
    assert idempotency_key("Forget", forget(request_id="")) is None
    assert idempotency_key("Organize", pb.OrganizeRequest(memory=MEMORY)) is None


def test_the_key_is_the_id_and_a_sha256_of_method_and_request_without_the_id() -> None:
    request = forget()
    without_id = forget(request_id="").SerializeToString(deterministic=True)
    expected = hashlib.sha256(b"Forget\0" + without_id).hexdigest()
    assert idempotency_key("Forget", request) == IdempotencyKey("r-1", expected)


def test_the_request_is_left_as_it_was() -> None:
    request = forget()
    wire = request.SerializeToString()
    idempotency_key("Forget", request)
    assert request.request_id == "r-1" and request.SerializeToString() == wire


def test_a_resend_has_the_same_fingerprint_whatever_its_id() -> None:
    first = fingerprint("Forget", forget())
    assert fingerprint("Forget", forget()) == first
    assert fingerprint("Forget", forget(request_id="another-id")) == first


def test_the_same_fields_under_another_method_differ() -> None:
    """Forget and Reactivate requests have the same fields and numbers: the same bytes."""
    reactivate = pb.ReactivateRequest.FromString(forget().SerializeToString())
    assert reactivate.SerializeToString() == forget().SerializeToString()
    assert fingerprint("Reactivate", reactivate) != fingerprint("Forget", forget())


@pytest.mark.parametrize(
    "changed",
    [
        {"memory": types.ArtifactRef(artifact_id="mem_art_" + "d" * 32, revision=3)},
        {"memory": types.ArtifactRef(artifact_id=MEMORY.artifact_id, revision=4)},
        {"reason": "stale, said the owner"},
        {"reason": None},  # unset differs from set, even from set to ""
        {"entries": [ENTRY, ENTRY]},
        {"entries": [types.EntryRef(entry_id=ENTRY.entry_id, entry_version_id="ver_e")]},
    ],
    ids=["another memory", "another base revision", "another reason", "no reason",
         "one more entry", "another version"],
)  # fmt: skip
def test_any_other_field_gives_another_fingerprint(changed: dict[str, object]) -> None:
    assert fingerprint("Forget", forget(**changed)) != fingerprint("Forget", forget())


def test_an_empty_reason_is_not_an_unset_one() -> None:
    assert fingerprint("Forget", forget(reason="")) != fingerprint("Forget", forget(reason=None))


def test_remember_entries_in_another_order_differ() -> None:
    one = types.EntryInput(kind="fact", text="one")
    two = types.EntryInput(kind="fact", text="two")
    first = pb.RememberRequest(entries=[one, two], request_id="r")
    swapped = pb.RememberRequest(entries=[two, one], request_id="r")
    assert fingerprint("Remember", first) != fingerprint("Remember", swapped)


def test_field_order_of_construction_does_not_matter() -> None:
    built = pb.OrganizeRequest()
    built.request_id = "r"
    built.steps.append(pb.ORGANIZE_STEP_DEDUPE)
    built.memory.CopyFrom(MEMORY)
    direct = pb.OrganizeRequest(memory=MEMORY, steps=[pb.ORGANIZE_STEP_DEDUPE], request_id="r")
    assert fingerprint("Organize", built) == fingerprint("Organize", direct)
