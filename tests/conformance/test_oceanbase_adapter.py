"""OceanBase-only behaviour: the start-up probe, the schema guard, our DDL on the engine."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from powercontext_memory.api import SearchMode
from powercontext_memory.app import open_service
from powercontext_memory.domain.errors import CapabilityNotSupportedError
from powercontext_memory.embedding.minilm import MiniLMEmbedder

from ..oceanbase_server import fresh_database
from .flaky_model import FlakyModel
from .helpers import add, create, ref
from .tamper import OceanBaseTamper


@pytest.fixture
async def dsn(oceanbase_server: str) -> AsyncIterator[str]:
    async with fresh_database(oceanbase_server) as database:
        yield database


async def test_probe_passes_on_seekdb_and_reports_the_engine(dsn: str) -> None:
    service = await open_service(dsn)
    try:
        caps = service.capabilities()
        assert caps.backend == "oceanbase" and caps.engine_version == "4.3.5.3"
        assert caps.fts and caps.fts_unavailable_reason == ""
    finally:
        await service.close()


async def test_failed_fulltext_probe_disables_fts_without_crashing(dsn: str) -> None:
    service = await open_service(dsn)
    memory = ref(await create(service, "release checklist"))
    await service.close()
    tamper = OceanBaseTamper(dsn)
    # A probe table whose FULLTEXT index is gone: the probe's MATCH cannot run.
    tamper.execute("DROP TABLE powercontext_probe")
    tamper.execute(
        "CREATE TABLE powercontext_probe (probe_id BIGINT NOT NULL AUTO_INCREMENT, "
        "fulltext_tokens TEXT NOT NULL, PRIMARY KEY (probe_id))"
    )
    service = await open_service(dsn)
    try:
        caps = service.capabilities()
        assert not caps.fts and not caps.hybrid
        assert "FULLTEXT" in caps.fts_unavailable_reason
        with pytest.raises(CapabilityNotSupportedError) as err:
            await service.search("release", [memory], 8, SearchMode.FTS)
        assert "full-text search is not available" in err.value.message
        with pytest.raises(CapabilityNotSupportedError):
            await service.search("release", [memory], 8, SearchMode.AUTO)
        # Writes and reads that need no full text still work.
        newer = ref(await service.remember(memory, [], [], [add("tag after the checklist")]))
        assert newer.revision == 2
        assert (await service.get_memory(newer)).head_revision == 2
    finally:
        await service.close()


async def test_failed_vector_probe_disables_vectors_and_auto_falls_back(
    dsn: str, minilm: MiniLMEmbedder
) -> None:
    service = await open_service(dsn, embedding=FlakyModel(minilm))
    memory = ref(await create(service, "Release script publishing packages lives in ship.sh."))
    assert service.capabilities().vector
    await service.close()
    OceanBaseTamper(dsn).execute(
        "DROP INDEX vidx_memory_entry_heads_embedding ON memory_entry_heads"
    )
    service = await open_service(dsn, embedding=FlakyModel(minilm))
    try:
        caps = service.capabilities()
        assert not caps.vector and not caps.hybrid
        assert "HNSW" in caps.vector_unavailable_reason
        auto = await service.search("release script", [memory], 8, SearchMode.AUTO)
        assert auto.mode is SearchMode.FTS and "HNSW" in auto.fallback_reason
        with pytest.raises(CapabilityNotSupportedError):
            await service.search("release script", [memory], 8, SearchMode.VECTOR)
    finally:
        await service.close()


async def test_a_database_of_another_schema_version_is_refused(dsn: str) -> None:
    service = await open_service(dsn)
    await service.close()
    OceanBaseTamper(dsn).execute(
        "UPDATE schema_meta SET meta_value = '0' WHERE meta_key = 'schema_version'"
    )
    with pytest.raises(RuntimeError, match="schema_version"):
        await open_service(dsn)


async def test_rfc_ddl_is_on_the_engine(dsn: str, minilm: MiniLMEmbedder) -> None:
    """FULLTEXT WITH PARSER SPACE and VECTOR(384) + HNSW L2 on memory_entry_heads itself."""
    service = await open_service(dsn, embedding=FlakyModel(minilm))
    await service.close()
    tamper = OceanBaseTamper(dsn)
    conn = tamper._connect()
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW CREATE TABLE memory_entry_heads")
            ddl = cur.fetchone()[1].upper()
    finally:
        conn.close()
    assert "WITH PARSER SPACE" in ddl
    assert "VECTOR(384)" in ddl and "DISTANCE=L2" in ddl and "TYPE=HNSW" in ddl
    assert "FOREIGN KEY (`MEMORY_ARTIFACT_ID`, `ENTRY_ID`, `ENTRY_VERSION_ID`)" in ddl


async def test_a_manifest_larger_than_one_statement_is_written_in_pieces(
    dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Big manifests go in several statements (the 16 MiB packet limit); here pieces are made
    tiny so that a small memory takes that path, with multi-byte reasons cut between pieces."""
    from powercontext_memory.backends.oceanbase import revisions as oceanbase
    from powercontext_memory.verifier import verify

    monkeypatch.setattr(oceanbase, "MANIFEST_PIECE_BYTES", 997)
    service = await open_service(dsn)
    entries = [add(f"entry number {i}", reason=f"原因 {i} — 理由") for i in range(30)]
    memory = ref(await service.remember(None, [], [], entries))
    await service.close()
    service = await open_service(dsn)  # nothing cached: the stored bytes are re-verified
    try:
        view = await service.get_memory(memory)
        assert len(view.revision.content.entries) == 30
        assert any(len(c.reason or "") > 0 for c in view.revision.content.changes)
        report = await verify(service.backend)
        assert report.ok, report.problems
    finally:
        await service.close()


async def test_an_unreachable_database_is_unavailable_not_internal(tmp_path: Path) -> None:
    """Its own seekdb, stopped under a running service: reads and writes get UNAVAILABLE."""
    from powercontext_memory.domain.errors import UnavailableError
    from scripts import seekdb

    base = tmp_path / "seekdb"
    server = seekdb.start(base)  # the DSN names its `test` database
    try:
        service = await open_service(server)
        try:
            memory = ref(await create(service, "written while the engine was up"))
            seekdb.stop(base)
            with pytest.raises(UnavailableError) as err:
                await service.search("written", [memory], 8, SearchMode.FTS)
            assert err.value.reason == "DATABASE_UNAVAILABLE"
            with pytest.raises(UnavailableError):
                await service.remember(memory, [], [], [add("lost")])
        finally:
            await service.close()
    finally:
        seekdb.stop(base)
