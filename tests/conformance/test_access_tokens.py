"""Bearer tokens in storage (access_tokens), the same on every backend: what is stored (never
the secret), lookup, listing, revocation, and a damaged row failing closed."""

from __future__ import annotations

import pytest

from powercontext_memory.domain.errors import DataLossError
from powercontext_memory.security.tokens import (
    Scope,
    TokenStatus,
    hash_secret,
    issue,
    parse_presented,
    verify,
)

from .conftest import Harness

NOW = 1_767_225_600_000  # 2026-01-01T00:00:00Z


async def test_tokens_round_trip_and_only_the_hash_is_stored(harness: Harness) -> None:
    backend = harness.service.backend  # type: ignore[union-attr]
    writer, writer_token = issue("ci bot", Scope.WRITE, [], now_ms=NOW)
    reader, reader_token = issue(
        "dashboard", Scope.READ, ["mem_art_b", "mem_art_a"], now_ms=NOW + 1, expires_at_ms=NOW + 9
    )
    await backend.add_access_token(writer)
    await backend.add_access_token(reader)

    assert await backend.access_token(writer.token_id) == writer
    assert await backend.access_token(reader.token_id) == reader  # memories, expiry kept
    assert await backend.access_token("0" * 16) is None
    assert await backend.access_tokens() == [writer, reader]  # oldest first
    for record, token in ((writer, writer_token), (reader, reader_token)):
        presented = parse_presented(token)
        assert presented is not None
        secret = presented.secret
        stored_hash = harness.tamper.scalar(
            "SELECT secret_hash FROM access_tokens WHERE token_id = ?", (record.token_id,)
        )
        assert stored_hash == hash_secret(record.token_id, secret) and secret not in stored_hash
    presented = parse_presented(reader_token)
    assert presented is not None
    stored = await backend.access_token(presented.token_id)
    assert verify(stored, presented, NOW + 2) == reader


async def test_revocation_is_stored_once_and_seen_by_another_server(harness: Harness) -> None:
    backend = harness.service.backend  # type: ignore[union-attr]
    token, _ = issue("agent", Scope.ADMIN, [], now_ms=NOW)
    await backend.add_access_token(token)
    assert await backend.revoke_access_token(token.token_id, NOW + 5)
    assert not await backend.revoke_access_token(token.token_id, NOW + 6)  # already revoked
    assert not await backend.revoke_access_token("0" * 16, NOW + 6)  # no such token

    first = harness.service
    other = await harness.open()  # a second server on the same database
    try:
        seen = await other.backend.access_token(token.token_id)
        assert seen is not None and seen.revoked_at_ms == NOW + 5
        assert seen.status(NOW + 6) is TokenStatus.REVOKED
    finally:
        await other.close()
        harness.service = first


@pytest.mark.parametrize(
    ("column", "value"), [("scope", "root"), ("memories", "not json"), ("memories", '{"a": 1}')]
)
async def test_a_damaged_token_row_fails_closed(harness: Harness, column: str, value: str) -> None:
    backend = harness.service.backend  # type: ignore[union-attr]
    token, _ = issue("agent", Scope.READ, [], now_ms=NOW)
    await backend.add_access_token(token)
    harness.tamper.execute(
        f"UPDATE access_tokens SET {column} = ? WHERE token_id = ?", (value, token.token_id)
    )
    with pytest.raises(DataLossError) as damaged:
        await backend.access_token(token.token_id)
    assert damaged.value.metadata == {"row": f"access_tokens[{token.token_id}]"}
