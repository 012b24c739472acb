"""`python -m bench.console`: the web console's page weight, and the time from navigation to the
first entry row shown for a memory of 10,000 entries, in Debian's Chromium over a real server's
HTTP door (SQLite in a temporary directory, no embedding model).

Each run opens a fresh browser context (nothing cached) at the memory's entries view; the page
records, from an observer installed before its scripts, the first animation frame after the
first entry row entered the document: performance.now() there is the time since navigation
started.
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import tempfile
from pathlib import Path

import grpc
from playwright import sync_api as playwright_api

from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext_memory.console import STATIC_DIRECTORY
from tests.browser.harness import launch, start_door_server
from tests.browser.seed import bulk

FIRST_ROW = """
new MutationObserver((_, observer) => {
  if (!document.querySelector('article.entry')) return;
  observer.disconnect();
  requestAnimationFrame(() => { window.__firstRow = performance.now(); });
}).observe(document, {childList: true, subtree: true});
"""


def page_weight() -> tuple[int, int, int]:
    """(files, bytes, bytes gzipped one by one) of every static file."""
    files = [p for p in STATIC_DIRECTORY.rglob("*") if p.is_file()]
    raw = sum(p.stat().st_size for p in files)
    packed = sum(len(gzip.compress(p.read_bytes(), 9)) for p in files)
    return len(files), raw, packed


def first_row_ms(browser: playwright_api.Browser, url: str) -> float:
    context = browser.new_context(viewport={"width": 1360, "height": 900})
    try:
        page = context.new_page()
        page.add_init_script(FIRST_ROW)
        page.goto(url)
        page.locator("article.entry").first.wait_for(timeout=60_000)
        page.wait_for_timeout(
            100
        )  # the frame after the row; the page's CSP forbids a polled string
        rows = page.locator("article.entry").count()
        assert rows == 50, f"the first page shows {rows} rows"
        return float(page.evaluate("window.__firstRow"))
    finally:
        context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    files, raw, packed = page_weight()
    print(f"page weight: {files} files, {raw:,} bytes ({packed:,} gzipped)")
    with tempfile.TemporaryDirectory(prefix="pcmem-console-") as tmp:
        process, port = start_door_server(Path(tmp) / "memory.sqlite3", "--embedding", "none")
        try:
            with grpc.insecure_channel(f"127.0.0.1:{process.port}") as channel:
                memory = bulk(pb_grpc.MemoryServiceStub(channel), args.entries)
            url = f"http://127.0.0.1:{port}/#/m/{memory.artifact_id}"
            with playwright_api.sync_playwright() as playwright:
                browser = launch(playwright)
                first_row_ms(browser, url)  # warm the server's caches and the browser binary
                samples = [first_row_ms(browser, url) for _ in range(args.runs)]
                browser.close()
        finally:
            process.stop()
    print(
        f"first entry row of a {args.entries:,}-entry memory: median "
        f"{statistics.median(samples):.0f} ms, min {min(samples):.0f}, max {max(samples):.0f} "
        f"over {args.runs} fresh contexts"
    )


if __name__ == "__main__":
    main()
