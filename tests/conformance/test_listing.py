"""GetRecallManifest and ListEntries on each backend: page sizes, keyset order, status/kind/tag
filters, text only when asked, empty memory vs empty page, signed page tokens (tampered,
cross-bound, retired format, size, Unicode forms, key rotation) and the GetMemory bound."""

from __future__ import annotations

import base64
import json
import unicodedata

import pytest

from powercontext_memory import listing
from powercontext_memory.api import (
    NO_FILTER,
    EntryFilter,
    EntryInput,
    EntryStatus,
    ListedEntry,
    TagMatch,
)
from powercontext_memory.app import open_service
from powercontext_memory.domain.errors import InvalidArgumentError
from powercontext_memory.domain.lifecycle import EntryRef
from powercontext_memory.domain.models import ArtifactRef
from powercontext_memory.memory import MemoryService
from powercontext_memory.security import signing
from powercontext_memory.security.caller import Caller, acting_as
from powercontext_memory.security.signing import rotate_signing_keys
from powercontext_memory.transport import convert

from .conftest import Harness
from .helpers import ref

COMPOSED = unicodedata.normalize("NFC", "café")
DECOMPOSED = unicodedata.normalize("NFD", "café")


def _entry(i: int, kind: str = "fact", tags: tuple[str, ...] = ()) -> EntryInput:
    return EntryInput(None, kind, f"entry number {i} about the build", tags=tags)


async def _memory(
    service: MemoryService, entries: list[EntryInput]
) -> tuple[ArtifactRef, list[EntryRef]]:
    result = await service.remember(None, [], [], entries)
    return ref(result), [EntryRef(r.entry_id, r.entry_version_id) for r in result.results]


async def _all_pages(
    service: MemoryService, memory: ArtifactRef, size: int, filters: EntryFilter = NO_FILTER
) -> list[ListedEntry]:
    items: list[ListedEntry] = []
    token = ""
    while True:
        page = await service.recall_manifest(memory, size, token, filters)
        items.extend(page.items)
        token = page.next_page_token
        if not token:
            return items


def _refused(error: pytest.ExceptionInfo[InvalidArgumentError], field: str, reason: str) -> None:
    assert (error.value.field, error.value.reason) == (field, reason), error.value


async def test_page_sizes(service: MemoryService) -> None:
    memory, refs = await _memory(service, [_entry(i) for i in range(120)])
    assert len((await service.recall_manifest(memory, 0, "", NO_FILTER)).items) == 50
    assert len((await service.recall_manifest(memory, 1, "", NO_FILTER)).items) == 1
    page = await service.recall_manifest(memory, 100, "", NO_FILTER)
    assert len(page.items) == 100 and page.next_page_token
    for bad in (101, -1):
        with pytest.raises(InvalidArgumentError) as error:
            await service.recall_manifest(memory, bad, "", NO_FILTER)
        _refused(error, "page_size", "INVALID_ARGUMENT")
        with pytest.raises(InvalidArgumentError) as error:
            await service.list_entries(memory, bad, "", (), NO_FILTER, False)
        _refused(error, "page_size", "INVALID_ARGUMENT")


async def test_keyset_pages_cover_every_active_entry_once_in_id_order(
    service: MemoryService,
) -> None:
    memory, refs = await _memory(service, [_entry(i) for i in range(23)])
    items = await _all_pages(service, memory, 5)
    ids = [i.citation.entry_id for i in items]
    assert ids == sorted(r.entry_id for r in refs)
    assert all(i.citation.memory_ref == memory for i in items)
    by_id = {r.entry_id: r.entry_version_id for r in refs}
    assert all(by_id[i.citation.entry_id] == i.citation.entry_version_id for i in items)
    last = await service.recall_manifest(memory, 3, "", NO_FILTER)
    assert last.memory == memory and not last.empty_memory


async def test_recall_manifest_has_metadata_never_text(service: MemoryService) -> None:
    given = EntryInput(
        None, "rule", "Run make docs-test for docs.", description="docs tests", tags=("docs",)
    )
    memory, [entry, _] = await _memory(service, [given, _entry(1)])
    items = (await service.recall_manifest(memory, 10, "", NO_FILTER)).items
    [item] = [i for i in items if i.citation.entry_id == entry.entry_id]
    assert (item.kind, item.description, item.tags, item.status) == (
        "rule",
        "docs tests",
        ("docs",),
        EntryStatus.ACTIVE,
    )
    assert all(i.text is None for i in items)
    listed = await service.list_entries(memory, 10, "", (), NO_FILTER, False)
    assert all(e.text is None for e in listed.entries)
    with_text = await service.list_entries(memory, 10, "", (), NO_FILTER, True)
    texts = {e.citation.entry_id: e.text for e in with_text.entries}
    assert texts[entry.entry_id] == "Run make docs-test for docs."
    [described] = [e for e in with_text.entries if e.citation.entry_id == entry.entry_id]
    assert (described.description, described.tags) == ("docs tests", ("docs",))


async def test_filters_by_status_kind_and_tags(service: MemoryService) -> None:
    memory, refs = await _memory(
        service,
        [
            _entry(0, "fact", ("a", "b")),
            _entry(1, "fact", ("a",)),
            _entry(2, "rule", ("b",)),
            _entry(3, "rule", ()),
            _entry(4, "fact", ("c",)),
            _entry(5, "fact", ("a", "c")),
            _entry(6, "note", ("a",)),
        ],
    )
    forgotten = await service.forget(memory, [refs[4]], "obsolete")
    assert forgotten.memory is not None
    merged = await service.merge(
        forgotten.memory, [refs[5], refs[6]], EntryInput(None, "fact", "merged a and c"), None
    )
    memory = merged.memory

    async def listed(statuses: tuple[EntryStatus, ...], filters: EntryFilter) -> set[str]:
        page = await service.list_entries(memory, 100, "", statuses, filters, False)
        return {e.citation.entry_id for e in page.entries}

    ids = [r.entry_id for r in refs]
    result_id = merged.result.entry_id
    assert await listed((), NO_FILTER) == {ids[0], ids[1], ids[2], ids[3], result_id}
    assert await listed((EntryStatus.INACTIVE,), NO_FILTER) == {ids[4]}
    assert await listed((EntryStatus.MERGED,), NO_FILTER) == {ids[5], ids[6]}
    page = await service.list_entries(memory, 100, "", (EntryStatus.MERGED,), NO_FILTER, False)
    assert {e.merged_into for e in page.entries} == {result_id}
    assert {e.status for e in page.entries} == {EntryStatus.MERGED}
    everything = (EntryStatus.ACTIVE, EntryStatus.INACTIVE, EntryStatus.MERGED)
    assert await listed(everything, NO_FILTER) == {*ids, result_id}
    assert await listed((), EntryFilter(kinds=("rule",))) == {ids[2], ids[3]}
    # the merge result carries the union of its inputs' tags (a, c)
    assert await listed(everything, EntryFilter(kinds=("fact",), tags=("c",))) == {
        ids[4],
        ids[5],
        result_id,
    }
    assert await listed((), EntryFilter(tags=("a", "b"))) == {ids[0]}
    assert await listed((), EntryFilter(tags=("a", "b"), tag_match=TagMatch.ANY)) == {
        ids[0],
        ids[1],
        ids[2],
        result_id,
    }
    recalled = await service.recall_manifest(memory, 100, "", EntryFilter(tags=("a",)))
    assert {i.citation.entry_id for i in recalled.items} == {ids[0], ids[1], result_id}


async def test_filters_compare_values_exactly(service: MemoryService) -> None:
    memory, refs = await _memory(service, [_entry(0, tags=(COMPOSED,)), _entry(1, tags=("Café",))])
    composed = await service.recall_manifest(memory, 10, "", EntryFilter(tags=(COMPOSED,)))
    assert [i.citation.entry_id for i in composed.items] == [refs[0].entry_id]
    decomposed = await service.recall_manifest(memory, 10, "", EntryFilter(tags=(DECOMPOSED,)))
    assert decomposed.items == [] and not decomposed.empty_memory
    with pytest.raises(InvalidArgumentError) as error:
        await service.recall_manifest(memory, 10, "", EntryFilter(tags=("x" * 65,)))
    _refused(error, "tags[0]", "FILTER_INVALID")
    with pytest.raises(InvalidArgumentError) as error:
        await service.recall_manifest(
            memory, 10, "", EntryFilter(kinds=tuple(f"k{i}" for i in range(33)))
        )
    _refused(error, "kinds", "FILTER_INVALID")


async def test_empty_memory_differs_from_an_empty_page(service: MemoryService) -> None:
    memory, refs = await _memory(service, [_entry(0), _entry(1)])
    filtered = await service.recall_manifest(memory, 10, "", EntryFilter(kinds=("absent",)))
    assert filtered.items == [] and not filtered.empty_memory and not filtered.next_page_token
    forgotten = await service.forget(memory, refs, "all gone")
    assert forgotten.memory is not None
    empty = await service.recall_manifest(forgotten.memory, 10, "", NO_FILTER)
    assert empty.items == [] and empty.empty_memory and not empty.next_page_token
    old = await service.recall_manifest(memory, 10, "", NO_FILTER)
    assert len(old.items) == 2 and not old.empty_memory, "an explicit revision is read as it was"


async def test_later_pages_read_the_first_pages_revision(service: MemoryService) -> None:
    memory, refs = await _memory(service, [_entry(i) for i in range(6)])
    head = ArtifactRef(memory.artifact_id, 0)
    first = await service.recall_manifest(head, 3, "", NO_FILTER)
    changed = await service.forget(memory, refs, "gone")
    assert changed.memory is not None
    second = await service.recall_manifest(head, 3, first.next_page_token, NO_FILTER)
    assert second.memory == memory and len(second.items) == 3
    with pytest.raises(InvalidArgumentError) as error:
        await service.recall_manifest(changed.memory, 3, first.next_page_token, NO_FILTER)
    _refused(error, "page_token", "PAGE_TOKEN_MISMATCH")


async def test_a_selective_filter_answers_a_short_page_within_the_scan_budget(
    service: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory, refs = await _memory(
        service, [_entry(i, "rule" if i == 11 else "fact") for i in range(12)]
    )
    monkeypatch.setattr(listing, "SCAN_BUDGET", 4)
    filters = EntryFilter(kinds=("rule",))
    pages = 0
    token = ""
    found: list[str] = []
    while True:
        page = await service.recall_manifest(memory, 10, token, filters)
        pages += 1
        found.extend(i.citation.entry_id for i in page.items)
        token = page.next_page_token
        if not token:
            break
    assert found == [refs[11].entry_id]
    assert pages >= 3, "each call looked at no more than the budget"


def _tampered(token: str) -> str:
    fmt, payload, mac = token.split(".")
    body = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    body["after"] = ""
    raw = base64.urlsafe_b64encode(json.dumps(body).encode()).rstrip(b"=").decode()
    return f"{fmt}.{raw}.{mac}"


async def test_page_tokens_are_signed_and_bound(service: MemoryService) -> None:
    memory, _ = await _memory(service, [_entry(i, tags=("t",)) for i in range(5)])
    other, _ = await _memory(service, [_entry(i) for i in range(5)])
    filters = EntryFilter(tags=("t",))
    token = (await service.recall_manifest(memory, 2, "", filters)).next_page_token
    assert token.startswith("pc2.")
    assert len((await service.recall_manifest(memory, 2, token, filters)).items) == 2

    for bad in (_tampered(token), token[:-2] + "xx", "garbage", token + "."):
        with pytest.raises(InvalidArgumentError) as error:
            await service.recall_manifest(memory, 2, bad, filters)
        _refused(error, "page_token", "PAGE_TOKEN_INVALID")
    with pytest.raises(InvalidArgumentError) as error:
        await service.recall_manifest(memory, 2, "pc1." + token.split(".", 1)[1], filters)
    _refused(error, "page_token", "PAGE_TOKEN_FORMAT_RETIRED")
    assert "restart from the first page" in error.value.message

    mismatches = [
        service.recall_manifest(memory, 2, token, NO_FILTER),
        service.recall_manifest(memory, 2, token, EntryFilter(tags=("t",), tag_match=TagMatch.ANY)),
        service.recall_manifest(other, 2, token, filters),
        service.list_entries(memory, 2, token, (), filters, False),
    ]
    for call in mismatches:
        with pytest.raises(InvalidArgumentError) as error:
            await call
        _refused(error, "page_token", "PAGE_TOKEN_MISMATCH")
    with acting_as(Caller("another-token")), pytest.raises(InvalidArgumentError) as error:
        await service.recall_manifest(memory, 2, token, filters)
    _refused(error, "page_token", "PAGE_TOKEN_MISMATCH")

    listed = (await service.list_entries(memory, 2, "", (), filters, False)).next_page_token
    with pytest.raises(InvalidArgumentError) as error:
        await service.list_entries(memory, 2, listed, (), filters, True)
    _refused(error, "page_token", "PAGE_TOKEN_MISMATCH")
    with pytest.raises(InvalidArgumentError) as error:
        await service.list_entries(memory, 2, listed, (EntryStatus.INACTIVE,), filters, False)
    _refused(error, "page_token", "PAGE_TOKEN_MISMATCH")


async def test_tokens_stay_short_and_keep_unicode_forms_apart(service: MemoryService) -> None:
    tags = tuple(f"{COMPOSED}{'é' * 55}{i:02d}" for i in range(32))  # 61 code points each
    memory, _ = await _memory(service, [_entry(i, tags=tags) for i in range(3)])
    wide = EntryFilter(kinds=tuple("k" * 120 + f"{i:02d}" for i in range(32)), tags=tags)
    listed = await service.list_entries(
        memory, 1, "", tuple(EntryStatus), EntryFilter(tags=tags), True
    )
    assert len(listed.entries) == 1 and len(listed.next_page_token) < 4096
    page = await service.recall_manifest(memory, 1, "", EntryFilter(tags=tags))
    assert page.next_page_token and len(page.next_page_token) < 4096
    empty = await service.recall_manifest(memory, 1, "", wide)
    assert empty.items == []

    # Stored tags are NFC; a filter keeps the form it is given, so the decomposed one
    # matches nothing and binds another fingerprint.
    composed_memory, _ = await _memory(
        service, [_entry(0, tags=(COMPOSED,)), _entry(1, tags=(COMPOSED,))]
    )
    by_composed = await service.recall_manifest(
        composed_memory, 1, "", EntryFilter(tags=(COMPOSED,))
    )
    by_decomposed = await service.recall_manifest(
        composed_memory, 1, "", EntryFilter(tags=(DECOMPOSED,))
    )
    assert by_composed.next_page_token and by_decomposed.items == []
    with pytest.raises(InvalidArgumentError) as error:
        await service.recall_manifest(
            composed_memory, 1, by_composed.next_page_token, EntryFilter(tags=(DECOMPOSED,))
        )
    _refused(error, "page_token", "PAGE_TOKEN_MISMATCH")


async def test_rotation_keeps_the_previous_key_only(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = harness.service
    assert service is not None
    memory, _ = await _memory(service, [_entry(i) for i in range(6)])
    first = (await service.recall_manifest(memory, 2, "", NO_FILTER)).next_page_token

    await rotate_signing_keys(service.backend)
    other = await open_service(harness.location)  # another server, started after the rotation
    try:
        assert other.signer.signing_key_id == "k000002"
        assert len((await other.recall_manifest(memory, 2, first, NO_FILTER)).items) == 2
        second = (await other.recall_manifest(memory, 2, "", NO_FILTER)).next_page_token
    finally:
        await other.close()
    # The running server meets a token of a key it does not know yet: it reads the keys again.
    monkeypatch.setattr(signing, "UNKNOWN_KEY_REFRESH_SECONDS", 0.0)
    assert len((await service.recall_manifest(memory, 2, second, NO_FILTER)).items) == 2
    assert service.signer.signing_key_id == "k000002"

    await rotate_signing_keys(service.backend)  # k000001 is dropped
    monkeypatch.setattr(signing, "REFRESH_SECONDS", 0.0)  # as if a minute had passed
    with pytest.raises(InvalidArgumentError) as error:
        await service.recall_manifest(memory, 2, first, NO_FILTER)
    _refused(error, "page_token", "PAGE_TOKEN_INVALID")
    assert service.signer.key_ids == ("k000002", "k000003")
    assert len((await service.recall_manifest(memory, 2, second, NO_FILTER)).items) == 2


async def test_get_memory_leaves_a_large_manifest_out(service: MemoryService) -> None:
    memory, _ = await _memory(service, [_entry(i) for i in range(40)])
    whole = await service.get_memory(memory)
    assert not whole.content_omitted and whole.revision.content.entry_count == 40
    assert (await service.get_memory(memory, metadata_only=True)).content_omitted
    service.get_memory_max_bytes = 70_000
    bounded = await service.get_memory(memory)
    assert bounded.content_omitted and bounded.revision.ref == memory
    small, _ = await _memory(service, [_entry(0)])
    assert not (await service.get_memory(small)).content_omitted


async def test_get_memory_size_estimate_is_not_below_the_encoded_response(
    service: MemoryService,
) -> None:
    """The bound compares an estimate: it must not undercount what the wire carries."""
    memory, refs = await _memory(service, [_entry(i) for i in range(300)])
    forgotten = await service.forget(memory, refs[:150], "a reason that takes some room " * 3)
    for at in (memory, forgotten.memory):
        assert at is not None
        view = await service.get_memory(at)
        encoded = convert.get_memory_response(view).ByteSize()
        assert listing.estimated_size(view.revision) >= encoded
