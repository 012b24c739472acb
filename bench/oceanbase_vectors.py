"""OceanBase HNSW search filtered by memory: the engine's own choice against the index hint.

A table shaped like memory_entry_heads holds N 384-d unit vectors over four memories (70/20/5/5
%) with an HNSW L2 index. A sentence's vector is the normalised sum of its words' (random, fixed
per word) vectors: no model is needed, and sentences sharing words are near each other. Queries
are corpus queries embedded the same way; each formulation asks for the 32 nearest rows of one
memory:

* exact: no APPROXIMATE, a full scan (the recall reference);
* engine's choice: `... APPROXIMATE LIMIT k` as the adapter used to send it; EXPLAIN
  shows ADAPTIVE SCAN (PRE-FILTER): every row of the memory is read and measured;
* index hint: `/*+ INDEX(t vidx) */`: POST-ITERATIVE-FILTER, the graph is walked and rows of
  other memories skipped until k pass.

The adapter now sends the engine's choice (exact) when the memories hold at most
EXACT_VECTOR_ROWS rows, and the index hint above that: the figures show where each wins.

Recall is against the exact answer. These synthetic vectors are nearly uniform, a hard case for
HNSW: recall on real embeddings is higher. `python -m bench.oceanbase_vectors`.
"""

from __future__ import annotations

import argparse
import random
import time
import zlib
from typing import Any

import numpy as np

from powercontext_memory.backends.oceanbase.wire import vector_literal

from . import backends
from .corpus import Corpus
from .oceanbase_fts import _connection
from .report import Figure, figure

DIMENSION = 384
K = 32
MEMORIES = [("mem-big", 0.7), ("mem-mid", 0.2), ("mem-s1", 0.05), ("mem-s2", 0.05)]
COLUMNS = "memory_artifact_id, entry_id"
WHERE = (
    "WHERE memory_artifact_id = %s AND embedding IS NOT NULL ORDER BY l2_distance(embedding, %s)"
)
FORMULATIONS = {
    "exact": f"SELECT {COLUMNS} FROM heads {WHERE} LIMIT %s",
    "engine's choice (before)": f"SELECT {COLUMNS} FROM heads {WHERE} APPROXIMATE LIMIT %s",
    "index hint (now)": f"SELECT /*+ INDEX(heads vidx_heads) */ {COLUMNS} FROM heads {WHERE} "
    "APPROXIMATE LIMIT %s",
}


def _vector(text: str, words: dict[str, np.ndarray]) -> np.ndarray:
    for word in text.split():
        if word not in words:
            seed = zlib.crc32(word.encode("utf-8"))
            words[word] = np.random.default_rng(seed).standard_normal(DIMENSION).astype("<f4")
    total = sum(words[w] for w in text.split())
    return np.asarray(total / np.linalg.norm(total), dtype="<f4")


def _fill(cur: Any, size: int, words: dict[str, np.ndarray]) -> None:
    cur.execute(
        "CREATE TABLE heads (projection_id BIGINT NOT NULL AUTO_INCREMENT, "
        "memory_artifact_id VARCHAR(128) NOT NULL, entry_id VARCHAR(128) NOT NULL, "
        f"embedding VECTOR({DIMENSION}), PRIMARY KEY (projection_id), "
        "UNIQUE KEY uk_heads_entry (memory_artifact_id, entry_id))"
    )
    cur.execute("CREATE VECTOR INDEX vidx_heads ON heads (embedding) WITH (distance=L2, type=hnsw)")
    corpus = Corpus(random.Random(20261201))
    rng = random.Random(7)
    batch = []
    for i in range(size):
        draw, memory = rng.random(), MEMORIES[-1][0]
        for name, share in MEMORIES:
            draw -= share
            if draw < 0:
                memory = name
                break
        vector = _vector(corpus.sentence(), words)
        batch.append((memory, f"e{i}", vector_literal(vector.tobytes())))
        if len(batch) == 500 or i == size - 1:
            cur.executemany(
                "INSERT INTO heads (memory_artifact_id, entry_id, embedding) VALUES (%s, %s, %s)",
                batch,
            )
            batch = []


def run_oceanbase_vectors(
    server: str | None = None, size: int = 10000, searches: int = 30
) -> list[Figure]:
    if server is None:
        with backends.seekdb_server() as started:
            return run_oceanbase_vectors(started, size, searches)
    database = f"pcm_bench_vectors_{size}"
    words: dict[str, np.ndarray] = {}
    with _connection(server) as cur:
        cur.execute(f"DROP DATABASE IF EXISTS {database}")
        cur.execute(f"CREATE DATABASE {database}")
    figures = []
    try:
        with _connection(server, database) as cur:
            _fill(cur, size, words)
            corpus = Corpus(random.Random(99))
            queries = [_vector(q, words) for q in corpus.queries(searches * 2) if q.isascii()]
            for memory in ("mem-big", "mem-s1"):
                truth: list[set[str]] = []
                for name, sql in FORMULATIONS.items():
                    samples, recall = [], []
                    for i, query in enumerate(queries[:searches]):
                        literal = vector_literal(query.tobytes())
                        begun = time.perf_counter()
                        cur.execute(sql, (memory, literal, K))
                        found = {r[1] for r in cur.fetchall() if r[0] == memory}
                        samples.append((time.perf_counter() - begun) * 1000)
                        if name == "exact":
                            truth.append(found)
                        recall.append(len(found & truth[i]) / max(1, len(truth[i])))
                    share = dict(MEMORIES)[memory]
                    figures.append(
                        figure(
                            f"OB top-{K} @{size:,}, memory of {share:.0%}: {name}",
                            samples,
                            None,
                            f"recall {sum(recall) / len(recall):.2f}",
                        )
                    )
    finally:
        with _connection(server) as cur:
            cur.execute(f"DROP DATABASE IF EXISTS {database}")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.oceanbase_vectors", description=__doc__)
    parser.add_argument("--size", type=int, default=10000, help="rows")
    parser.add_argument("--searches", type=int, default=30, help="queries per formulation")
    parser.add_argument("--server", help="DSN of a running seekdb (default: start one)")
    args = parser.parse_args()
    for f in run_oceanbase_vectors(args.server, args.size, args.searches):
        print(f"{f.name:<64} p50 {f.median_ms:>8.2f}  p95 {f.p95_ms:>8.2f}  {f.note}")


if __name__ == "__main__":
    main()
