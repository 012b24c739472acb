"""Settings on OceanBase: schema_meta values, and the embedding profile with the vector column
and HNSW index its dimension needs."""

from __future__ import annotations

import contextlib

import asyncmy

from .probe import probe
from .schema import VECTOR_INDEX
from .statements import OceanBaseStatements

EMBEDDING_PROFILE_KEY = "embedding_profile"


class SettingsStatements(OceanBaseStatements):
    async def meta_value(self, key: str) -> str | None:
        rows = await self._all("SELECT meta_value FROM schema_meta WHERE meta_key = ?", (key,))
        return str(rows[0][0]) if rows else None

    async def insert_meta_value(self, key: str, value: str) -> bool:
        affected = await self._exec(
            "INSERT IGNORE INTO schema_meta (meta_key, meta_value) VALUES (?, ?)", (key, value)
        )
        return affected == 1

    async def embedding_profile_json(self) -> str | None:
        rows = await self._all(
            "SELECT meta_value FROM schema_meta WHERE meta_key = ?", (EMBEDDING_PROFILE_KEY,)
        )
        return str(rows[0][0]) if rows else None

    async def set_embedding_profile(self, profile_json: str, dimension: int) -> None:
        """Offline: replace the vector column and its HNSW index with ones of this dimension.

        DDL commits on its own in MySQL mode, so the steps are ordered to be re-runnable: the
        profile is removed first and written last, once its column and index exist.
        """
        if not 0 < dimension <= 16000:
            raise ValueError(f"unsupported vector dimension {dimension}")
        await self._exec("DELETE FROM schema_meta WHERE meta_key = ?", (EMBEDDING_PROFILE_KEY,))
        await self._conn.commit()
        if self._storage.vector_dimension is not None:
            with contextlib.suppress(asyncmy.errors.OperationalError):
                await self._exec(f"DROP INDEX {VECTOR_INDEX} ON memory_entry_heads")
            await self._exec("ALTER TABLE memory_entry_heads DROP COLUMN embedding")
            self._storage.vector_dimension = None
        await self._exec("UPDATE memory_entry_heads SET embedding_content_hash = NULL")
        await self._exec(
            f"ALTER TABLE memory_entry_heads ADD COLUMN embedding VECTOR({int(dimension)})"
        )
        await self._exec(
            f"CREATE VECTOR INDEX {VECTOR_INDEX} ON memory_entry_heads (embedding) "
            "WITH (distance=L2, type=hnsw)"
        )
        self._storage.vector_dimension = int(dimension)
        await self._exec(
            "INSERT INTO schema_meta (meta_key, meta_value) VALUES (?, ?)",
            (EMBEDDING_PROFILE_KEY, profile_json),
        )
        async with self._conn.cursor() as cur:
            self._storage.probe = await probe(cur, self._storage.vector_dimension)
