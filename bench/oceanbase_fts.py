"""OceanBase full-text formulations side by side, in the engine (no gRPC, no Python ranking).

A table shaped like memory_entry_heads (same columns, FULLTEXT WITH PARSER SPACE over the
adapter's tokens, oceanbase/fts_tokens.encode_row) holds N corpus sentences, either in one memory
or spread over four (70/20/5/5 %, the smallest one searched). Each formulation fetches the
candidate window the adapter asks for (4 x the pool of a limit-8 search):

* column filter: `memory_artifact_id IN (...) AND MATCH ... ORDER BY relevance LIMIT w` in
  natural-language mode (the adapter's earlier query). The engine reads back every matching
  row to test its memory, then sorts them all (EXPLAIN: TOP-N SORT over the text scan).
* partitioned: the same on a table PARTITION BY KEY(memory_artifact_id): pruning helps a small
  memory, not a big one (its partition still holds every match).
* MATCH first: the top-k in a derived table, the memory filtered outside; the text scan
  streams rows best first, but a small memory among big ones streams almost all of them.
* memory token: `+(m_...) +(terms)` in boolean mode (the adapter now): the filter is in the
  index, so the top-k runs inside the text scan and reads back only the window.
* MATCH alone: no memory filter at all. Not correct; the floor the others are held against.

Notes count rows of other memories in each window and how much of the column filter's admitted
window each formulation returns (they differ by rows tied at the window's edge, and by the
memory token's share of the relevance). `python -m bench.oceanbase_fts`.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pymysql

from powercontext_memory.backends.oceanbase.fts_tokens import (
    boolean_query,
    encode_row,
    encode_tokens,
)
from powercontext_memory.backends.oceanbase.full_text import FTS_OVERFETCH
from powercontext_memory.backends.oceanbase.wire import OceanBaseDsn
from powercontext_memory.domain import analyzer, fts_rank, fusion

from . import backends
from .corpus import Corpus
from .report import Figure, figure

WINDOW = fusion.candidate_pool_size(8) * fts_rank.WINDOW_FACTOR
LAYOUTS = {
    "1 memory": [("mem-all", 1.0)],
    "4 memories": [("mem-big", 0.7), ("mem-mid", 0.2), ("mem-s1", 0.05), ("mem-s2", 0.05)],
}
SEARCHED = {"1 memory": "mem-all", "4 memories": "mem-s1"}
COLUMNS = "memory_artifact_id, entry_id, entry_version_id, entry_content_hash, searchable_text"
TABLE = """CREATE TABLE {name} (
    projection_id BIGINT NOT NULL AUTO_INCREMENT,
    memory_artifact_id VARCHAR(128) NOT NULL,
    entry_id VARCHAR(128) NOT NULL,
    entry_version_id VARCHAR(128) NOT NULL,
    entry_content_hash CHAR(64) NOT NULL,
    searchable_text TEXT NOT NULL,
    fulltext_tokens MEDIUMTEXT NOT NULL,
    PRIMARY KEY ({key}),
    UNIQUE KEY uk_{name}_entry (memory_artifact_id, entry_id),
    FULLTEXT INDEX ftx_{name} (fulltext_tokens) WITH PARSER SPACE
) DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin {partitions}"""

Statement = tuple[str, tuple[Any, ...]]
Formulation = Callable[[str, list[str], int], Statement]


def _window(k: int) -> int:
    return WINDOW * (FTS_OVERFETCH if k > 1 else 1)


def column_filter(table: str) -> Formulation:
    def build(memory: str, terms: list[str], k: int) -> Statement:
        q = encode_tokens(terms)
        return (
            f"SELECT {COLUMNS}, MATCH (fulltext_tokens) AGAINST (%s) AS relevance FROM {table} "
            "WHERE memory_artifact_id IN (%s) AND MATCH (fulltext_tokens) AGAINST (%s) "
            "ORDER BY relevance DESC LIMIT %s",
            (q, memory, q, _window(k)),
        )

    return build


def match_first(memory: str, terms: list[str], k: int) -> Statement:
    # The inner limit must cover every match (here: the table's size, at most 100,000 rows); the
    # engine sizes its top-k heap by it, so it cannot simply be "unbounded".
    q = encode_tokens(terms)
    return (
        f"SELECT {COLUMNS}, relevance FROM (SELECT {COLUMNS}, MATCH (fulltext_tokens) "
        "AGAINST (%s) AS relevance FROM heads WHERE MATCH (fulltext_tokens) AGAINST (%s) "
        "ORDER BY relevance DESC LIMIT 100000) m WHERE memory_artifact_id = %s "
        "ORDER BY relevance DESC LIMIT %s",
        (q, q, memory, _window(k)),
    )


def memory_token(memory: str, terms: list[str], k: int) -> Statement:
    q, exact = boolean_query([memory], terms, k)
    return (
        f"SELECT {COLUMNS}, MATCH (fulltext_tokens) AGAINST (%s IN BOOLEAN MODE) AS relevance "
        "FROM heads WHERE MATCH (fulltext_tokens) AGAINST (%s IN BOOLEAN MODE) "
        "ORDER BY relevance DESC LIMIT %s",
        (q, q, WINDOW if exact else _window(k)),
    )


def match_alone(memory: str, terms: list[str], k: int) -> Statement:
    q = encode_tokens(terms)
    return (
        f"SELECT {COLUMNS}, MATCH (fulltext_tokens) AGAINST (%s) AS relevance FROM heads "
        "WHERE MATCH (fulltext_tokens) AGAINST (%s) ORDER BY relevance DESC LIMIT %s",
        (q, q, _window(k)),
    )


FORMULATIONS: dict[str, Formulation] = {
    "column filter (before)": column_filter("heads"),
    "partitioned by memory": column_filter("heads_part"),
    "MATCH first, filter outside": match_first,
    "memory token, boolean (now)": memory_token,
    "MATCH alone (no filter; floor)": match_alone,
}
TARGETED = {"column filter (before)", "memory token, boolean (now)"}


@contextmanager
def _connection(server: str, database: str | None = None) -> Iterator[Any]:
    dsn = OceanBaseDsn.parse(server)
    conn = pymysql.connect(
        host=dsn.host,
        port=dsn.port,
        user=dsn.user,
        password=dsn.password,
        database=database,
        charset="utf8mb4",
        autocommit=True,
    )
    try:
        with conn.cursor() as cur:
            cur.execute("SET SESSION ob_query_timeout = 600000000")
            yield cur
    finally:
        conn.close()


def _fill(cur: Any, layout: str, size: int) -> None:
    corpus = Corpus(random.Random(20261201))
    rng = random.Random(7)
    rows = []
    for i in range(size):
        draw, memory = rng.random(), LAYOUTS[layout][-1][0]
        for name, share in LAYOUTS[layout]:
            draw -= share
            if draw < 0:
                memory = name
                break
        text = analyzer.searchable_text(corpus.sentence())
        digest = hashlib.sha256(text.encode()).hexdigest()
        rows.append((memory, f"e{i}", f"v{i}", digest, text, encode_row(memory, text)))
    for name, key, partitions in (
        ("heads", "projection_id", ""),
        (
            "heads_part",
            "projection_id, memory_artifact_id",
            "PARTITION BY KEY(memory_artifact_id) PARTITIONS 16",
        ),
    ):
        cur.execute(TABLE.format(name=name, key=key, partitions=partitions))
        for start in range(0, size, 500):
            cur.executemany(
                f"INSERT INTO {name} (memory_artifact_id, entry_id, entry_version_id, "
                "entry_content_hash, searchable_text, fulltext_tokens) "
                "VALUES (%s, %s, %s, %s, %s, %s)",
                rows[start : start + 500],
            )


def _queries(n: int) -> list[list[str]]:
    corpus = Corpus(random.Random(20261201))
    out = [list(analyzer.query_terms(q)) for q in corpus.queries(n * 2)]
    return [terms for terms in out if terms][:n]


def _admitted(rows: list[Any], terms: list[str], k: int) -> set[str]:
    wanted = set(terms)
    kept = [r[1] for r in rows if len(wanted.intersection(r[4].split(" "))) >= k]
    return set(kept[:WINDOW])


def measure(cur: Any, layout: str, size: int, searches: int) -> list[Figure]:
    memory = SEARCHED[layout]
    queries = _queries(searches)
    figures = []
    windows: dict[str, list[set[str]]] = {}
    foreign: dict[str, int] = {}
    for name, build in FORMULATIONS.items():
        samples: list[float] = []
        windows[name] = []
        foreign[name] = 0
        for terms in queries:
            k = fusion.fts_required_matches(len(terms))
            sql, params = build(memory, terms, k)
            started = time.perf_counter()
            cur.execute(sql, params)
            rows = list(cur.fetchall())
            samples.append((time.perf_counter() - started) * 1000)
            foreign[name] += sum(1 for r in rows if r[0] != memory)
            windows[name].append(_admitted([r for r in rows if r[0] == memory], terms, k))
        figures.append((name, samples))
    reference = windows["column filter (before)"]
    out = []
    for name, samples in figures:
        shared = [
            len(a & b) / len(a) if a else float(not b)
            for a, b in zip(reference, windows[name], strict=True)
        ]
        note = (
            f"{foreign[name]} rows of other memories; "
            f"window {100 * sum(shared) / len(shared):.1f}% the column filter's"
        )
        target = 20.0 if name in TARGETED and size == 10000 else None
        out.append(figure(f"OB FTS window @{size:,}, {layout}: {name}", samples, target, note))
    return out


def run_oceanbase_fts(
    server: str | None = None, sizes: tuple[int, ...] = (10000,), searches: int = 40
) -> list[Figure]:
    """Every formulation at each size and layout on a seekdb (started here when not given)."""
    if server is None:
        with backends.seekdb_server() as started:
            return run_oceanbase_fts(started, sizes, searches)
    figures: list[Figure] = []
    for size in sizes:
        for layout in LAYOUTS:
            database = f"pcm_bench_fts_{size}_{layout[0]}"
            with _connection(server) as cur:
                cur.execute(f"DROP DATABASE IF EXISTS {database}")
                cur.execute(f"CREATE DATABASE {database}")
            try:
                with _connection(server, database) as cur:
                    _fill(cur, layout, size)
                    figures.extend(measure(cur, layout, size, searches))
            finally:
                with _connection(server) as cur:
                    cur.execute(f"DROP DATABASE IF EXISTS {database}")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.oceanbase_fts", description=__doc__)
    parser.add_argument("--sizes", default="10000", help="rows, comma-separated")
    parser.add_argument("--searches", type=int, default=40, help="queries per formulation")
    parser.add_argument("--server", help="DSN of a running seekdb (default: start one)")
    args = parser.parse_args()
    sizes = tuple(int(s) for s in args.sizes.split(","))
    figures = run_oceanbase_fts(args.server, sizes, args.searches)
    print(f"{'scenario':<84} {'p50':>8} {'p95':>8} {'target':>7}  notes")
    for f in figures:
        mark = "!" if f.target_ms is not None and f.median_ms > f.target_ms else " "
        target = f"<= {f.target_ms:g}" if f.target_ms else ""
        print(f"{f.name:<84} {f.median_ms:>7.2f}{mark} {f.p95_ms:>8.2f} {target:>7}  {f.note}")


if __name__ == "__main__":
    main()
