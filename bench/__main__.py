"""`make bench`: commit cost by memory size and full-text search latency, over real gRPC, on
each backend side by side.

Every figure is measured end to end: this process is a grpc.aio client on a real channel to a
server started as its own process (`python -m powercontext_memory serve`) on 127.0.0.1, over a
real SQLite file in a temporary directory or a database on a seekdb (OceanBase) server the
bench starts on 127.0.0.1. Medians over repeated runs; the targets are docs/performance.md's (2-core
machine).
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

from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_memory.transport.server import MAX_MESSAGE_BYTES

from . import backends
from .calls import commit_latencies, fill_memory, search_latencies
from .clients import run_clients
from .context import run_context
from .corpus import Corpus
from .hooks import run_hooks
from .report import Figure, figure
from .server import server_process
from .side_by_side import print_side_by_side
from .targets import print_targets


async def run(
    backend: str,
    server: str | None,
    sizes: list[int],
    commits: int,
    searches: int,
    clients: bool = False,
    context_size: int = 0,
) -> list[Figure]:
    figures: list[Figure] = []
    corpus = Corpus(random.Random(20261130))
    with tempfile.TemporaryDirectory(prefix="pcmem-bench-") as tmp:
        options = [("grpc.max_receive_message_length", MAX_MESSAGE_BYTES)]
        async with backends.database(backend, Path(tmp), server, "pcm_bench") as location:
            # No model: commit and full-text figures are the storage's and the engine's own.
            with server_process(location, "--embedding", "none") as served:
                async with grpc.aio.insecure_channel(
                    f"127.0.0.1:{served.port}", options=options
                ) as ch:
                    stub = pb_grpc.MemoryServiceStub(ch)
                    for size in sizes:
                        found, _ = await _size_scenario(stub, corpus, size, commits, searches)
                        figures += found
                    if context_size:
                        figures += await run_context(stub, corpus, context_size, searches)
                    if clients:  # agent hooks: a process per event, like the hosts run them
                        figures += await run_hooks(stub, corpus, served.port)
                if clients:  # the clients' own cost does not depend on the backend
                    figures += await run_clients(served.port)
    return figures


async def _size_scenario(
    stub: pb_grpc.MemoryServiceStub, corpus: Corpus, size: int, commits: int, searches: int
) -> tuple[list[Figure], types.ArtifactRef]:
    started = time.perf_counter()
    memory = await fill_memory(stub, corpus, size)
    fill_s = time.perf_counter() - started
    samples, memory = await commit_latencies(stub, corpus, memory, commits)
    commit = figure(
        f"commit 1 entry into {size:,} entries",
        samples,
        {1000: 10.0, 10000: 60.0}.get(size),
        f"filled in {fill_s:.1f} s",
    )
    queries = corpus.queries(searches)
    await search_latencies(stub, memory, queries[:5])  # warm the cache
    samples, mean_hits = await search_latencies(stub, memory, queries)
    search = figure(
        f"FTS search over gRPC at {size:,} entries",
        samples,
        5.0 if size == 10000 else None,
        f"mean hits {mean_hits:.1f}",
    )
    return [commit, search], memory


def main() -> None:
    parser = argparse.ArgumentParser(prog="make bench", description=__doc__)
    parser.add_argument("--sizes", default="1000,10000", help="memory sizes, comma-separated")
    parser.add_argument("--commits", type=int, default=40, help="single-entry commits per size")
    parser.add_argument("--searches", type=int, default=200, help="search queries per size")
    parser.add_argument(
        "--backends", default=",".join(backends.BACKENDS), help="sqlite,oceanbase or one of them"
    )
    parser.add_argument(
        "--no-clients",
        dest="clients",
        action="store_false",
        help="skip the client figures (Python client overhead, `powercontext search` wall time)",
    )
    parser.add_argument(
        "--hybrid-size",
        type=int,
        default=10_000,
        help="entries for the hybrid scenario on the real multilingual model (0 skips it; "
        "--large makes it 100,000)",
    )
    parser.add_argument(
        "--large",
        action="store_true",
        help="add the 100,000-entry scenarios (commit and bytes per commit, FTS, hybrid, RSS): "
        "about 30 more minutes on 2 cores",
    )
    parser.add_argument(
        "--storage-sizes",
        default="100,10000",
        help="memory sizes of the commit-cost and bytes-per-commit scenario (bench/storage.py; "
        "empty skips it)",
    )
    parser.add_argument(
        "--no-retrieval",
        dest="retrieval",
        action="store_false",
        help="skip the bilingual retrieval figures (bench/retrieval.py, first backend only)",
    )
    parser.add_argument(
        "--no-conversations",
        dest="conversations",
        action="store_false",
        help="skip the conversational retrieval figures (bench/conversations.py, first backend "
        "only)",
    )
    parser.add_argument(
        "--history-revisions",
        type=int,
        default=1500,
        help="revisions of the history-replay scenario on SQLite, revision k holding k entries "
        "(bench/history.py; 0 skips it)",
    )
    parser.add_argument(
        "--history-streams",
        type=int,
        default=100,
        help="concurrent `Changes since 0` streams of the history-replay scenario",
    )
    parser.add_argument(
        "--follow-commits",
        type=int,
        default=40,  # spaced by up to one poll interval: 100 made this scenario ~17 minutes
        help="commits per setup of the follow delivery scenario (another worker, another "
        "server; commit signals on and off: bench/follow.py; 0 skips it)",
    )
    parser.add_argument(
        "--context-size",
        type=int,
        default=1000,
        help="entries of the PrepareContext scenario's memory (bench/context.py; 0 skips it)",
    )
    parser.add_argument(
        "--throughput-searches",
        type=int,
        default=1000,  # fewer end a level too soon to be steady (the rates bench/load.py prints)
        help="searches per concurrency level (1, 4, 16) of the throughput scenario "
        "(bench/throughput.py; 0 skips it)",
    )
    parser.add_argument(
        "--throughput-size",
        type=int,
        default=0,
        help="entries of the throughput scenario's memory (default: the largest --sizes, "
        "at most 10,000)",
    )
    parser.add_argument(
        "--throughput-modes", default="fts,hybrid", help="search modes of the throughput scenario"
    )
    parser.add_argument(
        "--workers",
        default="1,2",
        help="`serve --workers N` counts the throughput scenario compares, comma-separated",
    )
    parser.add_argument(
        "--client-processes",
        type=int,
        default=2,
        help="load generator processes of the throughput scenario (bench/load.py)",
    )
    parser.add_argument(
        "--http-door-size",
        type=int,
        default=10_000,
        help="entries of the Search over gRPC vs over the HTTP door scenario (bench/http_door.py, "
        "SQLite only; 0 skips it)",
    )
    parser.add_argument(
        "--no-secrets",
        dest="secrets",
        action="store_false",
        help="skip the secret guard figures (own rules vs detect-secrets, bench/secrets.py)",
    )
    parser.add_argument(
        "--no-bootstrap",
        dest="bootstrap",
        action="store_false",
        help="skip the bootstrap quality figures (truth sets of real repositories, "
        "bench/bootstrap.py)",
    )
    parser.add_argument(
        "--no-session-notes",
        dest="session_notes",
        action="store_false",
        help="skip the scripted 10-turn session through the hooks (bench/session_notes.py)",
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    storage_sizes = [int(s) for s in args.storage_sizes.split(",") if s]
    if args.large:
        sizes = sorted({*sizes, 100_000})
        storage_sizes = sorted({*storage_sizes, 100_000})
        args.hybrid_size = 100_000
    chosen = [b for b in args.backends.split(",") if b]
    unknown = set(chosen) - set(backends.BACKENDS)
    if unknown:
        parser.error(f"unknown backend(s): {', '.join(sorted(unknown))}")
    if args.secrets:  # no server needed: first, and printed at once
        from .secrets import run as run_secrets

        run_secrets()
    if args.bootstrap:  # no server needed either: the adapters run in process
        from .bootstrap import run as run_bootstrap

        run_bootstrap()
    if args.session_notes:  # its own server: printed at once
        from .session_notes import ROOT, report
        from .session_notes import run as run_session

        report(run_session(ROOT))
    results: dict[str, list[Figure]] = {}
    with contextlib.ExitStack() as stack:
        server = stack.enter_context(backends.seekdb_server()) if "oceanbase" in chosen else None
        for backend in chosen:
            clients = args.clients and backend == chosen[0]
            results[backend] = []
            if storage_sizes:
                from .storage import run_storage

                results[backend] += asyncio.run(run_storage(backend, server, storage_sizes))
            results[backend] += asyncio.run(
                run(
                    backend,
                    server,
                    sizes,
                    args.commits,
                    args.searches,
                    clients,
                    args.context_size,
                )
            )
            if args.throughput_searches:
                from .throughput import run_throughput

                results[backend] += asyncio.run(
                    run_throughput(
                        backend,
                        server,
                        args.throughput_size or min(sizes[-1], 10_000),
                        args.throughput_searches,
                        [int(w) for w in args.workers.split(",") if w],
                        [m for m in args.throughput_modes.split(",") if m],
                        args.client_processes,
                    )
                )
            if backend == "sqlite" and args.http_door_size:
                from .http_door import run_http_door

                results[backend] += asyncio.run(run_http_door(args.http_door_size, args.searches))
            if backend == "sqlite" and args.history_revisions:
                from .history import run_history

                results[backend] += asyncio.run(
                    run_history(args.history_revisions, args.history_streams)
                )
            if args.follow_commits:
                from .follow import run_follow

                results[backend] += asyncio.run(run_follow(backend, server, args.follow_commits))
            if args.hybrid_size:
                from .hybrid import run_hybrid

                results[backend] += asyncio.run(
                    run_hybrid(backend, server, args.hybrid_size, args.searches)
                )
            if args.retrieval and backend == chosen[0]:
                from .retrieval import run_retrieval

                results[backend] += asyncio.run(run_retrieval(backend, server))
            if args.conversations and backend == chosen[0]:
                from .conversations import run_conversations

                results[backend] += asyncio.run(run_conversations(backend, server))
            print_side_by_side(results)  # after each backend: a long run shows progress
    print_targets(results)


if __name__ == "__main__":
    main()
