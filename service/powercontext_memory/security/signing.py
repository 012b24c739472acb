"""Signed tokens the server hands out and takes back: page tokens and restore previews.

A token is "pc2.<base64url(canonical JSON payload)>.<base64url(HMAC-SHA256)>". The MAC covers
the format and the payload; the payload names its purpose and the id of the key that signed
it. Keys are HMAC secrets kept in the database (schema_meta "signing_key.<key id>"), so every
server of one database shares them and a fresh database needs no configuration: the first
open creates one. The newest key signs; every kept key verifies. `rotate_signing_keys` adds a
new key and keeps only the one before it, so tokens of any older key stop verifying.

Servers read the keys when they start and again every REFRESH_SECONDS (sooner when a token
names a key they do not know), so a rotation reaches running servers without a restart.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from ..domain.canonical import canonical_json
from ..domain.errors import InvalidArgumentError

TOKEN_FORMAT = "pc2"
# Tokens of other formats are refused with a reason of their own ("start over"), not as garbage.
_FORMAT_PREFIX = re.compile(r"[a-z]{1,8}[0-9]{1,4}")
SECRET_BYTES = 32
# How old the keys a server holds may get before it reads them again (a rotation takes
# effect on running servers within this).
REFRESH_SECONDS = 60.0
# A token naming an unknown key makes the keys be read again, at most this often.
UNKNOWN_KEY_REFRESH_SECONDS = 1.0
MAX_TOKEN_CHARS = 4096
_KEY_ID = re.compile(r"k[0-9]{6}")

PAGE = "page"
PREVIEW = "preview"

# purpose → (reason for an invalid token, reason for a token of a retired format)
_REASONS: dict[str, tuple[str, str]] = {
    PAGE: ("PAGE_TOKEN_INVALID", "PAGE_TOKEN_FORMAT_RETIRED"),
    PREVIEW: ("PREVIEW_TOKEN_INVALID", "PREVIEW_TOKEN_INVALID"),
}


class SigningKeyStore(Protocol):
    """Where keys live (DatabaseMemoryBackend implements it)."""

    async def signing_keys(self) -> dict[str, str]: ...

    async def add_signing_key(self, key_id: str, secret_hex: str) -> bool: ...

    async def drop_signing_keys(self, key_ids: Sequence[str]) -> None: ...


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    if not re.fullmatch(r"[A-Za-z0-9_-]*", text):
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _key_id_of(token: str) -> str | None:
    """The key id a token claims (unverified: only to decide whether to re-read the keys)."""
    parts = token.split(".")
    try:
        body = json.loads(_unb64(parts[1])) if len(parts) == 3 else None
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return None
    key_id = body.get("kid") if isinstance(body, dict) else None
    return key_id if isinstance(key_id, str) else None


def _key_number(key_id: str) -> int:
    return int(key_id[1:])


def next_key_id(existing: Mapping[str, object]) -> str:
    """Key ids are "k" + a 6-digit sequence number: the highest is the newest."""
    return f"k{max(map(_key_number, existing), default=0) + 1:06d}"


def _stored_keys(stored: Mapping[str, str]) -> dict[str, bytes]:
    return {k: bytes.fromhex(v) for k, v in stored.items() if _KEY_ID.fullmatch(k)}


class TokenSigner:
    """Signs with the newest key, verifies with any kept key. sign/verify do no I/O; `refresh`
    (awaited by the operations that take tokens) re-reads the keys now and then."""

    def __init__(
        self,
        keys: Mapping[str, bytes],
        store: SigningKeyStore | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._use(keys)
        self._store = store
        self._clock = clock
        self._read_at = clock()

    def _use(self, keys: Mapping[str, bytes]) -> None:
        usable = {k: v for k, v in keys.items() if _KEY_ID.fullmatch(k)}
        if not usable:
            raise ValueError("a TokenSigner needs at least one key")
        self._keys = dict(usable)
        self.signing_key_id = max(usable, key=_key_number)

    async def refresh(self, token: str = "") -> None:
        """Re-read the stored keys when the last read is older than REFRESH_SECONDS, or (at
        most once a second) when `token` names a key this signer does not know: a rotation
        reaches running servers without a restart."""
        if self._store is None:
            return
        age = self._clock() - self._read_at
        unknown = bool(token) and _key_id_of(token) not in self._keys
        if age >= REFRESH_SECONDS or (unknown and age >= UNKNOWN_KEY_REFRESH_SECONDS):
            stored = _stored_keys(await self._store.signing_keys())
            self._read_at = self._clock()
            if stored:
                self._use(stored)

    @classmethod
    async def load(cls, store: SigningKeyStore) -> TokenSigner:
        """The stored keys; on a database without any, create the first one. Two servers
        opening a new database at once both try key k000001: one insert wins, both read it."""
        stored = await store.signing_keys()
        if not any(_KEY_ID.fullmatch(k) for k in stored):
            await store.add_signing_key(next_key_id({}), secrets.token_hex(SECRET_BYTES))
            stored = await store.signing_keys()
        return cls(_stored_keys(stored), store)

    @classmethod
    def ephemeral(cls) -> TokenSigner:
        """A signer with one random key kept nowhere (services built without a database's keys)."""
        return cls({next_key_id({}): secrets.token_bytes(SECRET_BYTES)})

    @property
    def key_ids(self) -> tuple[str, ...]:
        return tuple(sorted(self._keys, key=_key_number))

    def _mac(self, key_id: str, signed_part: str) -> bytes:
        return hmac.new(self._keys[key_id], signed_part.encode("ascii"), hashlib.sha256).digest()

    def sign(self, purpose: str, payload: Mapping[str, Any]) -> str:
        """A token carrying `payload` (JSON values; keys "purpose" and "kid" are reserved)."""
        if purpose not in _REASONS:
            raise ValueError(f"unknown token purpose {purpose!r}")
        body = {**payload, "purpose": purpose, "kid": self.signing_key_id}
        signed_part = f"{TOKEN_FORMAT}.{_b64(canonical_json(body))}"
        return f"{signed_part}.{_b64(self._mac(self.signing_key_id, signed_part))}"

    def verify(self, purpose: str, token: str, field: str) -> dict[str, Any]:
        """The payload of a token this server's keys signed for `purpose`, else
        INVALID_ARGUMENT on `field`: <PURPOSE>_TOKEN_INVALID, or for page tokens of another
        format PAGE_TOKEN_FORMAT_RETIRED. The caller checks what the payload binds."""
        invalid, retired = _REASONS[purpose]
        parts = token.split(".")
        if len(parts) >= 2 and parts[0] != TOKEN_FORMAT and _FORMAT_PREFIX.fullmatch(parts[0]):
            raise InvalidArgumentError(
                field,
                f"a token of the retired format {parts[0]!r}: restart from the first page",
                reason=retired,
            )
        if len(token) > MAX_TOKEN_CHARS or len(parts) != 3 or parts[0] != TOKEN_FORMAT:
            raise InvalidArgumentError(field, "not a token this server issued", reason=invalid)
        try:
            body = json.loads(_unb64(parts[1]))
            mac = _unb64(parts[2])
        except (ValueError, binascii.Error, UnicodeDecodeError):
            raise InvalidArgumentError(field, "garbled token", reason=invalid) from None
        key_id = body.get("kid") if isinstance(body, dict) else None
        if not isinstance(key_id, str) or key_id not in self._keys:
            raise InvalidArgumentError(
                field, "signed by a key this server no longer keeps", reason=invalid
            )
        if not hmac.compare_digest(mac, self._mac(key_id, f"{parts[0]}.{parts[1]}")):
            raise InvalidArgumentError(field, "the signature does not match", reason=invalid)
        if body.get("purpose") != purpose:
            raise InvalidArgumentError(field, f"not a {purpose} token", reason=invalid)
        return dict(body)


async def rotate_signing_keys(store: SigningKeyStore) -> tuple[str, list[str]]:
    """Add a new signing key and keep only the one before it: (new key id, dropped ids)."""
    stored = {k: v for k, v in (await store.signing_keys()).items() if _KEY_ID.fullmatch(k)}
    new_id = next_key_id(stored)
    if not await store.add_signing_key(new_id, secrets.token_hex(SECRET_BYTES)):
        raise RuntimeError(f"signing key {new_id} appeared meanwhile: run the rotation again")
    previous = max(stored, key=_key_number, default=None)
    dropped = sorted((k for k in stored if k != previous), key=_key_number)
    if dropped:
        await store.drop_signing_keys(dropped)
    return new_id, dropped
