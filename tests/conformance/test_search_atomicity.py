"""Search (full text) semantics, atomic commits and compare-and-swap under concurrency."""

from __future__ import annotations

import asyncio

import pytest
import sqlean

from powercontext_memory.api import SearchMode
from powercontext_memory.domain.errors import (
    CapabilityNotSupportedError,
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
    RevisionConflictError,
)
from powercontext_memory.domain.models import ArtifactRef
from powercontext_memory.memory import MemoryService

from .conftest import Harness
from .helpers import WorkedExample, add, create, ref

CHINESE_QUERY = "修改文档前需要知道哪些构建和验证约定？"


async def test_chinese_query_finds_validation_convention(service: MemoryService) -> None:
    ex = await WorkedExample().run(service)
    result = await service.search(CHINESE_QUERY, [ref(ex.r3)], 8, SearchMode.FTS)
    ids = [h.entry_id for h in result.hits]
    assert ex.validation.entry_id in ids and ex.site.entry_id not in ids
    hit = result.hits[ids.index(ex.validation.entry_id)]
    assert hit.entry_version_id == ex.validation_v2.entry_version_id
    assert "make docs-test" in hit.text and hit.matched_by == ("fts",)
    assert hit.memory_ref == ref(ex.r3)
    assert result.mode is SearchMode.FTS


async def test_deactivated_entry_is_not_found_even_by_its_own_words(
    service: MemoryService,
) -> None:
    ex = await WorkedExample().run(service)
    result = await service.search("site/ 是生成输出", [ref(ex.r3)], 8, SearchMode.FTS)
    assert ex.site.entry_id not in [h.entry_id for h in result.hits]


async def test_auto_runs_fts_and_says_so(service: MemoryService) -> None:
    r1 = await create(service, "the deploy script lives in tools")
    result = await service.search("deploy script", [ref(r1)], 8, SearchMode.AUTO)
    assert result.mode is SearchMode.FTS and result.fallback_reason
    assert len(result.hits) == 1 and result.hits[0].score == pytest.approx(1 / 61)


async def test_explicit_vector_or_hybrid_is_a_capability_error(service: MemoryService) -> None:
    r1 = await create(service, "anything")
    for mode in (SearchMode.VECTOR, SearchMode.HYBRID):
        with pytest.raises(CapabilityNotSupportedError):
            await service.search("anything", [ref(r1)], 8, mode)


async def test_search_several_memories_and_duplicates(service: MemoryService) -> None:
    a = await create(service, "postgres runs on port 5433 locally")
    b = await create(service, "postgres migrations use alembic")
    result = await service.search("postgres", [ref(a), ref(b), ref(a)], 8, SearchMode.FTS)
    assert sorted(h.memory_ref.artifact_id for h in result.hits) == sorted(
        [ref(a).artifact_id, ref(b).artifact_id]
    )
    scores = [h.score for h in result.hits]
    assert scores == sorted(scores, reverse=True)


async def test_non_head_memory_is_refused_not_reinterpreted(service: MemoryService) -> None:
    r1 = await create(service, "first fact")
    r2 = await service.remember(ref(r1), [], [], [add("second fact")])
    with pytest.raises(FailedPreconditionError) as err:
        await service.search("fact", [ref(r1)], 8, SearchMode.FTS)
    assert err.value.reason == "MEMORY_NOT_AT_HEAD"
    assert err.value.metadata["headRevision"] == str(ref(r2).revision)
    with pytest.raises(NotFoundError):
        await service.search("fact", [ArtifactRef("mem_art_" + "0" * 32, 1)], 8, SearchMode.FTS)


async def test_revision_zero_searches_the_head_and_the_result_names_it(
    service: MemoryService,
) -> None:
    r1 = await create(service, "first fact about caching")
    r2 = await service.remember(ref(r1), [], [], [add("second fact about caching")])
    other = await create(service, "a fact elsewhere about caching")
    now = ArtifactRef(ref(r1).artifact_id, 0)
    result = await service.search("caching fact", [now, ref(other), ref(r2)], 8, SearchMode.FTS)
    assert result.memories == [ref(r2), ref(other)]  # 0 resolved; the duplicate removed
    assert {h.memory_ref for h in result.hits} == {ref(r2), ref(other)}
    assert len(result.hits) == 3
    with pytest.raises(NotFoundError) as missing:
        await service.search("fact", [ArtifactRef("mem_art_" + "0" * 32, 0)], 8, SearchMode.FTS)
    assert missing.value.reason == "MEMORY_NOT_FOUND"
    assert missing.value.metadata["field"] == "memories[0]"


async def test_search_input_errors(service: MemoryService) -> None:
    r1 = await create(service, "x marks the spot")
    cases = [
        ("", [ref(r1)], 8, "query"),
        ("？！", [ref(r1)], 8, "query"),
        ("x", [], 8, "memories"),
        ("x", [ref(r1)], 101, "limit"),
        ("x", [ref(r1)], -1, "limit"),
        ("x", [ArtifactRef(ref(r1).artifact_id, -1)], 8, "memories[0].revision"),
    ]
    for query, memories, limit, field in cases:
        with pytest.raises(InvalidArgumentError) as err:
            await service.search(query, memories, limit, SearchMode.FTS)
        assert err.value.field == field


async def test_user_text_never_reaches_match_syntax(service: MemoryService) -> None:
    r1 = await create(service, 'quote " and NEAR( and OR and * and col:umn are plain text')
    for query in ["NEAR(", "a OR", "col:umn", "x AND NOT y", "^start", "plain*"]:
        await service.search(query, [ref(r1)], 8, SearchMode.FTS)  # must not raise
    for query in ['"', "*", "(", "^"]:
        with pytest.raises(InvalidArgumentError):  # no terms at all: a typed error, not a crash
            await service.search(query, [ref(r1)], 8, SearchMode.FTS)
    result = await service.search('NEAR( OR "', [ref(r1)], 8, SearchMode.FTS)
    assert len(result.hits) == 1


async def test_admission_refuses_weak_matches(service: MemoryService) -> None:
    r1 = await create(service, "alpha beta gamma delta", "alpha only here")
    # 4 distinct terms -> 2 must match; "alpha only here" matches just one.
    result = await service.search("alpha beta epsilon zeta", [ref(r1)], 8, SearchMode.FTS)
    assert [h.text for h in result.hits] == ["alpha beta gamma delta"]


async def test_stale_projection_row_is_filtered_by_the_manifest(harness: Harness) -> None:
    service = harness.service
    assert service is not None
    r1 = await create(service, "ghost entry text", "real entry text")
    # Simulate a projection that disagrees with the manifest: point a head row at a fake version.
    harness.tamper.execute(
        "UPDATE memory_entry_heads SET entry_content_hash = ? WHERE searchable_text LIKE 'ghost%'",
        ("0" * 64,),
    )
    result = await service.search("entry text", [ref(r1)], 8, SearchMode.FTS)
    assert [h.text for h in result.hits] == ["real entry text"]


@pytest.mark.parametrize("step", ["revision", "head", "versions", "projection"])
async def test_failure_inside_commit_leaves_nothing(harness: Harness, step: str) -> None:
    service = harness.service
    assert service is not None
    r1 = await create(service, "base entry")
    counts_before = _counts(harness)
    harness.fail_at = step
    with pytest.raises(RuntimeError):
        await service.remember(ref(r1), [], [], [add("new entry words")])
    harness.fail_at = None
    assert _counts(harness) == counts_before
    view = await service.get_memory(ArtifactRef(ref(r1).artifact_id, 0))
    assert view.head_revision == 1
    assert (await service.search("new entry words", [ref(r1)], 8, SearchMode.FTS)).hits == []
    r2 = await service.remember(ref(r1), [], [], [add("new entry words")])
    assert ref(r2).revision == 2
    with pytest.raises(RuntimeError):
        harness.fail_at = step
        await service.remember(None, [], [], [add("brand new memory")])
    harness.fail_at = None
    assert harness.tamper.scalar("SELECT count(*) FROM artifact_heads") == 1


def _counts(harness: Harness) -> tuple[int, ...]:
    tables = ["artifact_revisions", "artifact_heads", "memory_entry_versions", "memory_entry_heads"]
    counts = [harness.tamper.scalar(f"SELECT count(*) FROM {t}") for t in tables]
    return (*counts, harness.tamper.fulltext_rows())


async def test_two_writers_on_one_base_exactly_one_wins(service: MemoryService) -> None:
    r1 = await create(service, "base")
    outcomes = await asyncio.gather(
        service.remember(ref(r1), [], [], [add("writer one")]),
        service.remember(ref(r1), [], [], [add("writer two")]),
        return_exceptions=True,
    )
    wins = [o for o in outcomes if not isinstance(o, BaseException)]
    losses = [o for o in outcomes if isinstance(o, BaseException)]
    assert len(wins) == 1 and len(losses) == 1
    assert isinstance(losses[0], RevisionConflictError)
    view = await service.get_memory(ArtifactRef(ref(r1).artifact_id, 0))
    assert view.head_revision == 2 and len(view.revision.content.entries) == 2


async def test_two_services_on_one_database_race_and_one_wins(harness: Harness) -> None:
    """Two independent services (as two server processes) share only the database: no
    process-wide lock helps them, so the storage's own head check and CAS must."""
    from powercontext_memory.app import open_service

    first = harness.service
    assert first is not None
    second = await open_service(harness.location)
    try:
        base = ref(await create(first, "base"))
        for round_number in range(5):
            outcomes = await asyncio.gather(
                first.remember(base, [], [], [add(f"first, round {round_number}")]),
                second.remember(base, [], [], [add(f"second, round {round_number}")]),
                return_exceptions=True,
            )
            wins = [o for o in outcomes if not isinstance(o, BaseException)]
            losses = [o for o in outcomes if isinstance(o, BaseException)]
            assert len(wins) == 1 and len(losses) == 1, outcomes
            assert isinstance(losses[0], RevisionConflictError)
            base = ref(wins[0])
            assert base.revision == round_number + 2
        _, items = await second.changes(base, 0)
        assert [i.ref.revision async for i in items] == list(range(1, 7))
    finally:
        await second.close()


async def test_many_writers_produce_a_gapless_chain(service: MemoryService) -> None:
    r1 = await create(service, "base")
    artifact = ref(r1).artifact_id

    async def writer(n: int) -> int:
        conflicts = 0
        while True:
            head = (await service.get_memory(ArtifactRef(artifact, 0))).revision.ref
            try:
                await service.remember(head, [], [], [add(f"writer {n} entry")])
                return conflicts
            except RevisionConflictError:
                conflicts += 1

    await asyncio.gather(*(writer(n) for n in range(8)))
    _, items = await service.changes(ArtifactRef(artifact, 9), 0)
    assert [i.ref.revision async for i in items] == list(range(1, 10))


async def test_next_revision_already_inserted_is_aborted_and_nothing_written(
    harness: Harness,
) -> None:
    """A unique conflict on (memory, next revision) — another writer inserted it and has not
    moved the head yet — rolls the whole commit back with ABORTED, like any lost race."""
    service = harness.service
    assert service is not None
    r1 = await create(service, "base entry")
    memory = ref(r1)
    harness.tamper.execute(
        "INSERT INTO artifact_revisions (artifact_id, revision, family, content, content_hash, "
        "lineage, committed_at_ms, changes, changes_hash, manifest_root) "
        "SELECT artifact_id, 2, family, content, content_hash, lineage, committed_at_ms, "
        "changes, changes_hash, manifest_root FROM artifact_revisions WHERE artifact_id = ?",
        (memory.artifact_id,),
    )
    counts_before = _counts(harness)
    with pytest.raises(RevisionConflictError) as conflict:
        await service.remember(memory, [], [], [add("racing entry")])
    assert _counts(harness) == counts_before
    assert (await service.get_memory(ArtifactRef(memory.artifact_id, 0))).head_revision == 1
    assert conflict.value.actual == 1  # the real head, read after the rollback


async def test_head_moved_after_the_check_reports_the_winning_head(harness: Harness) -> None:
    """Another process commits revision 2 between this writer's in-transaction head check and
    its insert. On OceanBase (READ COMMITTED) that race is real: the writer must roll back with
    ABORTED naming head 2 — the revision the caller re-applies on — not 0. On SQLite the writer
    holds the database's write lock from BEGIN IMMEDIATE, so the other process cannot commit
    at all and this writer wins."""
    service = harness.service
    assert service is not None
    r1 = await create(service, "base entry")
    memory = ref(r1)
    other_process_commits = [
        "INSERT INTO artifact_revisions (artifact_id, revision, family, content, content_hash, "
        "lineage, committed_at_ms, changes, changes_hash, manifest_root) "
        "SELECT artifact_id, 2, family, content, content_hash, lineage, committed_at_ms, "
        "changes, changes_hash, manifest_root FROM artifact_revisions WHERE artifact_id = ?",
        "UPDATE artifact_heads SET revision = 2 WHERE artifact_id = ?",
    ]
    if harness.backend == "sqlite":
        locked: list[str] = []

        def other_process() -> None:
            db = sqlean.connect(str(harness.location), timeout=0.05, isolation_level=None)
            try:
                db.execute("BEGIN IMMEDIATE")
            except sqlean.OperationalError as error:
                locked.append(str(error))
            finally:
                db.close()

        harness.interleave["checked"] = other_process
        r2 = await service.remember(memory, [], [], [add("racing entry")])
        assert ref(r2).revision == 2 and locked == ["database is locked"]
        return

    def other_process_commit() -> None:  # autocommit statements on their own connection
        for statement in other_process_commits:
            assert harness.tamper.execute(statement, (memory.artifact_id,)) == 1

    harness.interleave["checked"] = other_process_commit
    counts_before = _counts(harness)
    with pytest.raises(RevisionConflictError) as conflict:
        await service.remember(memory, [], [], [add("racing entry")])
    assert conflict.value.actual == 2
    assert conflict.value.metadata["headRevision"] == "2"
    assert _counts(harness)[0] == counts_before[0] + 1  # only the other process's revision
    assert (await service.get_memory(ArtifactRef(memory.artifact_id, 0))).head_revision == 2
