"""Conversational retrieval: does Search find the turn of a long chat that answers a question?

The truth set was written on 2026-12-05, before anyone tuned retrieval against it; its questions
and their evidence must not change once tuning starts (a tuned figure is only honest on questions
the tuning did not shape). bench/data/conversations_{en,zh}.jsonl, built by
bench/conversation_data.py from the hand-written scripts bench/data/conversations_script_*.txt:
8 conversations (4 English, 4 Chinese; per language two multi-session chats between two people
and two coding-agent session logs), each 320-360 turns over nine dated sessions, every turn
stored as it reads, "[2023-05-08] Maria: ..." (Chinese "[2023-03-12] 小雨：..."). Among the
hand-written turns, filler drawn from templates (a third of its turns two sentences long)
mentions the same people, places, files and commands as the answers. 431 questions (217
English, 214 Chinese), each naming one or two evidence turns and tagged single-hop, temporal
(when), multi-hop (two evidence turns), paraphrase (few words shared with the answer) or keyword
(asked in the answer's own words).

For each model a real `serve` process holds one memory per conversation, a turn an entry of kind
"note"; every question is searched over gRPC in its own conversation's memory in FTS, vector and
hybrid mode, once with limit 10 (timed: hit@5, hit@10 and the round trip, which includes the
server's query embedding) and once with limit 32 (hit@32: how near a miss is). A question hits
at k when one of its evidence turns is among the first k hits.

Run alone: python -m bench.conversations [--models multilingual,minilm] [--modes fts,vector,hybrid]
A tuning script compares configurations with `question_ranks` (per question and mode).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import grpc

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_memory.transport.server import MAX_MESSAGE_BYTES

from . import backends
from .calls import server_timing
from .report import Figure, figure, percentile
from .server import server_process

DATA = Path(__file__).parent / "data"
LANGUAGES = ("en", "zh")
KINDS = ("chat", "agent")
TYPES = ("single-hop", "temporal", "multi-hop", "paraphrase", "keyword")
MODELS = ("multilingual", "minilm")
MODES = {
    "fts": types.SEARCH_MODE_FTS,
    "vector": types.SEARCH_MODE_VECTOR,
    "hybrid": types.SEARCH_MODE_HYBRID,
}
DEPTH = 10  # the limit of the timed search: what an agent reads
DEEP = 32  # the limit of the second search: how far a miss is
BATCH = 200  # turns per Remember (the API takes up to 1,000)
ENTRY_KIND = "note"


@dataclass(frozen=True)
class Question:
    id: str
    conversation: str
    lang: str
    kind: str  # the conversation's: chat or agent
    type: str
    text: str
    evidence: tuple[str, ...]  # turn ids


@dataclass(frozen=True)
class Conversation:
    id: str
    lang: str
    kind: str
    turns: tuple[tuple[str, str], ...]  # (turn id, stored text)
    questions: tuple[Question, ...]


@dataclass(frozen=True)
class Ranked:
    """One question searched in one mode: 1-based rank of its best evidence turn, 0 = absent."""

    question: Question
    mode: str
    rank: int  # in the limit-10 answer
    deep_rank: int  # in the limit-32 answer
    latency_ms: float  # round trip of the limit-10 search
    embed_ms: float | None  # the server's query embedding, from its timing trailer

    def hit(self, k: int) -> bool:
        rank = self.rank if k <= DEPTH else self.deep_rank
        return 0 < rank <= k


def load(data: Path = DATA) -> list[Conversation]:
    """Every conversation of both languages, checked: unknown records, duplicate ids and
    evidence naming no turn of its conversation are refused (ValueError)."""
    conversations: list[Conversation] = []
    for lang in LANGUAGES:
        path = data / f"conversations_{lang}.jsonl"
        lines = path.read_text(encoding="utf-8").splitlines()
        conversations += _parse(lang, [json.loads(line) for line in lines if line.strip()])
    _check_unique([c.id for c in conversations], "conversation")
    _check_unique([t for c in conversations for t, _ in c.turns], "turn")
    _check_unique([q.id for c in conversations for q in c.questions], "question")
    return conversations


def _parse(lang: str, records: list[dict[str, object]]) -> list[Conversation]:
    headers: dict[str, str] = {}  # id -> kind, in file order
    turns: dict[str, list[tuple[str, str]]] = {}
    questions: dict[str, list[Question]] = {}
    for record in records:
        name = str(record["conversation"])
        if "speakers" in record:
            if str(record["kind"]) not in KINDS:
                raise ValueError(f"{name}: unknown kind {record['kind']!r}")
            headers[name] = str(record["kind"])
            turns[name], questions[name] = [], []
        elif name not in headers:
            raise ValueError(f"{name}: a record before the conversation's header")
        elif "text" in record:
            turns[name].append((str(record["id"]), str(record["text"])))
        elif "question" in record:
            evidence = record["evidence"]
            if not isinstance(evidence, list) or not 1 <= len(evidence) <= 2:
                raise ValueError(f"{record['id']}: evidence must name one or two turns")
            if str(record["type"]) not in TYPES:
                raise ValueError(f"{record['id']}: unknown type {record['type']!r}")
            question = Question(
                str(record["id"]),
                name,
                lang,
                headers[name],
                str(record["type"]),
                str(record["question"]),
                tuple(str(e) for e in evidence),
            )
            questions[name].append(question)
        else:
            raise ValueError(f"{name}: a record that is neither header, turn nor question")
    conversations = []
    for name, kind in headers.items():
        known = {turn_id for turn_id, _ in turns[name]}
        for question in questions[name]:
            missing = [e for e in question.evidence if e not in known]
            if missing:
                raise ValueError(f"{question.id}: evidence {missing} is no turn of {name}")
        conversations.append(
            Conversation(name, lang, kind, tuple(turns[name]), tuple(questions[name]))
        )
    return conversations


def _check_unique(ids: list[str], what: str) -> None:
    if len(set(ids)) != len(ids):
        duplicated = sorted({i for i in ids if ids.count(i) > 1})
        raise ValueError(f"duplicate {what} ids: {duplicated[:5]}")


async def _remember(
    stub: pb_grpc.MemoryServiceStub, conversation: Conversation
) -> tuple[types.ArtifactRef, dict[str, str]]:
    """The conversation's memory, a turn an entry, and which turn each entry id holds."""
    memory: types.ArtifactRef | None = None
    turn_of: dict[str, str] = {}
    for start in range(0, len(conversation.turns), BATCH):
        batch = conversation.turns[start : start + BATCH]
        request = pb.RememberRequest(
            entries=[types.EntryInput(kind=ENTRY_KIND, text=text) for _, text in batch],
            mode=pb.REMEMBER_MODE_APPEND,
        )
        if memory is not None:
            request.memory.CopyFrom(memory)
        response = await stub.Remember(request)
        for (turn_id, _), result in zip(batch, response.results, strict=True):
            if result.outcome != pb.ENTRY_OUTCOME_ADDED:
                raise RuntimeError(f"{turn_id} was not added: {result.outcome}")
            turn_of[result.entry_id] = turn_id
        memory = response.memory
    assert memory is not None
    return memory, turn_of


async def _search(
    stub: pb_grpc.MemoryServiceStub,
    memory: types.ArtifactRef,
    query: str,
    mode: str,
    limit: int,
) -> tuple[list[str], float, float | None]:
    """The hits' entry ids, the round trip in ms and the server's embedding ms."""
    request = pb.SearchRequest(query=query, memories=[memory], limit=limit, mode=MODES[mode])
    started = time.perf_counter()
    call = stub.Search(request)
    response = await call
    elapsed = (time.perf_counter() - started) * 1000
    embed = None
    if mode != "fts":
        embed = server_timing(await call.trailing_metadata()).get("embed", 0.0)
    return [hit.entry_id for hit in response.hits], elapsed, embed


def _best_rank(entry_ids: list[str], turn_of: Mapping[str, str], evidence: Sequence[str]) -> int:
    ranks = [i + 1 for i, e in enumerate(entry_ids) if turn_of.get(e) in evidence]
    return min(ranks) if ranks else 0


async def _evaluate(
    stub: pb_grpc.MemoryServiceStub, conversations: list[Conversation], modes: Sequence[str]
) -> list[Ranked]:
    stored = [(c, *await _remember(stub, c)) for c in conversations]
    ranked: list[Ranked] = []
    for mode in modes:
        for conversation, memory, turn_of in stored:
            # One untimed search per memory and mode: the first one loads its indexes.
            await _search(stub, memory, "warm up", mode, DEPTH)
            for question in conversation.questions:
                hits, elapsed, embed = await _search(stub, memory, question.text, mode, DEPTH)
                deep, _, _ = await _search(stub, memory, question.text, mode, DEEP)
                rank = _best_rank(hits, turn_of, question.evidence)
                deep_rank = _best_rank(deep, turn_of, question.evidence)
                ranked.append(Ranked(question, mode, rank, deep_rank, elapsed, embed))
    return ranked


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def measure(
    model: str,
    modes: Sequence[str] = tuple(MODES),
    backend: str = "sqlite",
    server: str | None = None,
    data: Path = DATA,
    serve_args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
) -> tuple[list[Ranked], float]:
    """Every question in every mode against a fresh server of this model (extra `serve` flags
    and environment allowed, for tuning), and the server's RSS in MB at the end."""
    conversations = load(data)
    options = [("grpc.max_receive_message_length", MAX_MESSAGE_BYTES)]
    with tempfile.TemporaryDirectory(prefix="pcmem-bench-conversations-") as tmp:
        name = f"pcm_conversations_{model}"
        async with backends.database(backend, Path(tmp), server, name) as location:
            extra = ("--embedding", model, *serve_args)
            with server_process(location, *extra, env=env) as served:
                address = f"127.0.0.1:{served.port}"
                async with grpc.aio.insecure_channel(address, options=options) as channel:
                    stub = pb_grpc.MemoryServiceStub(channel)
                    ranked = await _evaluate(stub, conversations, modes)
                return ranked, _rss_mb(served.pid)


def question_ranks(
    model: str,
    modes: Sequence[str] = tuple(MODES),
    serve_args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
) -> dict[tuple[str, str], tuple[int, int]]:
    """(question id, mode) -> (rank in the top 10, rank in the top 32), 0 = not found: what a
    tuning script compares between configurations (SQLite, a fresh server each call)."""
    ranked, _ = asyncio.run(measure(model, modes, serve_args=serve_args, env=env))
    return {(r.question.id, r.mode): (r.rank, r.deep_rank) for r in ranked}


def hit_rate(ranked: Sequence[Ranked], k: int, keep: Callable[[Ranked], bool]) -> float:
    chosen = [r for r in ranked if keep(r)]
    return sum(r.hit(k) for r in chosen) / len(chosen) if chosen else float("nan")


def _of_type(kind: str) -> Callable[[Ranked], bool]:
    return lambda r: r.question.type == kind


GROUPS: dict[str, Callable[[Ranked], bool]] = {
    "all": lambda r: True,
    "en": lambda r: r.question.lang == "en",
    "zh": lambda r: r.question.lang == "zh",
    "chat": lambda r: r.question.kind == "chat",
    "agent": lambda r: r.question.kind == "agent",
}
BY_TYPE = {kind: _of_type(kind) for kind in TYPES}
_CELL = 21


def _cell(rows: Sequence[Ranked], keep: Callable[[Ranked], bool]) -> str:
    rates = (hit_rate(rows, k, keep) for k in (5, DEPTH, DEEP))
    return "/".join(f"{rate:.2f}" for rate in rates).rjust(_CELL)


def _block(
    results: Mapping[str, Sequence[Ranked]],
    groups: Mapping[str, Callable[[Ranked], bool]],
    latency: bool,
) -> list[str]:
    header = f"{'model':<13}{'mode':<8}" + "".join(
        f"{name} @5/10/32".rjust(_CELL) for name in groups
    )
    lines = [header + (f"{'p50 ms':>9}{'p99 ms':>9}" if latency else "")]
    for model, ranked in results.items():
        for mode in dict.fromkeys(r.mode for r in ranked):
            rows = [r for r in ranked if r.mode == mode]
            line = f"{model:<13}{mode:<8}" + "".join(_cell(rows, k) for k in groups.values())
            if latency:
                samples = [r.latency_ms for r in rows]
                line += f"{percentile(samples, 0.5):>9.1f}{percentile(samples, 0.99):>9.1f}"
            lines.append(line)
    return lines


def table(results: Mapping[str, Sequence[Ranked]]) -> str:
    """hit@5/@10/@32 per model and mode by language and conversation kind, with the round
    trip's p50 / p99; then the same hit rates by question type."""
    lines = _block(results, GROUPS, latency=True)
    lines += ["", "by question type", *_block(results, BY_TYPE, latency=False)]
    return "\n".join(lines)


def _note(rows: Sequence[Ranked], rss_mb: float) -> str:
    hits = " ".join(
        f"{g} {hit_rate(rows, 5, keep):.2f}/{hit_rate(rows, 10, keep):.2f}"
        f"/{hit_rate(rows, DEEP, keep):.2f}"
        for g, keep in GROUPS.items()
        if g in ("all", "en", "zh")
    )
    embeds = [r.embed_ms for r in rows if r.embed_ms is not None]
    embed = f"; query embed p50 {percentile(embeds, 0.5):.1f} ms" if embeds else ""
    return f"hit@5/@10/@32 {hits}{embed}; server RSS {rss_mb:.0f} MB"


async def run_conversations(
    backend: str = "sqlite",
    server: str | None = None,
    models: Sequence[str] = MODELS,
    modes: Sequence[str] = tuple(MODES),
    data: Path = DATA,
) -> list[Figure]:
    """Figures per model and mode (search round trip, hit rates in the note); prints the table."""
    conversations = load(data)
    questions = sum(len(c.questions) for c in conversations)
    turns = sum(len(c.turns) for c in conversations)
    figures: list[Figure] = []
    results: dict[str, list[Ranked]] = {}
    for model in models:
        ranked, rss = await measure(model, modes, backend, server, data)
        results[model] = ranked
        for mode in modes:
            rows = [r for r in ranked if r.mode == mode]
            figures.append(
                figure(
                    f"conversations {model} {mode} search ({questions} questions, "
                    f"{len(conversations)} memories of {turns} turns)",
                    [r.latency_ms for r in rows],
                    None,
                    _note(rows, rss),
                )
            )
    print(f"conversational retrieval, {questions} questions over {len(conversations)} memories")
    print(table(results))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated")
    parser.add_argument("--backend", choices=("sqlite", "oceanbase"), default="sqlite")
    parser.add_argument("--server", help="OceanBase DSN for --backend oceanbase")
    args = parser.parse_args()
    modes = [m for m in args.modes.split(",") if m]
    unknown = set(modes) - set(MODES)
    if unknown:
        parser.error(f"unknown mode(s): {', '.join(sorted(unknown))}")
    models = tuple(m for m in args.models.split(",") if m)
    figures = asyncio.run(run_conversations(args.backend, args.server, models, modes))
    for f in figures:
        print(f"{f.name}: p50 {f.median_ms:.1f} ms, p99 {f.p99_ms:.1f} ms — {f.note}")


if __name__ == "__main__":
    main()
