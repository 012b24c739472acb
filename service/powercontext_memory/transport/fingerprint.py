"""The idempotency key of a write request: its request_id and a fingerprint of the rest.

Only the transport sees the wire form, so the fingerprint is made here: SHA-256 over the method
name and the request's deterministic serialization with request_id cleared. Two sends of the
same request (a client's retry) give the same fingerprint; any difference in any field gives
another, and the service refuses to answer it from the first one's record.
"""

from __future__ import annotations

import hashlib

from google.protobuf.message import Message

from ..domain.idempotency import IdempotencyKey


def idempotency_key(method: str, request: Message) -> IdempotencyKey | None:
    """None when the request carries no request_id (then the write is not idempotent)."""
    request_id: str = getattr(request, "request_id")  # noqa: B009 (every write request has it)
    if not request_id:
        return None
    digest = hashlib.sha256(method.encode("ascii") + b"\0")
    request.ClearField("request_id")  # the servicer's own copy: cleared, hashed, restored
    try:
        digest.update(request.SerializeToString(deterministic=True))
    finally:
        setattr(request, "request_id", request_id)  # noqa: B010
    return IdempotencyKey(request_id, digest.hexdigest())
