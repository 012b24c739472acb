"""ListMemories and SetMemoryLabel on each backend: every memory once in id order across pages,
heads, counts and times as of the read, a token's memory list, signed page tokens bound to the
caller, and labels as a compare-and-swap history."""

from __future__ import annotations

import pytest

from powercontext_memory.api import EntryInput, MemorySummary
from powercontext_memory.domain.errors import AbortedError, InvalidArgumentError, NotFoundError
from powercontext_memory.domain.lifecycle import EntryRef
from powercontext_memory.memory import MemoryService
from powercontext_memory.security.caller import Caller, acting_as

from .helpers import ref

# A GitHub token shape, built here so no scanner flags this file.
GITHUB_TOKEN = "gh" + "p_" + "Zr8q2LmV7xTb4Nc9Wk3Hs6Jd1Fy5Pa0Qe7Ug"


async def _memory(service: MemoryService, count: int) -> str:
    entries = [EntryInput(None, "fact", f"fact {i} about the deploy") for i in range(count)]
    return ref(await service.remember(None, [], [], entries)).artifact_id


async def _all(service: MemoryService, size: int) -> list[MemorySummary]:
    listed: list[MemorySummary] = []
    token = ""
    while True:
        page = await service.list_memories(size, token)
        listed.extend(page.memories)
        token = page.next_page_token
        if not token:
            return listed


async def test_pages_list_every_memory_once_in_id_order(service: MemoryService) -> None:
    assert (await service.list_memories(0, "")).memories == []
    ids = sorted([await _memory(service, 1) for _ in range(7)])
    for size in (1, 3, 7, 100):
        assert [m.head.artifact_id for m in await _all(service, size)] == ids
    last = await service.list_memories(7, "")
    assert last.next_page_token == ""  # an exact fit ends without a token to an empty page
    for bad in (-1, 101):
        with pytest.raises(InvalidArgumentError) as error:
            await service.list_memories(bad, "")
        assert error.value.field == "page_size"


async def test_a_summary_is_the_head_as_read(service: MemoryService) -> None:
    memory = await _memory(service, 3)
    first = (await service.list_memories(0, "")).memories[0]
    assert (first.head.revision, first.active_entries, first.inactive_entries) == (1, 3, 0)
    assert first.last_operation == "remember" and first.created_at_ms == first.changed_at_ms
    view = await service.get_memory(first.head)
    entry = view.revision.content.manifest.rows_after(None)
    row = next(iter(entry))
    await service.forget(first.head, [EntryRef(row.entry_id, row.entry_version_id)], "stale")
    now = (await service.list_memories(0, "")).memories[0]
    assert now.head.artifact_id == memory and now.head.revision == 2
    assert (now.active_entries, now.inactive_entries, now.last_operation) == (2, 1, "forget")
    assert now.created_at_ms == first.created_at_ms <= now.changed_at_ms


async def test_a_token_with_a_memory_list_sees_only_those(service: MemoryService) -> None:
    ids = sorted([await _memory(service, 1) for _ in range(4)])
    allowed = (ids[1], ids[3], "mem_art_" + "0" * 32)  # one that does not exist: not listed
    with acting_as(Caller("tok_a", "agents", tuple(sorted(allowed)))):
        assert [m.head.artifact_id for m in await _all(service, 1)] == [ids[1], ids[3]]
        token = (await service.list_memories(1, "")).next_page_token
    # Another caller, or the same key with another list, cannot continue that listing.
    for caller in (Caller("tok_b"), Caller("tok_a", "agents", (ids[1],)), Caller("")):
        with acting_as(caller), pytest.raises(InvalidArgumentError) as error:
            await service.list_memories(1, token)
        assert error.value.reason == "PAGE_TOKEN_MISMATCH"
    with pytest.raises(InvalidArgumentError) as error:
        await service.list_memories(1, token[:-2] + "xx")
    assert error.value.reason == "PAGE_TOKEN_INVALID"


async def test_labels_are_a_compare_and_swap_history(service: MemoryService) -> None:
    memory = await _memory(service, 1)
    label = await service.set_memory_label(memory, "  Payments service  ", 0)
    assert (label.label, label.label_version) == ("Payments service", 1) and label.set_at_ms > 0
    listed = (await service.list_memories(0, "")).memories[0]
    assert (listed.label, listed.label_version) == ("Payments service", 1)
    # Stale: the version it replaces is not the current one; nothing changes.
    for stale in (0, 2):
        with pytest.raises(AbortedError) as error:
            await service.set_memory_label(memory, "something else", stale)
        assert error.value.reason == "LABEL_CONFLICT"
        assert error.value.metadata["labelVersion"] == "1"
    again = await service.set_memory_label(memory, "Payments service", 1)
    assert again.label_version == 1  # the same text: no new version
    cleared = await service.set_memory_label(memory, "", 1)
    assert (cleared.label, cleared.label_version) == ("", 2)
    listed = (await service.list_memories(0, "")).memories[0]
    assert (listed.label, listed.label_version) == ("", 2)
    assert listed.head.revision == 1  # labels are not revisions


async def test_bad_labels_are_refused_with_the_field(service: MemoryService) -> None:
    memory = await _memory(service, 1)
    for bad, reason in (
        ("two\nlines", "LABEL_INVALID"),
        ("x" * 201, "LABEL_INVALID"),
        (f"deploy token {GITHUB_TOKEN}", "SECRET_DETECTED"),
    ):
        with pytest.raises(InvalidArgumentError) as error:
            await service.set_memory_label(memory, bad, 0)
        assert (error.value.field, error.value.reason) == ("label", reason)
    with pytest.raises(InvalidArgumentError) as error:
        await service.set_memory_label(memory, "ok", -1)
    assert error.value.field == "label_version"
    with pytest.raises(NotFoundError) as missing:
        await service.set_memory_label("mem_art_" + "0" * 32, "ok", 0)
    assert missing.value.reason == "MEMORY_NOT_FOUND"
    assert (await service.list_memories(0, "")).memories[0].label_version == 0
