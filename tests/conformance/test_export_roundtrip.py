"""SQLite -> seekdb -> SQLite through export files: the move to OceanBase and back loses nothing.

Identical content hashes for every revision, citations that Expand verifies, the same search
results, every label version (set, cleared, set again) as stored, and the same records in both
files (only the header says where each came from).
"""

from __future__ import annotations

from pathlib import Path

from powercontext_memory.admin.importer import import_file
from powercontext_memory.app import open_service
from powercontext_memory.verifier import verify

from ..oceanbase_server import fresh_database
from .transfer_data import build, citations_expand, export_file, fingerprint, search_results
from .transfer_labels import LABEL_COUNT, label_histories, listed_labels, set_labels


async def test_sqlite_to_seekdb_to_sqlite_keeps_every_hash_citation_and_hit(
    oceanbase_server: str, tmp_path: Path
) -> None:
    source = await build(tmp_path / "source.sqlite3")
    await set_labels(source.path)
    original = await open_service(source.path)
    try:
        expected, hits = await fingerprint(original), await search_results(original)
        labels, listed = await label_histories(original), await listed_labels(original)
    finally:
        await original.close()
    first = await export_file(source.path, tmp_path / "from-sqlite.jsonl")
    async with fresh_database(oceanbase_server) as dsn:
        seekdb = await open_service(dsn)
        try:
            assert (await import_file(seekdb, first)).labels_written == LABEL_COUNT
            assert await fingerprint(seekdb) == expected
            assert await label_histories(seekdb) == labels
            assert await listed_labels(seekdb) == listed
            assert (await verify(seekdb.backend)).ok
            assert await search_results(seekdb) == hits
        finally:
            await seekdb.close()
        second = await export_file(dsn, tmp_path / "from-seekdb.jsonl")
    final = await open_service(tmp_path / "final.sqlite3")
    try:
        report = await import_file(final, second)
        assert (report.revisions_written, report.labels_written) == (12, LABEL_COUNT)
        assert await fingerprint(final) == expected
        assert await label_histories(final) == labels
        assert await listed_labels(final) == listed
        assert (await verify(final.backend)).ok
        assert await citations_expand(final) == 15 + 28  # every entry of every revision
        assert await search_results(final) == hits
    finally:
        await final.close()
    one, two = first.read_bytes().splitlines(), second.read_bytes().splitlines()
    assert b'"source_backend":"sqlite"' in one[0] and b'"source_backend":"oceanbase"' in two[0]
    assert one[1:-1] == two[1:-1]  # every record, byte for byte
