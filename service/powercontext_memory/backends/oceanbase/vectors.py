"""Vectors on OceanBase: the head rows' vectors, and the nearest rows by exact scan or HNSW."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..port import HeadCondition, HeadProjectionRow, VectorCandidate, VectorRow
from ..sql_reads import HEAD_COLUMNS, condition_sql
from .schema import VECTOR_INDEX
from .statements import OceanBaseStatements, marks
from .wire import vector_bytes, vector_literal

EXACT_VECTOR_ROWS = 2000  # up to this many rows a vector search measures each: exact, cheap


class VectorStatements(OceanBaseStatements):
    async def vector_rows(
        self,
        artifact_id: str,
        entry_ids: Sequence[str] | None,
        *,
        with_vectors: bool = True,
        after: str | None = None,
        limit: int | None = None,
    ) -> list[VectorRow]:
        """Head rows with their vectors. The vector's metadata is the head row itself: a
        vector is bound to it by embedding_content_hash (NULL: no vector bound)."""
        if self._storage.vector_dimension is None:
            vector = "NULL, 0"
        else:
            vector = ("embedding" if with_vectors else "NULL") + ", embedding IS NOT NULL"
        sql = (
            f"SELECT {self._heads_hint('memory_entry_heads')}entry_id, entry_version_id, "
            f"entry_content_hash, embedding_content_hash, {vector} FROM memory_entry_heads "
            "WHERE memory_artifact_id = ?"
        )
        if entry_ids is None:
            params: list[Any] = [artifact_id]
            if after is not None:
                sql += " AND entry_id > ?"
                params.append(after)
            if limit is not None:
                sql += " ORDER BY entry_id LIMIT ?"
                params.append(limit)
            rows = await self._all(sql, params)
        else:
            rows = await self._all_chunked(
                sql + " AND entry_id IN ({marks})", list(entry_ids), artifact_id
            )
        out = []
        for entry_id, version_id, content_hash, embedding_hash, embedding, present in rows:
            bound = embedding_hash is not None
            out.append(
                VectorRow(
                    entry_id,
                    version_id,
                    content_hash,
                    version_id if bound else None,
                    content_hash if bound else None,
                    embedding_hash,
                    vector_bytes(embedding),
                    bool(present),
                )
            )
        return out

    async def nearest_vectors(
        self,
        artifact_ids: Sequence[str],
        query: bytes,
        limit: int,
        condition: HeadCondition | None = None,
    ) -> list[VectorCandidate]:
        """The memories' nearest rows: measured one by one when they are few, else by HNSW.

        Left to itself the engine pre-filters: it reads every row of the memories through
        their index and measures each, an exact scan that grows with the memories
        (bench/oceanbase_vectors.py measures it). Up to EXACT_VECTOR_ROWS rows that is cheap
        and exact, so it stays; above, the index hint makes the engine walk the HNSW graph and
        skip rows of other memories until `limit` pass (POST-ITERATIVE-FILTER in EXPLAIN):
        approximate, at graph cost.
        """
        if self._storage.vector_dimension is None:
            return []
        literal = vector_literal(query)
        memories = list(artifact_ids)
        memory_marks = marks(len(memories))
        many = await self._all(  # reads at most EXACT_VECTOR_ROWS + 1 index entries
            f"SELECT {self._heads_hint('memory_entry_heads')}1 FROM memory_entry_heads "
            f"WHERE memory_artifact_id IN ({memory_marks}) LIMIT 1 OFFSET ?",
            (*memories, EXACT_VECTOR_ROWS),
        )
        hint = (
            f"/*+ INDEX(memory_entry_heads {VECTOR_INDEX}) */ "
            if many
            else self._heads_hint("memory_entry_heads")
        )
        where, params = condition_sql(condition, "")
        rows = await self._all(
            f"SELECT {hint}{HEAD_COLUMNS}, l2_distance(embedding, ?) AS distance "
            f"FROM memory_entry_heads WHERE memory_artifact_id IN ({memory_marks}) "
            f"AND embedding IS NOT NULL{where} "
            "ORDER BY l2_distance(embedding, ?) APPROXIMATE LIMIT ?",
            (literal, *memories, *params, literal, limit),
        )
        return [VectorCandidate(HeadProjectionRow(*r[:5]), float(r[5])) for r in rows]
