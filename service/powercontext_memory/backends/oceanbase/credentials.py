"""Credentials on OceanBase: access tokens, and signing keys kept in schema_meta
(security/signing.py)."""

from __future__ import annotations

from collections.abc import Sequence

from ..port import SIGNING_KEY_PREFIX, SIGNING_KEY_RANGE, AccessTokenRow, values
from ..sql_reads import ACCESS_TOKEN_INSERT
from .statements import OceanBaseStatements


class CredentialStatements(OceanBaseStatements):
    async def insert_access_token(self, row: AccessTokenRow) -> None:
        await self._exec(ACCESS_TOKEN_INSERT, values(row))

    async def revoke_access_token(self, token_id: str, revoked_at_ms: int) -> bool:
        affected = await self._exec(
            "UPDATE access_tokens SET revoked_at_ms = ? "
            "WHERE token_id = ? AND revoked_at_ms IS NULL",
            (revoked_at_ms, token_id),
        )
        return affected == 1

    async def signing_key_rows(self) -> list[tuple[str, str]]:
        rows = await self._all(
            "SELECT meta_key, meta_value FROM schema_meta WHERE meta_key >= ? AND meta_key < ?",
            SIGNING_KEY_RANGE,
        )
        return [(str(k)[len(SIGNING_KEY_PREFIX) :], str(v)) for k, v in rows]

    async def insert_signing_key(self, key_id: str, secret_hex: str) -> bool:
        affected = await self._exec(
            "INSERT IGNORE INTO schema_meta (meta_key, meta_value) VALUES (?, ?)",
            (SIGNING_KEY_PREFIX + key_id, secret_hex),
        )
        return affected == 1

    async def delete_signing_keys(self, key_ids: Sequence[str]) -> None:
        for key_id in key_ids:
            await self._exec(
                "DELETE FROM schema_meta WHERE meta_key = ?", (SIGNING_KEY_PREFIX + key_id,)
            )
