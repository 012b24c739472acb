"""Fuzz every MemoryService request against one real server process (SQLite).

The requests come from the message descriptors (tests/robustness/messages.py), so a new RPC
or field is fuzzed without touching this file: random messages, valid requests with a field
changed, undecodable bytes through a generic call, and, exhaustively rather than sampled,
every integer field of a valid request at each edge of its type (this found the 2^53
encoder bug: INTERNAL, before the range checks) and invalid UTF-8 in every string field.
Whatever arrives, the answer is a status the contract names, never INTERNAL or UNKNOWN: a
typed error carries its ErrorInfo, the server logs no traceback for it, and it still answers
health afterwards. Examples are bounded and derandomized, so CI runs the same cases every
time; a failure prints the request and the server's log lines for it. Every RPC must have a
valid request in fuzz_seed.py that succeeds: an RPC without one fails here.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext_client.errors import error_info, status_details

from ..serving import ServerProcess
from .fuzz_seed import Seeded, seed, valid_request
from .messages import integer_limits, invalid_utf8, malformed_wire, message, mutated

SERVICE = pb.DESCRIPTOR.services_by_name["MemoryService"]
METHODS = {method.name: method for method in SERVICE.methods}
NEVER = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}
CALL_TIMEOUT = 20.0  # a hang is a failure too (DEADLINE_EXCEEDED is not in the contract)
STREAM_MESSAGES = 3  # a follow stream never ends: read this many, then cancel
# Bounded and derandomized: the same cases on every run, few enough that both suites over
# every RPC stay a small part of `make test`.
FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
UNDECODABLE = settings(FUZZ, max_examples=30)


class Fuzzed:
    """The server under fuzz: a channel to it, what it was seeded with, its log file."""

    def __init__(self, channel: grpc.Channel, seeded: Seeded, log: Path) -> None:
        self.channel, self.seeded, self.log = channel, seeded, log

    def __repr__(self) -> str:  # what a failing example shows
        return f"Fuzzed(log={str(self.log)!r})"

    @property
    def stub(self) -> pb_grpc.MemoryServiceStub:
        return pb_grpc.MemoryServiceStub(self.channel)

    def log_since(self, offset: int) -> str:
        with self.log.open("rb") as f:
            f.seek(offset)
            return f.read().decode(errors="replace")

    def log_size(self) -> int:
        return self.log.stat().st_size


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fuzzed]:
    directory = tmp_path_factory.mktemp("fuzz")
    log = directory / "server.log"
    with log.open("wb") as sink:  # the server's stderr: its log
        server = ServerProcess(
            directory / "memory.sqlite3", "--progress-interval", "0.2", stderr=sink
        )
    try:
        with grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            yield Fuzzed(channel, seed(pb_grpc.MemoryServiceStub(channel)), log)
            assert serving(channel), "the server stopped answering health"
    except BaseException:
        server.kill()
        raise
    assert server.stop() == 0, log.read_text()


def serving(channel: grpc.Channel) -> bool:
    health = health_pb2_grpc.HealthStub(channel)
    answer = health.Check(health_pb2.HealthCheckRequest(service=""), timeout=CALL_TIMEOUT)
    return bool(answer.status == health_pb2.HealthCheckResponse.SERVING)


def call(channel: grpc.Channel, name: str, request: bytes) -> grpc.RpcError | None:
    """Send `request` as raw bytes (no client-side encoding); the error, None when OK."""
    path = f"/{SERVICE.full_name}/{name}"
    try:
        if not METHODS[name].server_streaming:
            channel.unary_unary(path)(request, timeout=CALL_TIMEOUT)
            return None
        stream = channel.unary_stream(path)(request, timeout=CALL_TIMEOUT)
        for n, _ in enumerate(stream, 1):
            if n == STREAM_MESSAGES:
                stream.cancel()
                break
        return None
    except grpc.RpcError as error:
        return error


def problem(fuzzed: Fuzzed, name: str, request: bytes, shown: object) -> tuple[str, str | None]:
    """The server's answer to `request` ("CODE REASON") and what is wrong with it (None:
    nothing)."""
    offset = fuzzed.log_size()
    error = call(fuzzed.channel, name, request)
    logged = fuzzed.log_since(offset)
    where = f"{name}({shown!r})\nserver log:\n{logged}"
    code = error.code() if error is not None else grpc.StatusCode.OK
    reason = error_info(error)[0] if error is not None else ""
    outcome = f"{code.name} {reason}"
    if error is not None and code in NEVER | {grpc.StatusCode.DEADLINE_EXCEEDED}:
        return outcome, f"{code.name}: {error.details()}\n{where}"
    if error is not None and not (reason and status_details(error) is not None):
        return outcome, f"{code.name} without ErrorInfo\n{where}"
    if "Traceback" in logged:
        return outcome, f"{code.name}, and a traceback in the log\n{where}"
    return outcome, None


def seed_of(fuzzed: Fuzzed, name: str) -> Message:
    """The valid request of `name`; fails, naming the RPC, when fuzz_seed.py has none."""
    valid = valid_request(name, fuzzed.stub, fuzzed.seeded)
    assert valid is not None, f"{name} has no valid request in tests/robustness/fuzz_seed.py"
    return valid


def check(fuzzed: Fuzzed, name: str, request: bytes, shown: object) -> None:
    outcome, found = problem(fuzzed, name, request, shown)
    event(outcome)  # pytest --hypothesis-show-statistics: how deep the examples got
    assert found is None, found


@pytest.mark.parametrize("name", sorted(METHODS))
def test_every_rpc_has_a_valid_request_that_succeeds(fuzzed: Fuzzed, name: str) -> None:
    """The service descriptor names the RPCs: each needs its seed, and the seed must be OK, so
    the mutations below start from a request that gets through every check."""
    valid = seed_of(fuzzed, name)
    assert valid.DESCRIPTOR is METHODS[name].input_type, (name, valid.DESCRIPTOR.full_name)
    outcome, found = problem(fuzzed, name, valid.SerializeToString(), valid)
    assert found is None, found
    assert outcome == "OK ", f"the seed of {name} is refused: {outcome}\n{valid}"


@pytest.mark.parametrize("name", sorted(METHODS))
@FUZZ
@given(data=st.data())
def test_any_request_gets_a_contract_status(fuzzed: Fuzzed, name: str, data: st.DataObject) -> None:
    plausible = fuzzed.seeded.plausible
    mutations = mutated(seed_of(fuzzed, name), plausible)  # two in three: they get further
    requests = st.one_of(mutations, mutations, message(METHODS[name].input_type, plausible))
    request = data.draw(requests, label="request")
    check(fuzzed, name, request.SerializeToString(), request)


@pytest.mark.parametrize("name", sorted(METHODS))
@UNDECODABLE
@given(data=st.data())
def test_undecodable_bytes_get_a_contract_status(
    fuzzed: Fuzzed, name: str, data: st.DataObject
) -> None:
    valid = seed_of(fuzzed, name)
    wires = malformed_wire(METHODS[name].input_type, fuzzed.seeded.plausible, valid)
    wire = data.draw(wires, label="bytes")
    check(fuzzed, name, wire, wire)


@pytest.mark.parametrize("name", sorted(METHODS))
def test_invalid_utf8_anywhere_is_a_malformed_request(fuzzed: Fuzzed, name: str) -> None:
    """Every string field, nested ones included: INVALID_ARGUMENT, reason MALFORMED_REQUEST."""
    for path, wire in invalid_utf8(METHODS[name].input_type):
        error = call(fuzzed.channel, name, wire)
        assert error is not None, f"{name}: {path} with invalid UTF-8 was accepted"
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, (path, error)
        assert error_info(error)[0] == "MALFORMED_REQUEST", (path, error)


@pytest.mark.parametrize("name", sorted(METHODS))
def test_every_integer_field_at_its_limits(fuzzed: Fuzzed, name: str) -> None:
    """Each integer (and enum) of a valid request at each edge of its type, one at a time:
    all of them, not a sample, so a field left unchecked cannot slip through."""
    cases = list(integer_limits(seed_of(fuzzed, name)))
    found = [problem(fuzzed, name, r.SerializeToString(), f"{p}={v}")[1] for p, v, r in cases]
    assert not any(found), "\n\n".join(f for f in found if f)


def test_the_server_still_serves_after_the_fuzz(fuzzed: Fuzzed) -> None:
    assert serving(fuzzed.channel)
    caps = pb_grpc.MemoryServiceStub(fuzzed.channel).GetCapabilities(
        pb.GetCapabilitiesRequest(), timeout=CALL_TIMEOUT
    )
    assert caps.capabilities.backend == "sqlite"
