"""Access tokens and the keys that sign page and preview tokens: outside the revision history.

Tokens are only inserted and revoked (never deleted, so an audit sees every one); signing keys
are added and the oldest deleted on rotation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from .rows import AccessTokenRow

# schema_meta keys of token signing keys: "signing_key.<key id>"; the range selects exactly
# them ("/" follows "." in every collation byte order).
SIGNING_KEY_PREFIX = "signing_key."
SIGNING_KEY_RANGE = (SIGNING_KEY_PREFIX, "signing_key/")


class CredentialReads(Protocol):
    """Looked up on every authenticated call and every signed token."""

    async def access_token_row(self, token_id: str) -> AccessTokenRow | None: ...

    async def signing_key_rows(self) -> list[tuple[str, str]]:
        """(key id, hex secret) of every page/preview token signing key (security/signing.py),
        stored in schema_meta under "signing_key.<key id>"."""
        ...


class CredentialWrites(Protocol):
    """Written by the tokens and rotate-signing-key commands."""

    async def insert_access_token(self, row: AccessTokenRow) -> None:
        """A new token; its id is random, a duplicate is the driver's integrity error."""
        ...

    async def revoke_access_token(self, token_id: str, revoked_at_ms: int) -> bool:
        """Mark the token revoked; False when there is no such token or it already was."""
        ...

    async def insert_signing_key(self, key_id: str, secret_hex: str) -> bool:
        """Store a signing key; False (nothing changed) when that key id already exists."""
        ...

    async def delete_signing_keys(self, key_ids: Sequence[str]) -> None: ...
