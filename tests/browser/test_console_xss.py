"""Memory data is untrusted: the XSS corpus stored in every field a user can store (entry text,
description, tags, kind, source URI, metadata and content, change reasons, labels) must show
verbatim in every view and never run, restyle the page or trip the CSP. The `console` fixture
fails a test that opened a dialog, set the tripwire, raised an error or violated the CSP."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types

from .conftest import Console, DoorServer
from .seed import put_source, ref, remember
from .xss_corpus import PAYLOAD_TAGS, PAYLOADS, as_tag

REVISED = " (revised)"
SETTLE_MS = 400  # time for an image error or a focus handler to fire, were any created


class Seeded:
    def __init__(self, memory: types.ArtifactRef, refs: list[types.EntryRef]) -> None:
        self.memory = memory
        self.refs = refs

    @property
    def artifact_id(self) -> str:
        return self.memory.artifact_id

    def citation(self, index: int) -> str:
        entry = self.refs[index]
        return (
            f"{self.artifact_id}@{self.memory.revision}/{entry.entry_id}/{entry.entry_version_id}"
        )


@pytest.fixture(scope="module")
def xss_memory(door: DoorServer) -> Iterator[Seeded]:
    """Revision 1 adds one entry per payload (text, description, tag, a source of its own with
    the payload as URI, media type, metadata and content);
    2 revises each with the payload as its reason; 3 forgets five with a payload reason."""
    sources = [
        put_source(
            door.stub,
            payload,
            kind="javascript:void" if i == 0 else "user_note",
            uri=payload,
            media_type=payload if payload.isascii() else "text/plain",
            metadata={"payload": payload, "n": str(i)},
        )
        for i, payload in enumerate(PAYLOADS)
    ]
    inputs = [
        types.EntryInput(
            kind="javascript:void" if i == 0 else "fact",
            text=payload,
            description=payload,
            tags=[tag] if (tag := as_tag(payload)) else [],
            sources=[source],
        )
        for i, (payload, source) in enumerate(zip(PAYLOADS, sources, strict=True))
    ]
    first = remember(door.stub, None, inputs, sources)
    refs = [ref(result) for result in first.results]
    revisions = [
        types.EntryInput(
            entry=entry_ref,
            kind=item.kind,
            text=item.text + REVISED,
            description=item.description,
            tags=item.tags,
            reason=item.text,
        )
        for entry_ref, item in zip(refs, inputs, strict=True)
    ]
    second = remember(door.stub, first.memory, revisions)
    refs = [ref(result) for result in second.results]
    third = door.stub.Forget(
        pb.ForgetRequest(memory=second.memory, entries=refs[-5:], reason=PAYLOADS[1])
    )
    yield Seeded(third.memory, refs)


def texts(console: Console, selector: str) -> set[str]:
    return set(console.page.locator(selector).evaluate_all("els => els.map(e => e.textContent)"))


def assert_inert(console: Console) -> None:
    """Nothing a payload could have made exists, and nothing ran."""
    page = console.page
    page.wait_for_timeout(SETTLE_MS)
    made = page.evaluate(f"document.querySelectorAll({PAYLOAD_TAGS!r}).length")
    assert made == 0, "the page contains elements a payload would create"
    handlers = page.evaluate(
        "[...document.querySelectorAll('*')].flatMap(e => [...e.attributes]"
        ".filter(a => /^on/i.test(a.name) || /^\\s*(javascript|data):/i.test(a.value))"
        ".map(a => a.name + '=' + a.value))"
    )
    assert handlers == []
    assert page.locator("main").is_visible()  # no payload style hid or covered the page
    console.assert_clean()


def test_entries_descriptions_tags_and_sources_show_payloads_verbatim(
    console: Console, xss_memory: Seeded
) -> None:
    page = console.page
    console.open(
        f"#/m/{xss_memory.artifact_id}?status=ENTRY_STATUS_ACTIVE&status=ENTRY_STATUS_INACTIVE"
    )
    expect(page.locator("article.entry")).to_have_count(len(PAYLOADS))
    assert texts(console, ".entry-text") == {p + REVISED for p in PAYLOADS}
    assert texts(console, ".description") == set(PAYLOADS)
    assert texts(console, "article.entry .tag") == {t for p in PAYLOADS if (t := as_tag(p))}
    assert "javascript:void" in texts(console, "article.entry .kind")
    for button in page.locator("article.entry").get_by_role("button", name="Sources").all():
        button.click()
    expect(page.locator("button.source-ref")).to_have_count(len(PAYLOADS))
    for source in page.locator("button.source-ref").all():
        source.click()
    expect(page.locator(".source-card")).to_have_count(len(PAYLOADS))
    assert texts(console, ".source-content") == set(PAYLOADS)
    assert texts(console, ".source-card .uri") == set(PAYLOADS)
    assert set(PAYLOADS) <= texts(console, ".source-card .metadata .u")
    assert texts(console, ".source-card .media-type") == {p for p in PAYLOADS if p.isascii()} | {
        "text/plain"
    }
    assert "javascript:void" in texts(console, ".source-card .source-kind")
    assert_inert(console)


def test_timeline_diff_history_and_reasons_show_payloads_verbatim(
    console: Console, xss_memory: Seeded
) -> None:
    page = console.page
    console.open(f"#/m/{xss_memory.artifact_id}/rev/2")
    expect(page.locator(".change-diff")).to_have_count(len(PAYLOADS))
    assert texts(console, ".side.old .entry-text") == set(PAYLOADS)
    assert texts(console, ".side.new .entry-text") == {p + REVISED for p in PAYLOADS}
    assert texts(console, ".change-diff .reason .u") == set(PAYLOADS)
    assert_inert(console)
    console.go(f"#/m/{xss_memory.artifact_id}/timeline")
    expect(page.locator("li.revision")).to_have_count(3)
    assert PAYLOADS[1] in texts(console, "li.revision .reason .u")
    expect(page.locator("li.revision .touched-text")).to_have_count(12 + 12 + 5)  # 12 shown at most
    assert texts(console, "li.revision .touched-text") <= set(PAYLOADS)
    assert_inert(console)
    for index in (0, 1, 8, 25, len(PAYLOADS) - 1):
        console.go(f"#/m/{xss_memory.artifact_id}/entry/{xss_memory.refs[index].entry_id}")
        expect(page.locator("article.version")).to_have_count(2)
        assert texts(console, "article.version .entry-text") == {
            PAYLOADS[index],
            PAYLOADS[index] + REVISED,
        }
        assert PAYLOADS[index] in texts(console, ".lineage-event .reason .u")
        assert_inert(console)


def test_search_citations_handoff_and_dialogs_show_payloads_verbatim(
    console: Console, xss_memory: Seeded
) -> None:
    page = console.page
    console.open(f"#/search?m={xss_memory.artifact_id}&q=onerror%20img&limit=50")
    for mode in ("fts", "hybrid"):
        column = page.locator(f'.search-column[data-mode="{mode}"]')
        expect(column.locator("li.hit").first).to_be_visible()
        shown = set(column.locator(".entry-text").all_text_contents())
        assert shown and shown <= {p + REVISED for p in PAYLOADS}
    assert_inert(console)
    citations = [xss_memory.citation(i) for i in range(0, 12)]
    console.go("#/cite?" + "&".join(f"c={c}" for c in citations))
    expect(page.locator(".verified-by-hash")).to_have_count(12)
    assert texts(console, ".citation-result article.version .entry-text") == {
        p + REVISED for p in PAYLOADS[:12]
    }
    page.locator(".citation-result").first.get_by_role("button", name="Add to handoff").click()
    console.go("#/handoff")
    expect(page.locator(".handoff-line")).to_have_count(1)
    expect(page.locator(".handoff-kind")).to_have_text("javascript:void")
    assert texts(console, ".handoff-line .entry-line") == {PAYLOADS[0] + REVISED}
    assert_inert(console)
    console.go(f"#/m/{xss_memory.artifact_id}")
    entry = page.locator(f'article.entry[data-entry="{xss_memory.refs[1].entry_id}"]')
    entry.get_by_role("button", name="Revise").click()
    dialog = page.locator("dialog.curation")
    assert dialog.locator("textarea[name=text]").input_value() == PAYLOADS[1] + REVISED
    assert dialog.locator("input[name=description]").input_value() == PAYLOADS[1]
    assert dialog.locator(".change-item .entry-text").text_content() == PAYLOADS[1] + REVISED
    assert_inert(console)


def test_labels_show_payloads_verbatim(
    console: Console, door: DoorServer, xss_memory: Seeded
) -> None:
    version = 0
    for payload in PAYLOADS[:5] + PAYLOADS[25:27]:
        answer = door.stub.SetMemoryLabel(
            pb.SetMemoryLabelRequest(
                memory_id=xss_memory.artifact_id, label=payload, label_version=version
            )
        )
        version = answer.label_version
        console.open("#/")
        console.page.reload()  # the same route again: read the list anew
        row = console.memory_row(xss_memory.artifact_id)
        expect(row.locator(".label")).to_have_text(payload)
        assert_inert(console)
