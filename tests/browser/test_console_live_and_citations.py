"""Live revisions arriving while the page is open, citation checks (verified, tampered, wrong,
malformed) and the handoff built from picked citations, in Chromium."""

from __future__ import annotations

from playwright.sync_api import expect

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types

from .conftest import Console, DoorServer
from .seed import MERGED_TEXT, REVISED_NIGHTLY, TEXTS, Story, remember


def cite(story: Story, role: str, revision: int = 4) -> str:
    ref = story.entries[role]
    return f"{story.artifact_id}@{revision}/{ref.entry_id}/{ref.entry_version_id}"


def test_a_revision_committed_elsewhere_appears_in_the_open_timeline(
    console: Console, door: DoorServer, story_memory: Story
) -> None:
    page = console.page
    console.open(f"#/m/{story_memory.artifact_id}/timeline")
    expect(page.locator("li.revision")).to_have_count(4)
    expect(page.locator(".live-status")).to_have_text("live")
    added = remember(
        door.stub, story_memory.memory, [types.EntryInput(kind="fact", text="Arrived live.")]
    )
    door.stub.Forget(
        pb.ForgetRequest(
            memory=added.memory,
            entries=[
                types.EntryRef(
                    entry_id=added.results[0].entry_id,
                    entry_version_id=added.results[0].entry_version_id,
                )
            ],
            reason="gone again",
        )
    )
    arrived = page.locator("li.revision.arrived")
    expect(arrived).to_have_count(2)
    expect(page.locator("li.revision").first).to_have_attribute("data-revision", "6")
    expect(arrived.first.locator(".operation")).to_have_text("forget")
    expect(arrived.first).to_contain_text("gone again")
    expect(page.locator(".head-revision")).to_have_text("6")
    # The entries view offers the new head instead of changing under the reader's eyes.
    page.get_by_role("link", name="Entries", exact=True).click()
    expect(page.locator(".at-head")).to_contain_text("revision 6")
    remember(
        door.stub,
        types.ArtifactRef(artifact_id=story_memory.artifact_id, revision=6),
        [types.EntryInput(kind="fact", text="Seventh.")],
    )
    page.get_by_role("button", name="Show the new head").click()
    expect(page.locator("article.entry", has_text="Seventh.")).to_be_visible()


def test_a_good_citation_is_verified_by_hash(console: Console, story_memory: Story) -> None:
    page = console.page
    console.open("#/cite")
    page.get_by_label("Citations").fill(cite(story_memory, "nightly"))
    page.get_by_role("button", name="Check").click()
    result = page.locator(".citation-result")
    expect(result.locator(".verified-by-hash")).to_contain_text("Verified by hash")
    expect(result.locator("article.version")).to_contain_text(REVISED_NIGHTLY)
    expect(result.locator(".state")).to_have_text("active")


def test_tampered_wrong_and_malformed_citations_show_the_precise_error(
    console: Console, story_memory: Story
) -> None:
    page = console.page
    good = cite(story_memory, "nightly")
    memory, entry, version = good.split("/")
    old_version = cite(story_memory, "rule").split("/")[2]
    cases = [
        f"{memory}/{entry}/{version[:-4]}beef",  # a version that does not exist
        f"{memory}/{entry}/{old_version}",  # another entry's version
        f"{story_memory.artifact_id}@99/{entry}/{version}",  # a revision that does not exist
        f"{memory}/{entry}",  # not a citation at all
    ]
    console.open("#/cite?" + "&".join(f"c={c}" for c in cases))
    results = page.locator(".citation-result")
    expect(results).to_have_count(4)
    for index in range(3):
        expect(results.nth(index).locator(".error")).to_contain_text("Not verified: NOT_FOUND")
        expect(results.nth(index).locator(".verified-by-hash")).to_have_count(0)
    expect(results.nth(0).locator(".error")).to_contain_text("CITATION_MISMATCH")
    expect(results.nth(3).locator(".error")).to_contain_text("not a citation")


def test_handoff_groups_verified_entries_by_kind_with_links(
    console: Console, story_memory: Story
) -> None:
    page = console.page
    console.open(f"#/m/{story_memory.artifact_id}")
    for text in (TEXTS["rule"], MERGED_TEXT, REVISED_NIGHTLY):
        page.locator("article.entry", has_text=text).get_by_role(
            "button", name="Add to handoff"
        ).click()
    expect(page.locator(".handoff-nav .count")).to_have_text("3")
    page.get_by_role("link", name="Handoff").click()
    page.get_by_label("Add citations").fill(f"{story_memory.artifact_id}@4/nope/nope")
    page.get_by_role("button", name="Add").click()
    kinds = page.locator(".handoff-kind")
    expect(kinds).to_have_text(["constraint", "decision", "fact"])
    lines = page.locator(".handoff-line")
    expect(lines).to_have_count(3)
    expect(lines.nth(0)).to_contain_text(TEXTS["rule"])
    expect(page.locator(".handoff-failed")).to_contain_text("NOT_FOUND")
    text = page.locator("textarea.handoff-text").input_value()
    assert f"## constraint\n- {TEXTS['rule']} ({cite(story_memory, 'rule')})" in text
    lines.nth(2).get_by_role("link", name="verified version").click()
    expect(page.locator(".verified-by-hash")).to_contain_text("Verified by hash")
    expect(page.locator("article.version")).to_contain_text(REVISED_NIGHTLY)
