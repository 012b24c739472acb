"""What the console's tests, its screenshots and its benchmark share: Debian's Chromium as
Playwright launches it, a server with its HTTP door, and a page watched for anything it must
never do (a dialog, an uncaught error, a CSP violation, the XSS tripwire)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from playwright import sync_api as playwright_api

from powercontext_memory.serving.startup import serving_http_port

from ..serving import ServerProcess

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# Records every CSP violation the page reports; installed before any of the page's own scripts.
WATCH_CSP = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__csp.push({directive: e.violatedDirective, blocked: e.blockedURI,
                     source: e.sourceFile, sample: e.sample});
});
"""
WAIT_MS = 15_000


def start_door_server(database: Path, *args: str) -> tuple[ServerProcess, int]:
    process = ServerProcess(
        database, "--http-listen", "127.0.0.1:0", "--progress-interval", "0.2", *args
    )
    port = serving_http_port(process.served.line)
    if port is None:
        process.stop()
        raise AssertionError(f"the startup line names no HTTP door: {process.served.line!r}")
    return process, port


def launch(playwright: playwright_api.Playwright) -> playwright_api.Browser:
    """Debian's Chromium (never a downloaded browser build)."""
    if not Path(CHROMIUM).exists():
        raise AssertionError(f"{CHROMIUM} is missing: apt-get install chromium (make test does)")
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


@dataclass
class Console:
    """A page of the console and everything it did that it must not do."""

    page: playwright_api.Page
    base_url: str
    dialogs: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)

    def open(self, route: str = "#/") -> None:
        self.page.goto(self.base_url + route)

    def go(self, route: str) -> None:
        """Navigates inside the loaded page (a hash change), as a click on a link does."""
        self.page.evaluate("route => { location.hash = route; }", route)

    def memory_row(self, artifact_id: str) -> playwright_api.Locator:
        """The memories list's row of `artifact_id`, paging on (50 a page) until it is shown."""
        row = self.page.locator(f'tr[data-memory="{artifact_id}"]')
        more = self.page.get_by_role("button", name="More memories")
        self.page.locator("table.memories tbody tr").first.wait_for()
        while not row.count() and more.count():
            shown = self.page.locator("table.memories tbody tr").count()
            more.click()
            self.page.locator(f"table.memories tbody tr >> nth={shown}").wait_for()
        return row

    def csp_violations(self) -> list[dict[str, str]]:
        return self.page.evaluate("window.__csp || []")

    def xss_fired(self) -> object:  # the tripwire a payload would set
        return self.page.evaluate("window.__xss")

    def assert_clean(self) -> None:
        assert self.xss_fired() is None, "a payload ran in the page"
        assert self.dialogs == [], f"the page opened dialogs: {self.dialogs}"
        assert self.csp_violations() == [], f"CSP violations: {self.csp_violations()}"
        assert self.page_errors == [], f"uncaught errors: {self.page_errors}"
        csp_console = [m for m in self.console_errors if "Content Security Policy" in m]
        assert csp_console == [], csp_console
        failed_views = [m for m in self.console_errors if "view failed" in m]
        assert failed_views == [], failed_views
        assert self.stray_values() == [], "a missing value was shown as text"

    def stray_values(self) -> list[str]:
        """Text nodes that are only "null", "undefined", "NaN" or "[object Object]"."""
        return self.page.evaluate(
            """() => {
              const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
              const found = [];
              while (walker.nextNode()) {
                const text = walker.currentNode.textContent.trim();
                if (/^(null|undefined|NaN|\\[object Object\\])$/.test(text)) found.push(text);
              }
              return found;
            }"""
        )


def new_console(
    browser: playwright_api.Browser, base_url: str
) -> tuple[playwright_api.BrowserContext, Console]:
    context = browser.new_context(viewport={"width": 1360, "height": 900})
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    page.add_init_script(WATCH_CSP)
    console = Console(page, base_url)

    def on_dialog(dialog: playwright_api.Dialog) -> None:
        console.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.on("pageerror", lambda error: console.page_errors.append(str(error)))
    page.on(
        "console",
        lambda message: (
            console.console_errors.append(message.text) if message.type == "error" else None
        ),
    )
    return context, console
