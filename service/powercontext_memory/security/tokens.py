"""Access tokens: scopes, expiry, issuing a token and checking a presented one. Pure rules.

A token is `pcm_<id>_<secret>`: `id` (16 hex) is a public lookup key (shown by `tokens list`,
used to revoke); `secret` is 256 random bits (43 base64url characters), shown once when the
token is created and stored only as SHA-256. A slow password hash (bcrypt, argon2) defends
guessable passwords; against 2^256 random secrets it would only add milliseconds to every
call, so one SHA-256 and a constant-time comparison are the right cost.

Scopes are ordered, each including the ones below: read < write < admin. A token may be
limited to a list of memories (empty: every memory), and may expire.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from ..domain.errors import InvalidArgumentError, UnauthenticatedError
from ..domain.validation import require_id

TOKEN_PREFIX = "pcm"
ID_HEX_CHARS = 16  # 64 bits: unique in practice; not a secret
SECRET_BYTES = 32  # 256 bits
MAX_NAME_LENGTH = 64
MAX_MEMORIES = 256

_PRESENTED = re.compile(rf"{TOKEN_PREFIX}_([0-9a-f]{{{ID_HEX_CHARS}}})_([A-Za-z0-9_\-]{{43}})")
_TOKEN_ID = re.compile(rf"[0-9a-f]{{{ID_HEX_CHARS}}}")
# Names reach log lines and terminals: printable ASCII without quotes or control characters.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._@:/+\-]{0,63}")
_DURATION = re.compile(r"(\d+)([smhdw])")
_UNIT_MS = {"s": 1_000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000}


class Scope(enum.Enum):
    READ = "read"
    WRITE = "write"
    ADMIN = "admin"

    @property
    def rank(self) -> int:
        return _RANKS[self]

    def includes(self, other: Scope) -> bool:
        """admin includes write and read; write includes read."""
        return self.rank >= other.rank

    @classmethod
    def parse(cls, text: str) -> Scope:
        try:
            return cls(text.strip().lower())
        except ValueError:
            names = ", ".join(s.value for s in cls)
            raise InvalidArgumentError("scope", f"{text!r} is not one of {names}") from None


_RANKS = {Scope.READ: 1, Scope.WRITE: 2, Scope.ADMIN: 3}


class TokenStatus(enum.Enum):
    ACTIVE = "active"
    EXPIRED = "expired"
    REVOKED = "revoked"


@dataclass(frozen=True, slots=True)
class AccessToken:
    """A stored token: everything but the secret, which exists only as `secret_hash`."""

    token_id: str
    name: str
    scope: Scope
    memories: tuple[str, ...]  # sorted, unique; empty: every memory
    secret_hash: str
    created_at_ms: int
    expires_at_ms: int | None = None
    revoked_at_ms: int | None = None

    def status(self, now_ms: int) -> TokenStatus:
        if self.revoked_at_ms is not None:
            return TokenStatus.REVOKED
        if self.expires_at_ms is not None and now_ms >= self.expires_at_ms:
            return TokenStatus.EXPIRED
        return TokenStatus.ACTIVE

    def grants(self, scope: Scope) -> bool:
        return self.scope.includes(scope)

    @property
    def restricted(self) -> bool:
        """Limited to the memories it lists."""
        return bool(self.memories)

    def allows(self, artifact_id: str) -> bool:
        return not self.memories or artifact_id in self.memories


@dataclass(frozen=True, slots=True)
class PresentedToken:
    """A token as a caller sent it, split; `secret` must never be logged or echoed."""

    token_id: str
    secret: str

    def __repr__(self) -> str:
        return f"PresentedToken(token_id={self.token_id!r}, secret=<hidden>)"


def hash_secret(token_id: str, secret: str) -> str:
    """SHA-256 over id and secret: the stored hash also commits to the token's identity."""
    return hashlib.sha256(f"{token_id}:{secret}".encode("ascii")).hexdigest()


def parse_presented(text: str) -> PresentedToken | None:
    """`pcm_<id>_<secret>` split, or None when `text` is not shaped like a token."""
    match = _PRESENTED.fullmatch(text)
    return PresentedToken(match[1], match[2]) if match else None


def require_token_id(text: str) -> str:
    """A token id, or the id inside a whole token (so `revoke` accepts either)."""
    presented = parse_presented(text.strip())
    if presented is not None:
        return presented.token_id
    if not _TOKEN_ID.fullmatch(text.strip()):
        raise InvalidArgumentError("token_id", f"must be {ID_HEX_CHARS} lowercase hex characters")
    return text.strip()


def issue(
    name: str,
    scope: Scope,
    memories: Iterable[str],
    *,
    now_ms: int,
    expires_at_ms: int | None = None,
) -> tuple[AccessToken, str]:
    """A new token record and the whole token string (the only time the secret exists)."""
    if not _NAME.fullmatch(name):
        raise InvalidArgumentError(
            "name",
            f"must be 1-{MAX_NAME_LENGTH} printable ASCII characters (letters, digits, "
            "space, '._@:/+-'), starting with a letter or digit",
        )
    listed = sorted({require_id("memories", m.strip()) for m in memories})
    if len(listed) > MAX_MEMORIES:
        raise InvalidArgumentError("memories", f"at most {MAX_MEMORIES} memories per token")
    if expires_at_ms is not None and expires_at_ms <= now_ms:
        raise InvalidArgumentError("expires", "must be in the future")
    token_id = secrets.token_hex(ID_HEX_CHARS // 2)
    secret = secrets.token_urlsafe(SECRET_BYTES)  # 43 characters of [A-Za-z0-9_-]
    record = AccessToken(
        token_id=token_id,
        name=name,
        scope=scope,
        memories=tuple(listed),
        secret_hash=hash_secret(token_id, secret),
        created_at_ms=now_ms,
        expires_at_ms=expires_at_ms,
    )
    return record, f"{TOKEN_PREFIX}_{token_id}_{secret}"


def verify(record: AccessToken | None, presented: PresentedToken, now_ms: int) -> AccessToken:
    """The stored token if `presented` is it and it is active; UNAUTHENTICATED otherwise.

    Revoked or expired is said only to a caller that holds the right secret; anyone else
    learns only that the token is not valid.
    """
    if record is None or record.token_id != presented.token_id:
        raise UnauthenticatedError("the bearer token is not valid", reason="TOKEN_INVALID")
    expected = hash_secret(presented.token_id, presented.secret)
    if not hmac.compare_digest(expected, record.secret_hash):
        raise UnauthenticatedError("the bearer token is not valid", reason="TOKEN_INVALID")
    return require_active(record, now_ms)


def require_active(record: AccessToken, now_ms: int) -> AccessToken:
    """`record` when it is neither revoked nor expired (also re-checked on open streams)."""
    status = record.status(now_ms)
    if status is TokenStatus.REVOKED:
        raise UnauthenticatedError(
            f"token {record.token_id} was revoked",
            reason="TOKEN_REVOKED",
            metadata={"tokenId": record.token_id},
        )
    if status is TokenStatus.EXPIRED:
        assert record.expires_at_ms is not None
        raise UnauthenticatedError(
            f"token {record.token_id} expired at {format_ms(record.expires_at_ms)}",
            reason="TOKEN_EXPIRED",
            metadata={"tokenId": record.token_id, "expiredAt": format_ms(record.expires_at_ms)},
        )
    return record


def parse_duration_ms(text: str) -> int:
    """`90d`, `12h`, `30m`, `45s`, `2w` (or combined: `1d12h`) in milliseconds."""
    compact = text.strip().lower()
    parts = _DURATION.findall(compact)
    if not parts or "".join(n + u for n, u in parts) != compact:
        raise InvalidArgumentError(
            "expires_in", f"{text!r} is not a duration like 90d, 12h, 30m, 45s or 2w"
        )
    total = sum(int(n) * _UNIT_MS[u] for n, u in parts)
    if total <= 0:
        raise InvalidArgumentError("expires_in", "must be longer than 0")
    return total


def parse_timestamp_ms(text: str) -> int:
    """An ISO 8601 time (`2026-12-31`, `2026-12-31T18:00:00+02:00`); UTC when no zone."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise InvalidArgumentError("expires_at", f"{text!r} is not an ISO 8601 time") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def format_ms(ms: int) -> str:
    """UTC, to the second: `2026-12-31T18:00:00Z`."""
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
