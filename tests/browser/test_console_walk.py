"""The console read-only walk in Chromium: memories, a memory's entries with filters, time travel,
the timeline, a revision's diff, an entry's history and lineage, evidence, and search in three
modes side by side."""

from __future__ import annotations

from playwright.sync_api import expect

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types

from .conftest import Console, DoorServer
from .seed import MERGED_TEXT, REVISED_NIGHTLY, TEXTS, Story, put_source, remember


def test_memories_list_shows_label_counts_and_last_operation(
    console: Console, door: DoorServer, story_memory: Story
) -> None:
    door.stub.SetMemoryLabel(
        pb.SetMemoryLabelRequest(memory_id=story_memory.artifact_id, label="Deploy notes")
    )
    console.open("#/")
    row = console.memory_row(story_memory.artifact_id)
    expect(row).to_contain_text("Deploy notes")
    cells = row.locator("td")
    expect(cells.nth(2)).to_have_text("4")  # head revision
    expect(cells.nth(3)).to_have_text("3")  # the rule, the revised fact, the merge result
    expect(cells.nth(4)).to_have_text("3")  # the forgotten one and the two merged inputs
    expect(cells.nth(5)).to_have_text("merge")
    row.locator("a.memory-link").click()
    expect(console.page.locator(".memory-header h1")).to_have_text(story_memory.artifact_id)


def test_memories_list_pages_on_to_every_memory(console: Console, door: DoorServer) -> None:
    for n in range(51):
        remember(door.stub, None, [types.EntryInput(kind="fact", text=f"Paged memory {n}.")])
    listed, token = [], ""
    while True:
        page = door.stub.ListMemories(pb.ListMemoriesRequest(page_size=100, page_token=token))
        listed += [summary.head.artifact_id for summary in page.memories]
        if not (token := page.next_page_token):
            break
    console.open("#/")
    rows = console.page.locator("table.memories tbody tr")
    expect(rows).to_have_count(50)
    console.memory_row(listed[-1])
    expect(rows).to_have_count(len(listed))
    assert rows.evaluate_all("rows => rows.map(r => r.dataset.memory)") == listed


def test_entries_at_head_with_status_kind_and_tag_filters(
    console: Console, story_memory: Story
) -> None:
    page = console.page
    console.open(f"#/m/{story_memory.artifact_id}")
    entries = page.locator("article.entry")
    expect(entries).to_have_count(3)  # rule, revised nightly, merge result
    expect(page.locator(".entry-text", has_text=REVISED_NIGHTLY)).to_be_visible()
    expect(page.locator(".entry-text", has_text=MERGED_TEXT)).to_be_visible()
    page.get_by_label("inactive").check()
    page.get_by_label("merged").check()
    page.get_by_role("button", name="Show").click()
    expect(entries).to_have_count(6)
    expect(page.locator('article.entry[data-status="merged"]')).to_have_count(2)
    expect(page.locator('article.entry[data-status="inactive"]')).to_contain_text(TEXTS["style"])
    console.go(f"#/m/{story_memory.artifact_id}?status=ENTRY_STATUS_ACTIVE&kind=decision")
    expect(entries).to_have_count(1)
    expect(entries).to_contain_text(MERGED_TEXT)
    console.go(
        f"#/m/{story_memory.artifact_id}?status=ENTRY_STATUS_MERGED&status=ENTRY_STATUS_ACTIVE"
        "&tag=deploy"
    )
    expect(entries).to_have_count(3)  # both inputs and the result carry the tag


def test_time_travel_shows_the_entries_of_revision_one(
    console: Console, story_memory: Story
) -> None:
    page = console.page
    console.open(f"#/m/{story_memory.artifact_id}?rev=1")
    expect(page.locator(".time-travel")).to_contain_text("As of revision 1")
    expect(page.locator("article.entry")).to_have_count(5)
    expect(page.locator(".entry-text", has_text=TEXTS["nightly"])).to_be_visible()
    expect(page.get_by_role("button", name="Forget")).to_have_count(0)  # the past is read only
    page.get_by_role("link", name="revision 2 →").click()
    expect(page.locator(".entry-text", has_text=REVISED_NIGHTLY)).to_be_visible()


def test_timeline_and_diff_walk_back_to_revision_one(console: Console, story_memory: Story) -> None:
    page = console.page
    console.open(f"#/m/{story_memory.artifact_id}/timeline")
    revisions = page.locator("li.revision")
    expect(revisions).to_have_count(4)
    expect(revisions.nth(0).locator(".operation")).to_have_text("merge")
    expect(revisions.nth(1).locator(".operation")).to_have_text("forget")
    expect(revisions.nth(1)).to_contain_text("outdated")
    expect(revisions.nth(1).locator(".touched-text")).to_have_text(TEXTS["style"])
    expect(revisions.nth(2).locator(".touched-text")).to_have_text(REVISED_NIGHTLY)
    expect(revisions.nth(3).locator(".operation")).to_have_text("remember")
    revisions.nth(2).get_by_role("link", name="diff").click()
    diff = page.locator(".change-diff")
    expect(diff).to_have_count(1)
    expect(diff.locator(".side.old")).to_contain_text(TEXTS["nightly"])
    expect(diff.locator(".side.new")).to_contain_text(REVISED_NIGHTLY)
    expect(diff.locator("ins").first).to_be_visible()
    expect(diff).to_contain_text("more precise")
    page.get_by_role("link", name="← revision 1").click()
    expect(page.locator(".change-diff")).to_have_count(5)
    expect(page.locator("nav.walk")).to_contain_text("first revision")


def test_entry_history_walks_versions_and_shows_evidence(
    console: Console, story_memory: Story
) -> None:
    page = console.page
    nightly = story_memory.entries["nightly"].entry_id
    console.open(f"#/m/{story_memory.artifact_id}/entry/{nightly}")
    versions = page.locator("article.version")
    expect(versions).to_have_count(2)
    expect(versions.nth(0)).to_contain_text(REVISED_NIGHTLY)
    expect(versions.nth(1)).to_contain_text(TEXTS["nightly"])
    expect(page.locator(".lineage-event")).to_have_count(2)
    # The first version's evidence is the user note: its content opens on click.
    versions.nth(1).locator("button.source-ref").click()
    expect(versions.nth(1).locator(".source-content")).to_have_text(
        "User said: the nightly export runs at 02:00 UTC."
    )
    expect(versions.nth(1).locator(".source-card")).to_contain_text("note://chat/1")


def test_a_large_source_shows_its_first_part_and_its_size(
    console: Console, door: DoorServer
) -> None:
    body = "".join(f"line {n:07d} of the captured build log\n" for n in range(20_000))
    evidence = put_source(door.stub, body, kind="file", uri="file://build.log")
    written = remember(
        door.stub, None, [types.EntryInput(kind="fact", text="The build log is long.")], [evidence]
    )
    page = console.page
    entry = written.results[0].entry_id
    console.open(f"#/m/{written.memory.artifact_id}/entry/{entry}")
    page.locator("button.source-ref").click()
    card = page.locator(".source-card")
    expect(card).to_contain_text(f"{len(body.encode())} bytes; the first 262144 are shown")
    shown = page.locator(".source-content").inner_text()
    assert shown.startswith("line 0000000 of the captured build log")
    assert 262_000 < len(shown) <= 262_144


def test_merge_lineage_links_inputs_and_result(console: Console, story_memory: Story) -> None:
    page = console.page
    merged = story_memory.entries["merged"].entry_id
    console.open(f"#/m/{story_memory.artifact_id}/entry/{merged}")
    expect(page.locator("main")).to_contain_text("Made by merging")
    expect(page.get_by_role("button", name="Undo merge…")).to_be_visible()
    page.get_by_role("link", name=story_memory.entries["signed"].entry_id).first.click()
    expect(page.locator("h2").first).to_contain_text("merged")
    expect(page.locator("main")).to_contain_text("Merged into")


def test_search_runs_fts_vector_and_hybrid_side_by_side(
    console: Console, story_memory: Story
) -> None:
    page = console.page
    console.open("#/search")
    page.locator(f'.memory-picks input[value="{story_memory.artifact_id}"]').check()
    expect(page.get_by_label("Memories")).to_have_value(story_memory.artifact_id)
    page.get_by_label("Query").fill("nightly export index")
    page.get_by_role("button", name="Search").click()
    for mode, channel in (("fts", "fts #1"), ("vector", "vector #1"), ("hybrid", "#1")):
        column = page.locator(f'.search-column[data-mode="{mode}"]')
        expect(column.locator(".status")).to_contain_text(f"ran {mode}")
        first = column.locator("li.hit").first
        expect(first).to_contain_text(REVISED_NIGHTLY)
        expect(first.locator(".ranks")).to_contain_text(channel)
    hybrid = page.locator('.search-column[data-mode="hybrid"] li.hit').first
    expect(hybrid.locator(".ranks")).to_contain_text("fts #1 · vector #1")
    expect(page.locator(".capabilities")).to_contain_text("vector search available")
