"""Token rules (security/tokens.py) and the token cache (security/token_cache.py), pure."""

from __future__ import annotations

import hashlib
import re
from dataclasses import replace

import pytest

from powercontext_memory.domain.errors import InvalidArgumentError, UnauthenticatedError
from powercontext_memory.security.token_cache import TokenCache
from powercontext_memory.security.tokens import (
    AccessToken,
    Scope,
    TokenStatus,
    format_ms,
    hash_secret,
    issue,
    parse_duration_ms,
    parse_presented,
    parse_timestamp_ms,
    require_token_id,
    verify,
)

NOW = 1_767_225_600_000  # 2026-01-01T00:00:00Z
TOKEN_SHAPE = re.compile(r"pcm_[0-9a-f]{16}_[A-Za-z0-9_\-]{43}")


def test_scopes_include_the_ones_below() -> None:
    assert [s.rank for s in (Scope.READ, Scope.WRITE, Scope.ADMIN)] == [1, 2, 3]
    assert Scope.ADMIN.includes(Scope.WRITE) and Scope.ADMIN.includes(Scope.READ)
    assert Scope.WRITE.includes(Scope.READ) and Scope.WRITE.includes(Scope.WRITE)
    assert not Scope.READ.includes(Scope.WRITE)
    assert not Scope.WRITE.includes(Scope.ADMIN)
    assert Scope.parse(" Write ") is Scope.WRITE
    with pytest.raises(InvalidArgumentError, match="not one of read, write, admin"):
        Scope.parse("root")


def test_a_token_is_shown_once_and_stored_as_its_hash() -> None:
    record, token = issue("ci bot", Scope.WRITE, [], now_ms=NOW)
    assert TOKEN_SHAPE.fullmatch(token)
    presented = parse_presented(token)
    assert presented is not None and presented.token_id == record.token_id
    assert presented.secret not in repr(record) and presented.secret not in repr(presented)
    assert (
        record.secret_hash
        == hashlib.sha256(f"{record.token_id}:{presented.secret}".encode()).hexdigest()
    )
    assert verify(record, presented, NOW) is record
    # 256 random bits each time: two tokens share neither id nor secret
    _, other = issue("ci bot", Scope.WRITE, [], now_ms=NOW)
    assert other.split("_")[1] != token.split("_")[1] and other[21:] != token[21:]


def test_a_wrong_secret_or_unknown_id_is_invalid_and_says_nothing_more() -> None:
    record, token = issue("agent", Scope.READ, [], now_ms=NOW, expires_at_ms=NOW + 1)
    presented = parse_presented(token)
    assert presented is not None
    wrong = parse_presented(token[:-1] + ("A" if token[-1] != "A" else "B"))
    assert wrong is not None
    revoked = replace(record, revoked_at_ms=NOW)
    for stored, attempt in [(record, wrong), (None, presented), (revoked, wrong)]:
        with pytest.raises(UnauthenticatedError) as refused:
            verify(stored, attempt, NOW + 10)  # expired and/or revoked: still only "invalid"
        assert refused.value.reason == "TOKEN_INVALID" and refused.value.metadata == {}
        assert presented.secret not in refused.value.message


def test_revoked_and_expired_tokens_are_refused_with_their_reason() -> None:
    record, token = issue("agent", Scope.READ, [], now_ms=NOW, expires_at_ms=NOW + 60_000)
    presented = parse_presented(token)
    assert presented is not None
    assert record.status(NOW + 59_999) is TokenStatus.ACTIVE
    assert record.status(NOW + 60_000) is TokenStatus.EXPIRED
    with pytest.raises(UnauthenticatedError) as expired:
        verify(record, presented, NOW + 60_000)
    assert expired.value.reason == "TOKEN_EXPIRED"
    assert expired.value.metadata == {
        "tokenId": record.token_id,
        "expiredAt": "2026-01-01T00:01:00Z",
    }
    revoked = replace(record, revoked_at_ms=NOW + 1)
    assert revoked.status(NOW + 2) is TokenStatus.REVOKED
    with pytest.raises(UnauthenticatedError) as refused:
        verify(revoked, presented, NOW + 2)
    assert refused.value.reason == "TOKEN_REVOKED"
    assert refused.value.metadata == {"tokenId": record.token_id}


@pytest.mark.parametrize(
    "text",
    [
        "",
        "pcm_",
        "Bearer pcm_0123456789abcdef_" + "a" * 43,
        "pcm_0123456789ABCDEF_" + "a" * 43,  # upper-case id
        "pcm_0123456789abcdef_" + "a" * 42,  # short secret
        "pcm_0123456789abcdef_" + "a" * 42 + "=",  # not base64url
        "xyz_0123456789abcdef_" + "a" * 43,
    ],
)
def test_only_well_formed_tokens_parse(text: str) -> None:
    assert parse_presented(text) is None


def test_allow_list_and_issue_rules() -> None:
    record, _ = issue("agent", Scope.READ, ["mem_art_b", " mem_art_a", "mem_art_b"], now_ms=NOW)
    assert record.memories == ("mem_art_a", "mem_art_b")  # sorted, unique
    assert record.restricted and record.allows("mem_art_a") and not record.allows("mem_art_c")
    everything, _ = issue("agent", Scope.READ, [], now_ms=NOW)
    assert not everything.restricted and everything.allows("mem_art_c")
    for bad_name in ["", " agent", "a" * 65, "tab\there", "quote'", "naïve"]:
        with pytest.raises(InvalidArgumentError, match="name"):
            issue(bad_name, Scope.READ, [], now_ms=NOW)
    with pytest.raises(InvalidArgumentError, match="memories"):
        issue("agent", Scope.READ, ["bad id!"], now_ms=NOW)
    with pytest.raises(InvalidArgumentError, match="in the future"):
        issue("agent", Scope.READ, [], now_ms=NOW, expires_at_ms=NOW)


def test_durations_times_and_ids() -> None:
    assert parse_duration_ms("90d") == 90 * 86_400_000
    assert parse_duration_ms("1d12h") == 36 * 3_600_000
    assert parse_duration_ms("2w") == 14 * 86_400_000
    assert parse_duration_ms("45s") == 45_000
    for bad in ["", "10", "d", "1y", "-1d", "0s", "1d 2h"]:
        with pytest.raises(InvalidArgumentError, match="expires_in"):
            parse_duration_ms(bad)
    assert parse_timestamp_ms("2026-01-01") == NOW
    assert parse_timestamp_ms("2026-01-01T02:00:00+02:00") == NOW
    assert format_ms(NOW) == "2026-01-01T00:00:00Z"
    with pytest.raises(InvalidArgumentError, match="expires_at"):
        parse_timestamp_ms("next tuesday")
    record, token = issue("agent", Scope.READ, [], now_ms=NOW)
    assert require_token_id(record.token_id) == record.token_id
    assert require_token_id(token) == record.token_id  # revoke accepts the whole token
    with pytest.raises(InvalidArgumentError, match="token_id"):
        require_token_id("nope")
    assert hash_secret("a", "b") != hash_secret("a", "c")


async def test_the_cache_keeps_records_and_unknown_ids_for_its_ttl_only() -> None:
    record, _ = issue("agent", Scope.READ, [], now_ms=NOW)
    stored: dict[str, AccessToken] = {record.token_id: record}
    fetched: list[str] = []
    now = [100.0]

    async def fetch(token_id: str) -> AccessToken | None:
        fetched.append(token_id)
        return stored.get(token_id)

    cache = TokenCache(fetch, ttl=5.0, max_entries=2, clock=lambda: now[0])
    assert await cache.get(record.token_id) is record
    assert await cache.get("0" * 16) is None
    assert await cache.get(record.token_id) is record and await cache.get("0" * 16) is None
    assert fetched == [record.token_id, "0" * 16]  # both answers kept
    revoked = replace(record, revoked_at_ms=NOW)
    stored[record.token_id] = revoked
    now[0] += 4.999
    assert await cache.get(record.token_id) is record  # within the TTL: the old record
    now[0] += 0.001
    assert await cache.get(record.token_id) is revoked  # a revocation shows after the TTL
    await cache.get("1" * 16)
    await cache.get("2" * 16)  # bounded: the least recently used entry left
    assert len(fetched) == 5
    assert await cache.get(record.token_id) is revoked and len(fetched) == 6
    uncached = TokenCache(fetch, ttl=0)
    await uncached.get(record.token_id)
    await uncached.get(record.token_id)
    assert len(fetched) == 8
