"""`migrate-manifests`: revisions held whole (databases written before manifest pieces) become
pieces — batch by batch, resumable after a kill, idempotent — and nothing a reader sees
changes: the same hashes, the same export, the same pieces live commits write."""

from __future__ import annotations

import io

import pytest

from powercontext_memory.admin.export import export
from powercontext_memory.memory import MemoryService
from powercontext_memory.verifier import verify

from .conftest import Harness
from .helpers import WorkedExample, add, ref
from .whole_revisions import store_revisions_whole


class _Killed(Exception):
    pass


async def _export_records(service: MemoryService) -> list[bytes]:
    out = io.BytesIO()
    await export(service.backend, out)
    # the header carries the time of the export (and the trailer's hash covers it); every
    # record between them must be identical
    return out.getvalue().splitlines()[1:-1]


def _piece_keys(harness: Harness) -> set[str]:
    count = int(harness.tamper.scalar("SELECT count(*) FROM manifest_pieces"))
    keys = {
        str(
            harness.tamper.scalar(
                f"SELECT piece_key FROM manifest_pieces ORDER BY piece_key LIMIT 1 OFFSET {i}"
            )
        )
        for i in range(count)
    }
    return keys


async def test_whole_revisions_migrate_in_resumable_batches(harness: Harness) -> None:
    service = harness.service
    assert service is not None
    await WorkedExample().run(service)
    big = ref(await service.remember(None, [], [], [add(f"note {i}") for i in range(300)]))
    for i in range(8):  # commits on a manifest of several leaves
        big = ref(await service.remember(big, [], [], [add(f"later note {i}")]))
    live_pieces = _piece_keys(harness)
    live_export = await _export_records(service)

    rows = await store_revisions_whole(service, harness.tamper)
    assert rows == 3 + 9
    await service.close()
    service = await harness.open()  # nothing cached: every read is of the whole rows
    assert _piece_keys(harness) == set()
    assert await _export_records(service) == live_export
    assert (await verify(service.backend)).ok

    def killed_after_first_batch(done: int) -> None:
        raise _Killed(done)

    with pytest.raises(_Killed):
        await service.backend.migrate_manifests(batch=5, progress=killed_after_first_batch)
    whole = "SELECT count(*) FROM artifact_revisions WHERE manifest_root IS NULL"
    assert harness.tamper.scalar(whole) == rows - 5  # the first batch is committed
    assert await service.backend.migrate_manifests(batch=5) == (rows - 5, [])
    assert await service.backend.migrate_manifests(batch=5) == (0, [])  # idempotent
    assert harness.tamper.scalar(whole) == 0
    assert harness.tamper.scalar("SELECT count(*) FROM artifact_revisions WHERE content <> ''") == 0
    assert _piece_keys(harness) == live_pieces  # the cut depends on the manifest alone

    await service.close()
    service = await harness.open()
    assert (await verify(service.backend)).ok
    assert await _export_records(service) == live_export
    # and commits go on from a migrated head
    await service.remember(big, [], [], [add("after the migration")])
    assert (await verify(service.backend)).ok
