"""Idempotent writes (AIP-155): request ids, what a write records, and how a retry is judged.

A write that carries a request id records, in the transaction of its commit (or, for a write
that changes nothing, in a transaction of its own), the fingerprint of the request and enough
of its outcome to rebuild the exact response. A later call with the same caller and id is
answered from that record when its fingerprint matches — whatever happened to the memory in
between — and refused with ALREADY_EXISTS (REQUEST_ID_REUSED) when it does not. A write that
fails records nothing, so the client may send it again.

The fingerprint is opaque here: the transport computes it from the wire request (method name +
deterministic serialization without the request id), since only it knows the wire form.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from .errors import AlreadyExistsError, InvalidArgumentError
from .lifecycle import EntryOutcome, EntryResult
from .models import ArtifactRef

MAX_REQUEST_ID_LENGTH = 128
# How long a recorded outcome is kept, at least: a client retries within seconds or minutes,
# a day covers a retry after an outage of the client itself.
RETENTION_MS = 24 * 3600 * 1000
# Expired records are deleted by later writes with an id, PRUNE_BATCH at a time, at most once
# per PRUNE_INTERVAL_MS per server unless the last batch was full (then on the next write), so
# the table holds about a day of writes and no write pays for more than one small batch; the
# interval keeps even a delete that finds nothing off most writes.
PRUNE_BATCH = 100
PRUNE_INTERVAL_MS = 1000


def validate_request_id(field: str, value: str) -> str | None:
    """None for "" (no idempotency); else 1-128 visible ASCII characters (no spaces or control
    characters: the same alphabet as the x-request-id metadata, so one id can serve both)."""
    if not value:
        return None
    if len(value) > MAX_REQUEST_ID_LENGTH or not all("!" <= c <= "~" for c in value):
        raise InvalidArgumentError(
            field,
            f"must be at most {MAX_REQUEST_ID_LENGTH} visible ASCII characters, no spaces "
            "(a UUID4 is a good choice)",
            reason="INVALID_REQUEST_ID",
        )
    return value


@dataclass(frozen=True, slots=True)
class IdempotencyKey:
    """What the transport hands down for a write with a request id: the id as received (the
    service validates it) and the fingerprint of the whole request."""

    request_id: str
    fingerprint: str


@dataclass(frozen=True, slots=True)
class RecordedOutcome:
    """The response of a write, minus the changes (they are the committed revision's own and
    are read back from it): the memory ref, whether it changed, the content hash and the
    per-input results of Remember."""

    memory: ArtifactRef | None
    changed: bool
    content_hash: str
    results: tuple[EntryResult, ...] = ()
    # EXTRACT only: its candidates and suggestions, as JSON (candidates/record.py); "" else.
    extraction: str = ""

    def to_json(self) -> str:
        memory = None if self.memory is None else [self.memory.artifact_id, self.memory.revision]
        data: dict[str, object] = {
            "memory": memory,
            "changed": self.changed,
            "contentHash": self.content_hash,
            "results": [[r.outcome.value, r.entry_id, r.entry_version_id] for r in self.results],
        }
        if self.extraction:  # absent in records of other writes (and older records)
            data["extraction"] = self.extraction
        return json.dumps(data, sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> RecordedOutcome:
        data = json.loads(text)
        memory = data["memory"]
        return cls(
            None if memory is None else ArtifactRef(str(memory[0]), int(memory[1])),
            bool(data["changed"]),
            str(data["contentHash"]),
            tuple(EntryResult(EntryOutcome(o), str(e), str(v)) for o, e, v in data["results"]),
            str(data.get("extraction", "")),
        )


@dataclass(frozen=True, slots=True)
class WriteRecord:
    """What a write records under (caller, request id); the backend adds the time."""

    caller_key: str
    request_id: str
    fingerprint: str
    outcome: RecordedOutcome


@dataclass(frozen=True, slots=True)
class RequestScope:
    """A validated request id, bound to its caller (ids of different callers never meet)."""

    caller_key: str
    request_id: str
    fingerprint: str

    def record(self, outcome: RecordedOutcome) -> WriteRecord:
        return WriteRecord(self.caller_key, self.request_id, self.fingerprint, outcome)


def require_same_request(request_id: str, fingerprint: str, recorded_fingerprint: str) -> None:
    """A recorded id may only be replayed for the very request that recorded it."""
    if fingerprint != recorded_fingerprint:
        raise AlreadyExistsError(
            f"request_id {request_id!r} was already used for a different request (other "
            "fields, or another base revision); use a new id for a new request",
            reason="REQUEST_ID_REUSED",
            metadata={"field": "request_id", "requestId": request_id},
        )
