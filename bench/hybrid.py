"""Hybrid search at scale on the real default (multilingual) model, next to the raw engines.

A `serve --embedding multilingual` process holds one memory of N entries. For the
same queries this measures: hybrid search over gRPC (the server embeds the query), the query
embedding alone, and — directly on the database, in this process — the raw engines: on SQLite a
NumPy KNN over all vectors (what the server's vector channel does), a FTS5 top-k (the same
MATCH expression the adapter builds) and a vec0 KNN; on OceanBase the HNSW top-k and the
MATCH top-k the adapter sends. The target: hybrid − embedding ≤ vector top-k + full-text top-k
+ 3 ms, and ≤ 40 ms.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import grpc
import numpy as np
import pymysql
import sqlean
import sqlite_vec

from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_memory.backends.oceanbase.fts_tokens import boolean_query
from powercontext_memory.backends.oceanbase.schema import VECTOR_INDEX
from powercontext_memory.backends.oceanbase.wire import OceanBaseDsn, vector_literal
from powercontext_memory.backends.sqlite import fts_match_expression
from powercontext_memory.domain import analyzer, fusion
from powercontext_memory.embedding.multilingual import MultilingualEmbedder
from powercontext_memory.transport.server import MAX_MESSAGE_BYTES

from . import backends
from .calls import commit_latencies, fill_memory, search_latencies
from .corpus import Corpus
from .report import Figure, figure
from .server import server_process

POOL = fusion.candidate_pool_size(8)


def _open_raw(path: Path) -> sqlean.Connection:
    db = sqlean.connect(str(path))
    db.enable_load_extension(True)
    sqlite_vec.load(db)
    db.enable_load_extension(False)
    return db


def _timed(fn, *args) -> float:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    fn(*args)
    return (time.perf_counter() - started) * 1000


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def run_hybrid(backend: str, server: str | None, size: int, searches: int) -> list[Figure]:
    corpus = Corpus(random.Random(20261201))
    model = await MultilingualEmbedder.open()
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory(prefix="pcmem-bench-hybrid-") as tmp:
        async with backends.database(backend, Path(tmp), server, "pcm_hybrid") as location:
            options = [("grpc.max_receive_message_length", MAX_MESSAGE_BYTES)]
            with server_process(location, "--embedding", "multilingual") as served:
                async with grpc.aio.insecure_channel(
                    f"127.0.0.1:{served.port}", options=options
                ) as ch:
                    stub = pb_grpc.MemoryServiceStub(ch)
                    started = time.perf_counter()
                    memory = await fill_memory(stub, corpus, size)
                    fill_s = time.perf_counter() - started
                    queries = corpus.queries(searches)
                    await search_latencies(stub, memory, queries[:5], types.SEARCH_MODE_HYBRID)
                    embed_ms: list[float] = []
                    hybrid, mean_hits = await search_latencies(
                        stub, memory, queries, types.SEARCH_MODE_HYBRID, embed_ms
                    )
                    commits, memory = await commit_latencies(stub, corpus, memory, 20)
                    rss = _rss_mb(served.pid)
            vectors = [(await model.embed([q])).vectors[0] for q in queries]
            raw_engines = _raw_sqlite if backend == "sqlite" else _raw_oceanbase
            raw = raw_engines(location, memory.artifact_id, queries, vectors)
    await model.close()
    vector_name, fts_name = list(raw)[:2]
    floor = raw[vector_name] + raw[fts_name] + 3.0
    figures.append(
        figure(
            f"hybrid search over gRPC at {size:,} entries",
            hybrid,
            min(40.0, floor),
            f"server's query embedding excluded; mean hits {mean_hits:.1f}; "
            f"filled in {fill_s:.0f} s",
        )
    )
    figures.append(
        Figure(
            "  hybrid target = min(40, raw floor)",
            floor,
            float("nan"),
            None,
            f"floor = {vector_name} {raw[vector_name]:.2f} + {fts_name} {raw[fts_name]:.2f} + 3",
        )
    )
    figures.append(figure("  query embedding in the server (multilingual)", embed_ms, None))
    for name, value in raw.items():
        figures.append(Figure(f"  raw {name} top-{POOL} (median)", value, float("nan"), None))
    figures.append(
        figure(
            f"commit 1 entry (with embedding) into {size:,}",
            commits,
            None,
            f"server RSS {rss:.0f} MB",
        )
    )
    figures.append(
        Figure(
            f"server RSS in MB with the model, {size:,} entries",
            rss,
            float("nan"),
            600.0 if backend == "sqlite" else None,
            "after the hybrid searches and commits",
        )
    )
    return figures


def _medians(
    queries: list[str],
    vectors: list[np.ndarray],
    vector_knn: Callable[[np.ndarray], None],
    fts: Callable[[str], None],
) -> tuple[float, float]:
    return (
        statistics.median(_timed(vector_knn, q) for q in vectors),
        statistics.median(_timed(fts, q) for q in queries),
    )


def _raw_oceanbase(
    location: str, artifact_id: str, queries: list[str], vectors: list[np.ndarray]
) -> dict[str, float]:
    dsn = OceanBaseDsn.parse(location)
    db = pymysql.connect(
        host=dsn.host, port=dsn.port, user=dsn.user, password=dsn.password, database=dsn.database
    )
    try:
        cur = db.cursor()

        def hnsw(q: np.ndarray) -> None:
            literal = vector_literal(q.astype("<f4").tobytes())
            cur.execute(
                f"SELECT /*+ INDEX(memory_entry_heads {VECTOR_INDEX}) */ projection_id "
                "FROM memory_entry_heads WHERE memory_artifact_id = %s "
                "ORDER BY l2_distance(embedding, %s) APPROXIMATE LIMIT %s",
                (artifact_id, literal, POOL),
            )
            cur.fetchall()

        def match(query: str) -> None:
            terms = analyzer.query_terms(query)
            if terms:
                k = fusion.fts_required_matches(len(terms))
                spelled, _ = boolean_query([artifact_id], terms, k)
                cur.execute(
                    "SELECT projection_id, MATCH (fulltext_tokens) AGAINST (%s IN BOOLEAN MODE) "
                    "AS r FROM memory_entry_heads "
                    "WHERE MATCH (fulltext_tokens) AGAINST (%s IN BOOLEAN MODE) "
                    "ORDER BY r DESC LIMIT %s",
                    (spelled, spelled, POOL),
                )
                cur.fetchall()

        knn, fts = _medians(queries, vectors, hnsw, match)
        return {"hnsw": knn, "match": fts}
    finally:
        db.close()


def _raw_sqlite(
    location: str, artifact_id: str, queries: list[str], vectors: list[np.ndarray]
) -> dict[str, float]:
    db = _open_raw(Path(location))
    try:
        rows = db.execute(
            "SELECT v.embedding FROM memory_entry_heads h "
            "JOIN memory_entry_search_vector v ON v.rowid = h.projection_id "
            "WHERE h.memory_artifact_id = ?",
            (artifact_id,),
        ).fetchall()
        matrix = np.frombuffer(b"".join(r[0] for r in rows), dtype="<f4").reshape(len(rows), -1)

        def numpy_knn(q: np.ndarray) -> None:
            scores = matrix @ q
            np.argpartition(-scores, POOL)[:POOL]

        def fts(query: str) -> None:
            terms = analyzer.query_terms(query)
            if terms:
                expression = fts_match_expression(
                    [artifact_id], terms, fusion.fts_required_matches(len(terms))
                )
                db.execute(
                    "SELECT rowid FROM memory_entry_search_fts "
                    "WHERE memory_entry_search_fts MATCH ? ORDER BY rank LIMIT ?",
                    (expression, POOL),
                ).fetchall()

        def vec0(q: np.ndarray) -> None:
            db.execute(
                "SELECT rowid, distance FROM memory_entry_search_vector "
                "WHERE embedding MATCH ? AND k = ?",
                (q.astype("<f4").tobytes(), POOL),
            ).fetchall()

        knn, fts_ms = _medians(queries, vectors, numpy_knn, fts)
        return {
            "numpy": knn,
            "fts5": fts_ms,
            "vec0": statistics.median(_timed(vec0, q) for q in vectors[:20]),
        }
    finally:
        db.close()
