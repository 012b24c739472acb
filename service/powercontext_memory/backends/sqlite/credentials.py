"""Access tokens (their own table) and signing keys (schema_meta rows, security/signing.py)."""

from __future__ import annotations

from collections.abc import Sequence

from ..port import SIGNING_KEY_PREFIX, SIGNING_KEY_RANGE, AccessTokenRow, values
from ..sql_reads import ACCESS_TOKEN_INSERT
from .statements import Db, execute
from .transaction_base import TransactionBase


class SQLiteCredentials(TransactionBase):
    async def insert_access_token(self, row: AccessTokenRow) -> None:
        await self._run(lambda db: execute(db, ACCESS_TOKEN_INSERT, values(row)))

    async def revoke_access_token(self, token_id: str, revoked_at_ms: int) -> bool:
        def go(db: Db) -> bool:
            cur = db.execute(
                "UPDATE access_tokens SET revoked_at_ms = ? "
                "WHERE token_id = ? AND revoked_at_ms IS NULL",
                (revoked_at_ms, token_id),
            )
            try:
                return cur.rowcount == 1
            finally:
                cur.close()

        return await self._run(go)

    async def signing_key_rows(self) -> list[tuple[str, str]]:
        rows = await self._all(
            "SELECT key, value FROM schema_meta WHERE key >= ? AND key < ?",
            SIGNING_KEY_RANGE,
        )
        return [(str(k)[len(SIGNING_KEY_PREFIX) :], str(v)) for k, v in rows]

    async def insert_signing_key(self, key_id: str, secret_hex: str) -> bool:
        def go(db: Db) -> bool:
            cur = db.execute(
                "INSERT OR IGNORE INTO schema_meta (key, value) VALUES (?, ?)",
                (SIGNING_KEY_PREFIX + key_id, secret_hex),
            )
            try:
                return cur.rowcount == 1
            finally:
                cur.close()

        return await self._run(go)

    async def delete_signing_keys(self, key_ids: Sequence[str]) -> None:
        def go(db: Db) -> None:
            db.executemany(
                "DELETE FROM schema_meta WHERE key = ?",
                [(SIGNING_KEY_PREFIX + k,) for k in key_ids],
            )

        await self._run(go)
