"""History (Changes) reads only the compact changes columns, page by page, on every backend;
databases created before those columns get them on open (backfill); the verifier checks that
they are the changes inside each revision's hashed content."""

from __future__ import annotations

from contextlib import aclosing

import pytest

from powercontext_memory.api import RevisionChanges
from powercontext_memory.backends.codec import changes_json
from powercontext_memory.domain.canonical import sha256_hex
from powercontext_memory.domain.errors import DataLossError
from powercontext_memory.domain.models import ArtifactRef
from powercontext_memory.memory import MemoryService
from powercontext_memory.observing.port import ServiceObserver
from powercontext_memory.verifier import verify

from .conftest import Harness
from .helpers import WorkedExample, add, ref
from .whole_revisions import store_revisions_whole


class Pages(ServiceObserver):
    def __init__(self) -> None:
        self.pages: list[int] = []

    def history_page(self, revisions: int) -> None:
        self.pages.append(revisions)


async def _history(service: MemoryService, head: ArtifactRef) -> list[RevisionChanges]:
    _, items = await service.changes(head, 0)
    return [item async for item in items]


async def _grow(service: MemoryService, revisions: int) -> ArtifactRef:
    memory = ref(await service.remember(None, [], [], [add("entry 1")]))
    for i in range(2, revisions + 1):
        memory = ref(await service.remember(memory, [], [], [add(f"entry {i}")]))
    return memory


async def _problems(service: MemoryService) -> list[str]:
    return [str(p) for p in (await verify(service.backend)).problems]


async def test_history_is_read_a_page_at_a_time_as_it_is_consumed(
    service: MemoryService,
) -> None:
    head = await _grow(service, 10)
    service.backend.history_page = 4
    pages = Pages()
    service.observe(pages)
    _, items = await service.changes(head, 0)
    async with aclosing(items):
        first = await anext(items)
        assert first.ref.revision == 1
        assert pages.pages == [4]  # nothing beyond the page being delivered
        rest = [item.ref.revision async for item in items]
    assert rest == list(range(2, 11))
    assert pages.pages == [4, 4, 2]


async def test_a_database_created_before_the_changes_columns_gets_them_on_open(
    harness: Harness,
) -> None:
    service = harness.service
    assert service is not None
    ex = await WorkedExample().run(service)
    head = await _grow(service, 3)  # and a second memory
    before = [await _history(service, ref(ex.r3)), await _history(service, head)]
    assert await store_revisions_whole(service, harness.tamper) == 6  # the layout of then
    await service.close()
    # The schema shape before: artifact_revisions without the two columns.
    for column in ("changes_hash", "changes"):
        harness.tamper.execute(f"ALTER TABLE artifact_revisions DROP COLUMN {column}")

    service = await harness.open()  # adds the columns and fills them
    assert harness.tamper.scalar("SELECT count(*) FROM artifact_revisions") == 6
    assert (
        harness.tamper.scalar("SELECT count(*) FROM artifact_revisions WHERE changes IS NULL") == 0
    )
    assert [await _history(service, ref(ex.r3)), await _history(service, head)] == before
    assert await service.backend.backfill_changes() == 0  # idempotent: nothing left to fill
    assert await _problems(service) == []


async def test_a_revision_stored_without_changes_is_read_from_its_content(
    harness: Harness,
) -> None:
    """Rows an older server writes into a shared database after the backfill."""
    service = harness.service
    assert service is not None
    ex = await WorkedExample().run(service)
    before = await _history(service, ref(ex.r3))
    assert await store_revisions_whole(service, harness.tamper, revision=2) == 1
    harness.tamper.execute(
        "UPDATE artifact_revisions SET changes = NULL, changes_hash = NULL WHERE revision = 2"
    )
    assert await _history(service, ref(ex.r3)) == before
    where = f"artifact_revisions[{ref(ex.r3).artifact_id}@2]"
    assert await _problems(service) == [f"{where}: changes are not stored " + _OPEN_FILLS]
    assert await service.backend.backfill_changes() == 1
    assert await _problems(service) == []


_OPEN_FILLS = "(the server fills them when it opens the database)"


async def test_tampered_changes_fail_their_own_hash(harness: Harness) -> None:
    service = harness.service
    assert service is not None
    ex = await WorkedExample().run(service)
    harness.tamper.execute(
        "UPDATE artifact_revisions SET changes = replace(changes, 'deactivate', 'reactivate') "
        "WHERE revision = 3"
    )
    where = f"artifact_revisions[{ref(ex.r3).artifact_id}@3]"
    with pytest.raises(DataLossError) as err:
        await _history(service, ref(ex.r3))
    assert err.value.metadata == {"row": where}
    assert f"{where}: changes do not match changes_hash" in await _problems(service)


async def test_forged_changes_with_their_own_hash_are_found_by_the_verifier(
    harness: Harness,
) -> None:
    """History trusts the changes columns' own hash; the verifier ties them to the content."""
    service = harness.service
    assert service is not None
    ex = await WorkedExample().run(service)
    third = (await _history(service, ref(ex.r3)))[2]
    forged = changes_json(third.changes).replace("user_requested", "forged")
    harness.tamper.execute(
        "UPDATE artifact_revisions SET changes = ?, changes_hash = ? WHERE revision = 3",
        (forged, sha256_hex(forged.encode())),
    )
    where = f"artifact_revisions[{ref(ex.r3).artifact_id}@3]"
    # Stored as pieces, the changes column is part of what content_hash covers.
    assert await _problems(service) == [
        f"{where}: manifest pieces and changes do not match content_hash"
    ]
    # Held whole (before pieces), the content carries its own copy of the changes.
    assert await store_revisions_whole(service, harness.tamper, revision=3) == 1
    assert await _problems(service) == [
        f"{where}: stored changes differ from the changes inside the hashed content"
    ]
    # and the migration leaves such a row whole rather than trust either copy
    assert await service.backend.migrate_manifests() == (0, [f"{ref(ex.r3).artifact_id}@3"])


async def test_the_backfill_leaves_a_revision_whose_content_fails_its_hash(
    harness: Harness,
) -> None:
    service = harness.service
    assert service is not None
    ex = await WorkedExample().run(service)
    harness.tamper.execute(
        "UPDATE artifact_revisions SET changes = NULL, changes_hash = NULL, "
        "content = replace(content, 'user_requested', 'forged') WHERE revision = 3"
    )
    assert await service.backend.backfill_changes() == 0
    with pytest.raises(DataLossError) as err:
        await _history(service, ref(ex.r3))
    assert err.value.metadata == {"row": f"artifact_revisions[{ref(ex.r3).artifact_id}@3]"}
