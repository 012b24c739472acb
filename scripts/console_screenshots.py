"""`python -m scripts.console_screenshots`: docs/images/console-*.png, the console's main views in
Debian's Chromium over a real server seeded with the tests' story (tests/browser/seed.py)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import grpc
from playwright import sync_api as playwright_api

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from tests.browser.harness import launch, new_console, start_door_server
from tests.browser.seed import MERGED_TEXT, Story, remember, story

IMAGES = Path(__file__).resolve().parents[1] / "docs" / "images"


def label(stub: pb_grpc.MemoryServiceStub, seeded: Story) -> None:
    """Labels for the listing (a second, smaller memory too), when the server sets labels."""
    other = remember(stub, None, [types.EntryInput(kind="preference", text="Answer in English.")])
    try:
        for memory_id, text in (
            (seeded.artifact_id, "Release rules"),
            (other.memory.artifact_id, "Team preferences"),
        ):
            stub.SetMemoryLabel(pb.SetMemoryLabelRequest(memory_id=memory_id, label=text))
    except grpc.RpcError as error:
        if error.code() != grpc.StatusCode.UNIMPLEMENTED:
            raise


def shoot(browser: playwright_api.Browser, url: str, seeded: Story) -> list[Path]:
    context, console = new_console(browser, url)
    page = console.page
    memory = seeded.artifact_id
    taken = []

    def save(name: str, ready: str) -> None:
        page.locator(ready).first.wait_for()
        page.wait_for_timeout(300)  # operations and counts fill in after the first paint
        path = IMAGES / f"console-{name}.png"
        page.screenshot(path=path)
        taken.append(path)

    console.open("#/")
    save("memories", "table.memories, .error")
    console.go(f"#/m/{memory}?status=ENTRY_STATUS_ACTIVE&status=ENTRY_STATUS_MERGED")
    save("entries", "article.entry")
    console.go(f"#/m/{memory}/timeline")
    save("timeline", "li.revision .operation:not(:text('…'))")
    console.go(f"#/m/{memory}/rev/2")
    save("diff", ".change-diff")
    console.go(f"#/m/{memory}/entry/{seeded.entries['nightly'].entry_id}")
    page.locator("button.source-ref").last.click()
    save("history", ".source-card")
    console.go(f"#/search?m={memory}&q=signed%20deploy%20tag")
    save("search", ".search-column li.hit")
    console.go(f"#/m/{memory}/entry/{seeded.entries['merged'].entry_id}")
    page.get_by_role("button", name="Undo merge…").click()
    save("restore-preview", "dialog.curation .preview")
    page.keyboard.press("Escape")
    nightly = seeded.entries["nightly"]
    good = f"{memory}@{seeded.memory.revision}/{nightly.entry_id}/{nightly.entry_version_id}"
    console.go(f"#/cite?c={good}&c={memory}@1/{nightly.entry_id}/{nightly.entry_version_id}")
    save("citations", ".citation-result .error")
    for text in (MERGED_TEXT, seeded.texts["rule"], seeded.texts["nightly"]):
        console.go(f"#/m/{memory}")
        page.locator("article.entry", has_text=text).get_by_role(
            "button", name="Add to handoff"
        ).click()
    console.go("#/handoff")
    save("handoff", ".handoff-line")
    console.assert_clean()
    context.close()
    return taken


def main() -> None:
    IMAGES.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="pcmem-shots-") as tmp:
        process, port = start_door_server(Path(tmp) / "memory.sqlite3", "--embedding", "minilm")
        try:
            with grpc.insecure_channel(f"127.0.0.1:{process.port}") as channel:
                stub = pb_grpc.MemoryServiceStub(channel)
                seeded = story(stub)
                label(stub, seeded)
            with playwright_api.sync_playwright() as playwright:
                browser = launch(playwright)
                for path in shoot(browser, f"http://127.0.0.1:{port}/", seeded):
                    print(path.relative_to(IMAGES.parents[1]))
                browser.close()
        finally:
            process.stop()


if __name__ == "__main__":
    main()
