"""schema_meta values: the embedding profile and the markers of one-off migrations."""

from __future__ import annotations

from .statements import Db
from .transaction_base import TransactionBase
from .vectors import VECTOR_TABLE

EMBEDDING_PROFILE_KEY = "embedding_profile"


class SQLiteSettings(TransactionBase):
    async def embedding_profile_json(self) -> str | None:
        rows = await self._all(
            "SELECT value FROM schema_meta WHERE key = ?", (EMBEDDING_PROFILE_KEY,)
        )
        return rows[0][0] if rows else None

    async def set_embedding_profile(self, profile_json: str, dimension: int) -> None:
        """Fix the profile: (re)create an empty vector table of its dimension (offline only)."""

        def go(db: Db) -> None:
            db.execute("DELETE FROM memory_entry_vector_metadata")
            db.execute(f"DROP TABLE IF EXISTS {VECTOR_TABLE}")
            db.execute(
                f"CREATE VIRTUAL TABLE {VECTOR_TABLE} USING vec0(embedding float[{int(dimension)}])"
            )
            db.execute(
                "INSERT OR REPLACE INTO schema_meta (key, value) VALUES (?, ?)",
                (EMBEDDING_PROFILE_KEY, profile_json),
            )

        self._queue(go)

    async def meta_value(self, key: str) -> str | None:
        rows = await self._all("SELECT value FROM schema_meta WHERE key = ?", (key,))
        return str(rows[0][0]) if rows else None

    async def insert_meta_value(self, key: str, value: str) -> bool:
        def go(db: Db) -> bool:
            cur = db.execute(
                "INSERT OR IGNORE INTO schema_meta (key, value) VALUES (?, ?)", (key, value)
            )
            return cur.rowcount == 1

        return await self._run(go)
