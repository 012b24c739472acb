"""The admin commands as a user runs them: `powercontext-memory verify` and co."""

from __future__ import annotations

import asyncio
from pathlib import Path

import sqlean

from powercontext_memory.app import open_service
from tests.conformance.helpers import write_worked_example
from tests.conformance.tamper import SQLiteTamper
from tests.conformance.whole_revisions import store_revisions_whole

from ..serving import run_admin

ROOT = Path(__file__).resolve().parents[2]


def _sql(path: Path, statement: str) -> None:
    db = sqlean.connect(str(path), isolation_level=None)
    try:
        db.execute(statement)
    finally:
        db.close()


def test_verify_passes_a_clean_database(tmp_path: Path) -> None:
    database = tmp_path / "memory.sqlite3"
    write_worked_example(database)
    result = run_admin("verify", "--database", str(database))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "OK: 1 memories, 3 revisions, 4 entry versions, 5 sources verified" in result.stdout


def test_verify_reports_a_tampered_row_and_fails(tmp_path: Path) -> None:
    database = tmp_path / "memory.sqlite3"
    write_worked_example(database)
    _sql(database, "UPDATE memory_entry_versions SET text = 'tampered' WHERE version = 2")
    result = run_admin("verify", "--database", str(database))
    assert result.returncode == 1
    assert "PROBLEM memory_entry_versions[mem_ver_" in result.stdout
    assert "do not match entry_content_hash" in result.stdout


def test_rebuild_projection_repairs_a_damaged_index(tmp_path: Path) -> None:
    database = tmp_path / "memory.sqlite3"
    write_worked_example(database)
    _sql(database, "DELETE FROM memory_entry_search_fts")
    assert run_admin("verify", "--database", str(database)).returncode == 1
    result = run_admin("rebuild-projection", "--database", str(database))
    assert result.returncode == 0, result.stderr
    assert "rebuilt 1 memories: 2 active entries" in result.stdout
    assert run_admin("verify", "--database", str(database)).returncode == 0


def test_admin_commands_refuse_a_missing_database(tmp_path: Path) -> None:
    missing = tmp_path / "nope.sqlite3"
    for command in ("verify", "rebuild-projection"):
        result = run_admin(command, "--database", str(missing))
        assert result.returncode == 2 and "no database" in result.stderr
    assert not missing.exists()


async def _store_whole(database: Path) -> None:
    service = await open_service(str(database))
    try:
        assert await store_revisions_whole(service, SQLiteTamper(database)) == 3
    finally:
        await service.close()


def test_migrate_manifests_stores_old_revisions_as_pieces_once(tmp_path: Path) -> None:
    database = tmp_path / "memory.sqlite3"
    write_worked_example(database)
    asyncio.run(_store_whole(database))  # the layout of a database from before pieces
    result = run_admin("migrate-manifests", "--database", str(database))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "migrated 3 revisions to manifest pieces; 0 left whole" in result.stdout
    again = run_admin("migrate-manifests", "--database", str(database))
    assert "migrated 0 revisions to manifest pieces; 0 left whole" in again.stdout
    assert run_admin("verify", "--database", str(database)).returncode == 0
