"""Curation from the console in Chromium: each write shows what will change before it commits,
names the revision the view was loaded at, and says clearly when the memory moved meanwhile.
The memory is checked over gRPC after each step: what the page said is what happened."""

from __future__ import annotations

from playwright.sync_api import expect

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types

from .conftest import Console, DoorServer
from .seed import MERGED_TEXT, REVISED_NIGHTLY, TEXTS, Story, remember


def head(door: DoorServer, story: Story) -> pb.GetMemoryResponse:
    return door.stub.GetMemory(
        pb.GetMemoryRequest(
            memory=types.ArtifactRef(artifact_id=story.artifact_id), metadata_only=False
        )
    )


def statuses(door: DoorServer, story: Story) -> dict[str, int]:
    listed = door.stub.ListEntries(
        pb.ListEntriesRequest(
            memory=types.ArtifactRef(artifact_id=story.artifact_id),
            statuses=[
                types.ENTRY_STATUS_ACTIVE,
                types.ENTRY_STATUS_INACTIVE,
                types.ENTRY_STATUS_MERGED,
            ],
            include_text=True,
        )
    )
    return {entry.text: entry.status for entry in listed.entries}


def entry_row(console: Console, text: str):  # noqa: ANN201 - a Playwright locator
    return console.page.locator("article.entry", has_text=text)


def test_forget_lists_exactly_what_changes_then_commits(
    console: Console, door: DoorServer, story_memory: Story
) -> None:
    page = console.page
    console.open(f"#/m/{story_memory.artifact_id}")
    entry_row(console, TEXTS["rule"]).get_by_role("button", name="Forget").click()
    dialog = page.locator("dialog.curation")
    expect(dialog.locator(".change-item")).to_have_count(1)
    expect(dialog.locator(".change-item")).to_contain_text(TEXTS["rule"])
    expect(dialog.locator(".change-item")).to_contain_text(
        story_memory.entries["rule"].entry_version_id
    )
    assert head(door, story_memory).memory.revision == 4  # nothing written before the commit
    dialog.get_by_label("Reason").fill("no longer true")
    dialog.get_by_role("button", name="Forget").click()
    expect(dialog.locator(".done")).to_contain_text("Committed revision 5")
    assert statuses(door, story_memory)[TEXTS["rule"]] == types.ENTRY_STATUS_INACTIVE
    changes = head(door, story_memory).content.changes
    assert [(c.entry_id, c.reason) for c in changes] == [
        (story_memory.entries["rule"].entry_id, "no longer true")
    ]


def test_revise_writes_a_new_version_of_the_entry(
    console: Console, door: DoorServer, story_memory: Story
) -> None:
    page = console.page
    console.open(f"#/m/{story_memory.artifact_id}")
    entry_row(console, REVISED_NIGHTLY).get_by_role("button", name="Revise").click()
    dialog = page.locator("dialog.curation")
    dialog.get_by_label("Text").fill("The nightly job exports the index at 03:00 UTC.")
    dialog.get_by_label("Tags (comma separated)").fill("ops, schedule")
    dialog.get_by_role("button", name="Save new version").click()
    expect(dialog.locator(".done")).to_contain_text("Committed revision 5")
    found = statuses(door, story_memory)
    assert found["The nightly job exports the index at 03:00 UTC."] == types.ENTRY_STATUS_ACTIVE
    assert REVISED_NIGHTLY not in found  # the same entry, now at its new version
    page.keyboard.press("Escape")
    expect(entry_row(console, "03:00 UTC")).to_contain_text("schedule")


def test_merge_confirms_inputs_and_result_then_commits(
    console: Console, door: DoorServer, story_memory: Story
) -> None:
    page = console.page
    console.open(f"#/m/{story_memory.artifact_id}")
    for text in (TEXTS["rule"], REVISED_NIGHTLY):
        entry_row(console, text).locator("input.select").check()
    page.get_by_role("button", name="Merge selected").click()
    dialog = page.locator("dialog.curation")
    dialog.get_by_label("Merged text").fill("Never edit site/; the nightly job exports at 02:00.")
    dialog.get_by_role("button", name="Review merge").click()
    expect(dialog.locator(".change-list").last).to_contain_text("mark merged")
    assert head(door, story_memory).memory.revision == 4
    dialog.get_by_role("button", name="Merge", exact=True).click()
    expect(dialog.locator(".done")).to_contain_text("Committed revision 5")
    found = statuses(door, story_memory)
    assert found[TEXTS["rule"]] == types.ENTRY_STATUS_MERGED
    assert found[REVISED_NIGHTLY] == types.ENTRY_STATUS_MERGED
    assert found["Never edit site/; the nightly job exports at 02:00."] == types.ENTRY_STATUS_ACTIVE


def test_merge_needs_two_active_entries_selected(console: Console, story_memory: Story) -> None:
    page = console.page
    console.open(f"#/m/{story_memory.artifact_id}")
    entry_row(console, TEXTS["rule"]).locator("input.select").check()
    page.get_by_role("button", name="Merge selected").click()
    expect(page.locator(".selection-hint")).to_contain_text("Select at least 2 active entries")
    expect(page.locator("dialog.curation")).to_have_count(0)


def test_restore_shows_the_preview_then_commits_it(
    console: Console, door: DoorServer, story_memory: Story
) -> None:
    page = console.page
    console.open(f"#/m/{story_memory.artifact_id}?status=ENTRY_STATUS_MERGED")
    entry_row(console, TEXTS["signed"]).get_by_role("button", name="Restore…").click()
    dialog = page.locator("dialog.curation")
    expect(dialog.locator(".preview")).to_contain_text("Preview of head revision 4")
    restored = dialog.locator(".change-list.restored .change-item")
    expect(restored).to_have_count(2)  # undoing the merge brings both inputs back
    expect(dialog.locator(".change-list.restored")).to_contain_text(TEXTS["signed"])
    expect(dialog.locator(".change-list.restored")).to_contain_text(TEXTS["ci"])
    expect(dialog.locator(".change-list.retired")).to_contain_text(MERGED_TEXT)
    assert head(door, story_memory).memory.revision == 4  # a preview writes nothing
    dialog.get_by_role("button", name="Restore", exact=True).click()
    expect(dialog.locator(".done")).to_contain_text("Committed revision 5")
    found = statuses(door, story_memory)
    assert found[TEXTS["signed"]] == types.ENTRY_STATUS_ACTIVE
    assert found[TEXTS["ci"]] == types.ENTRY_STATUS_ACTIVE
    assert found[MERGED_TEXT] == types.ENTRY_STATUS_INACTIVE


def test_undo_merge_and_restore_of_an_old_version_from_the_history(
    console: Console, door: DoorServer, story_memory: Story
) -> None:
    page = console.page
    merged = story_memory.entries["merged"].entry_id
    console.open(f"#/m/{story_memory.artifact_id}/entry/{merged}")
    page.get_by_role("button", name="Undo merge…").click()
    dialog = page.locator("dialog.curation")
    expect(dialog.locator(".change-list.retired")).to_contain_text(MERGED_TEXT)
    dialog.get_by_role("button", name="Undo merge", exact=True).click()
    expect(dialog.locator(".done")).to_contain_text("Committed revision 5")
    dialog.get_by_role("button", name="Close").click()
    assert statuses(door, story_memory)[MERGED_TEXT] == types.ENTRY_STATUS_INACTIVE

    nightly = story_memory.entries["nightly"].entry_id
    console.go(f"#/m/{story_memory.artifact_id}/entry/{nightly}")
    page.get_by_role("button", name="Restore this version…").click()
    dialog = page.locator("dialog.curation")
    expect(dialog.locator(".preview")).to_contain_text("As version")
    dialog.get_by_role("button", name="Restore", exact=True).click()
    expect(dialog.locator(".done")).to_contain_text("Committed revision 6")
    found = statuses(door, story_memory)
    assert found[TEXTS["nightly"]] == types.ENTRY_STATUS_ACTIVE  # the old text, a new version
    assert REVISED_NIGHTLY not in found


def test_a_write_on_a_moved_head_says_the_memory_changed(
    console: Console, door: DoorServer, story_memory: Story
) -> None:
    page = console.page
    console.open(f"#/m/{story_memory.artifact_id}")
    expect(page.locator(".at-head")).to_contain_text("revision 4")
    remember(door.stub, story_memory.memory, [types.EntryInput(kind="fact", text="Meanwhile.")])
    entry_row(console, TEXTS["rule"]).get_by_role("button", name="Forget").click()
    dialog = page.locator("dialog.curation")
    dialog.get_by_role("button", name="Forget").click()
    error = dialog.locator(".error.aborted")
    expect(error).to_contain_text("The memory changed, reload")
    expect(error).to_contain_text("head is now revision 5")
    assert statuses(door, story_memory)[TEXTS["rule"]] == types.ENTRY_STATUS_ACTIVE
    assert head(door, story_memory).memory.revision == 5
    error.get_by_role("button", name="Reload").click()
    page.keyboard.press("Escape")
    expect(page.locator(".at-head")).to_contain_text("revision 5")
    expect(entry_row(console, "Meanwhile.")).to_be_visible()


def test_label_is_set_with_its_version_and_a_stale_one_is_refused(
    console: Console, door: DoorServer, story_memory: Story
) -> None:
    console.open("#/")
    row = console.memory_row(story_memory.artifact_id)
    row.get_by_role("button", name="Edit").click()
    row.locator("input[name=label]").fill("Release rules")
    row.get_by_role("button", name="Save").click()
    expect(row.locator(".label")).to_have_text("Release rules")
    door.stub.SetMemoryLabel(
        pb.SetMemoryLabelRequest(
            memory_id=story_memory.artifact_id, label="Changed elsewhere", label_version=1
        )
    )
    row.get_by_role("button", name="Edit").click()
    row.locator("input[name=label]").fill("Mine")
    row.get_by_role("button", name="Save").click()
    expect(row.locator(".error.aborted")).to_contain_text("label was changed")
