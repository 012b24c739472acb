"""`python -m bench.storage`: what one single-entry commit costs as the memory grows — its
latency over real gRPC against a server process, and the bytes it stores.

Bytes per commit = growth of the authoritative tables a commit writes (artifact_revisions,
manifest_pieces where present, memory_entry_versions: summed byte lengths of their stored
values) over the timed commits, divided by their number. The search projection is left out:
it holds one row per entry whatever the manifest's layout.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import tempfile
import time
from pathlib import Path

import grpc
import pymysql
import sqlean

from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext_memory.backends.oceanbase.wire import OceanBaseDsn
from powercontext_memory.transport.server import MAX_MESSAGE_BYTES

from . import backends
from .calls import commit_latencies, fill_memory
from .corpus import Corpus
from .report import Figure, figure
from .server import server_process
from .side_by_side import print_side_by_side

# (table, byte-length expression of a row) per backend; manifest_pieces exists from pieces on.
_SIZED = {
    "artifact_revisions": (
        "content",
        "content_hash",
        "lineage",
        "changes",
        "changes_hash",
        "manifest_root",
    ),
    "manifest_pieces": ("piece_key", "body"),
    "memory_entry_versions": (
        "entry_id",
        "entry_version_id",
        "previous_version_id",
        "kind",
        "text",
        "source_refs",
        "artifact_refs",
        "entry_content_hash",
    ),
}
# Targets of docs/performance.md (p50 ms by backend and size; bytes per commit at any size).
COMMIT_TARGETS = {
    ("sqlite", 100_000): 30.0,
    ("oceanbase", 100_000): 150.0,
    ("oceanbase", 10_000): 40.0,
}
BYTES_TARGET_KB = 64.0


def _sum_sql(table: str, columns: list[str], backend: str) -> str:
    length = "LENGTH(CAST({} AS BLOB))" if backend == "sqlite" else "LENGTH({})"
    parts = " + ".join(f"COALESCE({length.format(c)}, 0)" for c in columns)
    return f"SELECT COALESCE(SUM({parts}), 0) FROM {table}"


def stored_bytes(backend: str, location: str) -> int:
    """Summed byte lengths of the authoritative values a commit writes, as stored now."""
    if backend == "sqlite":
        conn = sqlean.connect(f"file:{location}?mode=ro", uri=True)
        present = lambda t: conn.execute(  # noqa: E731
            "SELECT 1 FROM sqlite_master WHERE name = ?", (t,)
        ).fetchone()
        columns = lambda t: {r[1] for r in conn.execute(f"PRAGMA table_info({t})")}  # noqa: E731
        query = lambda sql: int(conn.execute(sql).fetchone()[0])  # noqa: E731
    else:
        dsn = OceanBaseDsn.parse(location)
        conn = pymysql.connect(
            host=dsn.host,
            port=dsn.port,
            user=dsn.user,
            password=dsn.password,
            database=dsn.database,
            autocommit=True,
        )

        def run(sql: str, params: tuple[str, ...] = ()) -> list[tuple[object, ...]]:
            with conn.cursor() as cur:
                cur.execute(sql, params)
                return list(cur.fetchall())

        present = lambda t: run(  # noqa: E731
            "SELECT 1 FROM information_schema.tables WHERE table_schema = DATABASE() "
            "AND table_name = %s",
            (t,),
        )
        columns = lambda t: {  # noqa: E731
            str(r[0])
            for r in run(
                "SELECT column_name FROM information_schema.columns "
                "WHERE table_schema = DATABASE() AND table_name = %s",
                (t,),
            )
        }
        query = lambda sql: int(run(sql)[0][0])  # type: ignore[call-overload] # noqa: E731
    try:
        total = 0
        for table, wanted in _SIZED.items():
            if present(table):
                have = columns(table)
                total += query(_sum_sql(table, [c for c in wanted if c in have], backend))
        return total
    finally:
        conn.close()


async def run_storage(
    backend: str, server: str | None, sizes: list[int], commits: int = 30
) -> list[Figure]:
    figures: list[Figure] = []
    corpus = Corpus(random.Random(20261201))
    options = [("grpc.max_receive_message_length", MAX_MESSAGE_BYTES)]
    with tempfile.TemporaryDirectory(prefix="pcmem-bench-storage-") as tmp:
        for size in sizes:  # a fresh memory (and database) per size: growth is per commit
            name = f"pcm_storage_{size}"
            async with backends.database(backend, Path(tmp), server, name) as location:
                # no embedding model: the figure is the commit's own cost, as in the baseline
                with server_process(location, "--embedding", "none") as served:
                    async with grpc.aio.insecure_channel(
                        f"127.0.0.1:{served.port}", options=options
                    ) as channel:
                        stub = pb_grpc.MemoryServiceStub(channel)
                        started = time.perf_counter()
                        memory = await fill_memory(stub, corpus, size)
                        fill_s = time.perf_counter() - started
                        memory = (await commit_latencies(stub, corpus, memory, 3))[1]  # warm
                        before = stored_bytes(backend, location)
                        samples, memory = await commit_latencies(stub, corpus, memory, commits)
                        grown = stored_bytes(backend, location) - before
                kb = grown / commits / 1024
                figures.append(
                    figure(
                        f"commit 1 entry into {size:,} entries (storage)",
                        samples,
                        COMMIT_TARGETS.get((backend, size)),
                        f"filled in {fill_s:.1f} s",
                    )
                )
                figures.append(
                    Figure(
                        f"  KB stored per 1-entry commit at {size:,}",
                        kb,
                        float("nan"),
                        BYTES_TARGET_KB,
                        "KB, not ms: revision row + new manifest pieces + entry version",
                    )
                )
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.storage", description=__doc__)
    parser.add_argument("--sizes", default="100,10000", help="memory sizes, comma-separated")
    parser.add_argument("--commits", type=int, default=30, help="timed commits per size")
    parser.add_argument("--backends", default=",".join(backends.BACKENDS))
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    chosen = [b for b in args.backends.split(",") if b]
    results: dict[str, list[Figure]] = {}

    with contextlib.ExitStack() as stack:
        server = stack.enter_context(backends.seekdb_server()) if "oceanbase" in chosen else None
        for backend in chosen:
            results[backend] = asyncio.run(run_storage(backend, server, sizes, args.commits))
            print_side_by_side(results)


if __name__ == "__main__":
    main()
