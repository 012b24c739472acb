"""Bilingual retrieval quality: does the agent find the memory it wrote, asked in other words?

bench/data/retrieval_{en,zh}.jsonl hold 100 hand-written memories of a coding agent (build and
test conventions, decisions, preferences, pitfalls, operations, tooling; half English, half
Chinese) and 300 paraphrased queries that share few words with their entry: two in the entry's
language and one in the other language (cross-language). For each model a real `serve` process
holds one memory with all entries; every query is searched over gRPC in FTS, vector and hybrid
mode, and a query hits when its entry is in the top 5 / top 10.

Figures: search round trip per model and mode, with hit@5 / hit@10 (all, English queries,
Chinese queries, cross-language) in the note; the table printed alongside is the same data.
Run alone: python -m bench.retrieval [--models minilm,multilingual]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_memory.transport.server import MAX_MESSAGE_BYTES

from . import backends
from .calls import server_timing
from .report import Figure, figure
from .server import server_process

DATA = Path(__file__).parent / "data"
DATA_FILES = ("retrieval_en.jsonl", "retrieval_zh.jsonl")
MODELS = ("minilm", "multilingual")
MODES = {
    "fts": types.SEARCH_MODE_FTS,
    "vector": types.SEARCH_MODE_VECTOR,
    "hybrid": types.SEARCH_MODE_HYBRID,
}
GROUPS = ("all", "en", "zh", "cross")
DEPTH = 10


@dataclass(frozen=True)
class Query:
    text: str
    lang: str
    target: str  # the entry's text
    cross: bool  # asked in the other language than the entry's


@dataclass
class Outcome:
    """Ranks (1-based; 0 = not in the top DEPTH) and latencies of one model and mode."""

    ranks: dict[str, list[int]] = field(default_factory=lambda: {g: [] for g in GROUPS})
    latencies_ms: list[float] = field(default_factory=list)
    embed_ms: list[float] = field(default_factory=list)

    def add(self, query: Query, rank: int) -> None:
        self.ranks["all"].append(rank)
        self.ranks[query.lang].append(rank)
        if query.cross:
            self.ranks["cross"].append(rank)

    def hit_at(self, group: str, k: int) -> float:
        ranks = self.ranks[group]
        return sum(1 for r in ranks if 0 < r <= k) / len(ranks) if ranks else float("nan")


def load(data: Path = DATA) -> tuple[list[str], list[Query]]:
    """The entries' texts and every query, from the data files."""
    entries: list[str] = []
    queries: list[Query] = []
    for name in DATA_FILES:
        for line in (data / name).read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            record = json.loads(line)
            text, lang = record["text"], record["id"][:2]
            entries.append(text)
            for query_lang, texts in record["queries"].items():
                for query in texts:
                    queries.append(Query(query, query_lang, text, query_lang != lang))
    if len(set(entries)) != len(entries):
        raise ValueError("entry texts must be unique: a hit is recognised by its text")
    return entries, queries


async def _evaluate(
    stub: pb_grpc.MemoryServiceStub, entries: list[str], queries: list[Query]
) -> dict[str, Outcome]:
    created = await stub.Remember(
        pb.RememberRequest(entries=[types.EntryInput(kind="fact", text=t) for t in entries])
    )
    outcomes = {mode: Outcome() for mode in MODES}
    for mode, mode_value in MODES.items():
        outcome = outcomes[mode]
        for query in queries:
            request = pb.SearchRequest(
                query=query.text, memories=[created.memory], limit=DEPTH, mode=mode_value
            )
            started = time.perf_counter()
            call = stub.Search(request)
            response = await call
            outcome.latencies_ms.append((time.perf_counter() - started) * 1000)
            if mode != "fts":
                timing = server_timing(await call.trailing_metadata())
                outcome.embed_ms.append(timing.get("embed", 0.0))
            texts = [hit.text for hit in response.hits]
            outcome.add(query, texts.index(query.target) + 1 if query.target in texts else 0)
    return outcomes


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _note(outcome: Outcome, rss_mb: float) -> str:
    hits = " ".join(f"{g} {outcome.hit_at(g, 5):.2f}/{outcome.hit_at(g, 10):.2f}" for g in GROUPS)
    embed = ""
    if outcome.embed_ms:
        embed = f"; query embed p50 {sorted(outcome.embed_ms)[len(outcome.embed_ms) // 2]:.1f} ms"
    return f"hit@5/hit@10 {hits}{embed}; server RSS {rss_mb:.0f} MB"


def table(results: dict[str, dict[str, Outcome]]) -> str:
    """hit@5 / hit@10 per model, mode and query group, as aligned text."""
    header = f"{'model':<13}{'mode':<8}" + "".join(f"{g + ' @5/@10':>16}" for g in GROUPS)
    lines = [header]
    for model, outcomes in results.items():
        for mode, outcome in outcomes.items():
            cells = "".join(
                f"{outcome.hit_at(g, 5):>10.2f}/{outcome.hit_at(g, 10):.2f}" for g in GROUPS
            )
            lines.append(f"{model:<13}{mode:<8}{cells}")
    return "\n".join(lines)


async def run_retrieval(
    backend: str = "sqlite",
    server: str | None = None,
    models: tuple[str, ...] = MODELS,
    data: Path = DATA,
) -> list[Figure]:
    entries, queries = load(data)
    figures: list[Figure] = []
    results: dict[str, dict[str, Outcome]] = {}
    options = [("grpc.max_receive_message_length", MAX_MESSAGE_BYTES)]
    for model in models:
        with tempfile.TemporaryDirectory(prefix="pcmem-bench-retrieval-") as tmp:
            name = f"pcm_retrieval_{model}"
            async with backends.database(backend, Path(tmp), server, name) as location:
                with server_process(location, "--embedding", model) as served:
                    async with grpc.aio.insecure_channel(
                        f"127.0.0.1:{served.port}", options=options
                    ) as ch:
                        outcomes = await _evaluate(pb_grpc.MemoryServiceStub(ch), entries, queries)
                    rss = _rss_mb(served.pid)
        results[model] = outcomes
        for mode, outcome in outcomes.items():
            figures.append(
                figure(
                    f"retrieval {model} {mode} search ({len(queries)} queries, "
                    f"{len(entries)} entries)",
                    outcome.latencies_ms,
                    None,
                    _note(outcome, rss),
                )
            )
    print(f"bilingual retrieval, {len(queries)} queries over {len(entries)} entries")
    print(table(results))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated")
    parser.add_argument("--backend", choices=("sqlite", "oceanbase"), default="sqlite")
    parser.add_argument("--server", help="OceanBase DSN for --backend oceanbase")
    args = parser.parse_args()
    figures = asyncio.run(run_retrieval(args.backend, args.server, tuple(args.models.split(","))))
    for f in figures:
        print(f"{f.name}: p50 {f.median_ms:.1f} ms, p95 {f.p95_ms:.1f} ms — {f.note}")


if __name__ == "__main__":
    main()
