"""Start-up probe of an OceanBase database: capabilities are verified before serving, never
guessed later.

Each capability is checked by doing the real thing: engine version, MySQL mode and vector
memory by query,
full text by inserting, matching and deleting a row in a FULLTEXT `WITH PARSER SPACE` table,
vectors by the same with an HNSW L2 index of the profile's dimension, plus a look at the real
memory_entry_heads DDL. A failed check makes that capability unavailable with the reason; it
does not stop the server.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from asyncmy.errors import MySQLError

from .fts_tokens import boolean_query, encode_row

MIN_VERSION = (4, 3, 5, 3)  # OceanBase 4.3.5 BP3 / seekdb 4.3.5.3


@dataclass(frozen=True, slots=True)
class ProbeResult:
    engine_version: str = ""
    fts_problem: str = ""
    vector_problem: str = ""


def parse_version(text: str) -> tuple[int, ...]:
    parts = []
    for piece in text.strip().split("."):
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


async def _scalar(cur: Any, sql: str, params: tuple[Any, ...] = ()) -> Any:
    await cur.execute(sql, params)
    row = await cur.fetchone()
    return row[0] if row else None


async def _engine_problem(cur: Any) -> tuple[str, str]:
    try:
        version = str(await _scalar(cur, "SELECT ob_version()"))
    except MySQLError as exc:
        return "", f"not an OceanBase server (ob_version() failed: {exc})"
    if parse_version(version) < MIN_VERSION:
        wanted = ".".join(map(str, MIN_VERSION))
        return version, f"OceanBase {version} is older than {wanted} (4.3.5 BP3)"
    try:
        mode = await _scalar(cur, "SELECT @@ob_compatibility_mode")
    except MySQLError:
        mode = "MYSQL"  # seekdb has no Oracle mode and no such variable
    if str(mode).upper() != "MYSQL":
        return version, f"the tenant runs in {mode} mode; MySQL mode is required"
    return version, ""


async def _fulltext_problem(cur: Any) -> str:
    try:
        await cur.execute(
            "INSERT INTO powercontext_probe (fulltext_tokens) VALUES (%s)",
            (encode_row("probe", "go u_4e2d"),),
        )
        probe_id = cur.lastrowid
        try:
            found = await _scalar(
                cur,
                "SELECT probe_id FROM powercontext_probe "
                "WHERE MATCH (fulltext_tokens) AGAINST (%s IN BOOLEAN MODE) AND probe_id = %s",
                (boolean_query(["probe"], ["go"], 1)[0], probe_id),
            )
        finally:
            await cur.execute("DELETE FROM powercontext_probe WHERE probe_id = %s", (probe_id,))
    except MySQLError as exc:
        return f"FULLTEXT WITH PARSER SPACE probe failed: {exc}"
    if found != probe_id:
        return "FULLTEXT WITH PARSER SPACE did not find a freshly inserted token"
    return ""


async def _parameter(cur: Any, name: str) -> str | None:
    try:
        await cur.execute("SHOW PARAMETERS LIKE %s", (name,))
        row = await cur.fetchone()
    except MySQLError:
        return None
    if row is None:
        return None
    columns = [d[0].lower() for d in cur.description]  # the layout differs between releases
    return str(row[columns.index("value")])


async def _vector_memory_problem(cur: Any) -> str:
    """OceanBase 4.3.x gives vector indexes no memory until ob_vector_memory_limit_percentage
    is set; seekdb (and later releases) size it from vector_memory_limit, where 0 means auto."""
    if await _parameter(cur, "vector_memory_limit") is not None:
        return ""
    percentage = await _parameter(cur, "ob_vector_memory_limit_percentage")
    if percentage is not None and percentage.strip() in ("0", ""):
        return (
            "the tenant gives vector indexes no memory: "
            "ALTER SYSTEM SET ob_vector_memory_limit_percentage = 30"
        )
    return ""


async def _vector_problem(cur: Any, dimension: int) -> str:
    memory = await _vector_memory_problem(cur)
    if memory:
        return memory
    table = f"powercontext_probe_vector_{dimension}"
    create = await _scalar(
        cur,
        "SELECT count(*) FROM information_schema.statistics WHERE table_schema = DATABASE() "
        "AND table_name = 'memory_entry_heads' AND index_name = %s",
        ("vidx_memory_entry_heads_embedding",),
    )
    if not create:
        return "memory_entry_heads has no HNSW vector index"
    await cur.execute("SHOW CREATE TABLE memory_entry_heads")
    ddl = str((await cur.fetchone())[1]).upper().replace(" ", "")
    if f"VECTOR({dimension})" not in ddl or "DISTANCE=L2" not in ddl or "TYPE=HNSW" not in ddl:
        return f"memory_entry_heads.embedding is not VECTOR({dimension}) with an HNSW L2 index"
    unit = "[" + ",".join(["1"] + ["0"] * (dimension - 1)) + "]"
    try:
        await cur.execute(
            f"CREATE TABLE IF NOT EXISTS {table} (probe_id BIGINT NOT NULL AUTO_INCREMENT, "
            f"embedding VECTOR({dimension}), PRIMARY KEY (probe_id), "
            "VECTOR INDEX vidx_probe (embedding) WITH (distance=L2, type=hnsw))"
        )
        await cur.execute(f"INSERT INTO {table} (embedding) VALUES (%s)", (unit,))
        probe_id = cur.lastrowid
        try:
            await cur.execute(
                f"SELECT probe_id, l2_distance(embedding, %s) FROM {table} "
                "ORDER BY l2_distance(embedding, %s) APPROXIMATE LIMIT 1",
                (unit, unit),
            )
            row = await cur.fetchone()
        finally:
            await cur.execute(f"DELETE FROM {table} WHERE probe_id = %s", (probe_id,))
    except MySQLError as exc:
        return f"HNSW vector probe (dimension {dimension}) failed: {exc}"
    if row is None or row[0] != probe_id or abs(float(row[1])) > 1e-6:
        return f"HNSW vector probe (dimension {dimension}) did not find the inserted vector"
    return ""


async def probe(cur: Any, dimension: int | None) -> ProbeResult:
    version, engine = await _engine_problem(cur)
    if engine:
        return ProbeResult(version, engine, engine)
    fts = await _fulltext_problem(cur)
    vector = await _vector_problem(cur, dimension) if dimension is not None else ""
    return ProbeResult(version, fts, vector)
