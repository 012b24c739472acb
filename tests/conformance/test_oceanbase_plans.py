"""OceanBase-only: a read of some memories' heads never scans the other memories' rows.

The engine plans with statistics gathered long before (a nightly window), so on a database
that has grown since, it took a full scan of memory_entry_heads (and of the versions joined
to it) as the cheap plan for one memory's rules, filtered rows, vector and token rows: cost
in proportion to the whole database. Each such statement names the (memory, entry) index
(OceanBaseStorage._heads_hint); here every one of them is captured from the adapter and
EXPLAINed on the engine itself.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

import numpy as np
import pytest

from powercontext_memory.app import open_service
from powercontext_memory.backends.port import HeadCondition
from powercontext_memory.embedding.minilm import MiniLMEmbedder
from powercontext_memory.memory import MemoryService

from ..oceanbase_server import fresh_database
from .flaky_model import FlakyModel
from .helpers import add, ref

KINDS = ("constraint", "preference", "working_note")


@pytest.fixture
async def service(oceanbase_server: str, minilm: MiniLMEmbedder) -> AsyncIterator[MemoryService]:
    async with fresh_database(oceanbase_server) as dsn:
        service = await open_service(dsn, embedding=FlakyModel(minilm))
        try:
            yield service
        finally:
            await service.close()


async def _memory(service: MemoryService, words: str) -> str:
    entries = [add(f"{words} {i}", kind) for i, kind in enumerate(("fact", *KINDS) * 3)]
    return ref(await service.remember(None, [], [], entries)).artifact_id


def _plan_problems(plan: Sequence[str]) -> list[str]:
    return [line for line in plan if "FULL SCAN" in line]


async def _explained(
    service: MemoryService, reads: Callable[[Any], Awaitable[object]]
) -> list[tuple[str, list[str]]]:
    """(statement, its plan's operator lines) for every statement `reads(tx)` sends."""
    async with service.backend.adapter.read() as tx:
        sent: list[tuple[str, Sequence[Any]]] = []
        run = tx._all

        async def recording(sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
            sent.append((sql, tuple(params)))
            return await run(sql, params)

        tx._all = recording
        await reads(tx)
        tx._all = run
        out = []
        for sql, params in sent:
            rows = await run("EXPLAIN " + sql, params)
            out.append((sql, [str(r[0]) for r in rows if str(r[0]).startswith("|")]))
        return out


async def test_one_memorys_reads_go_through_the_memory_index(service: MemoryService) -> None:
    memories = [await _memory(service, f"alpha{i} release checklist") for i in range(4)]
    target = memories[1]
    assert service.embedding is not None
    embedded = await service.embedding.embed(["release checklist"])
    query = np.asarray(embedded.vectors[0], dtype="<f4").tobytes()

    async def reads(tx: Any) -> None:
        assert len(await tx.head_rows_of_kinds([target], KINDS)) == 9
        eligible = await tx.eligible_entry_ids([target], HeadCondition(kinds=("constraint",)))
        assert len(eligible) == 3
        assert len(await tx.vector_rows(target, None)) == 12
        assert len(await tx.fts_rows(target)) == 12
        texts = await tx.head_text_rows(target, None)
        assert len(texts) == 12
        some = texts[:6]
        rules = sum(row.kind in KINDS for row in some)
        named = [row.entry_id for row in some]
        assert len(await tx.head_rows_of_kinds([target], KINDS, entry_ids=named)) == rules
        nearest = await tx.nearest_vectors([target], query, 5)
        assert {c.projection.memory_artifact_id for c in nearest} == {target}

    explained = await _explained(service, reads)
    assert len(explained) == 8  # the vector read's "how many rows" probe, then the read
    for sql, plan in explained:
        assert plan, sql
        assert _plan_problems(plan) == [], f"{sql}\n" + "\n".join(plan)


async def test_the_rules_join_reads_versions_by_key(service: MemoryService) -> None:
    target = await _memory(service, "beta build")

    async def reads(tx: Any) -> None:
        await tx.head_rows_of_kinds([target], KINDS)

    [(sql, plan)] = await _explained(service, reads)
    text = "\n".join(plan)
    assert "NESTED-LOOP JOIN" in text and "TABLE GET" in text, text
