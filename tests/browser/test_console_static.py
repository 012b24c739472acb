"""The console's files keep the rules its CSP and its threat model rest on: no HTML parsing of
data, no inline script or style, nothing from another origin, small modules, a small page;
and the door serves every file with its type and the CSP."""

from __future__ import annotations

import re
import urllib.request
from pathlib import Path

from powercontext_memory.console import STATIC_DIRECTORY

from .conftest import DoorServer

PAGE_BUDGET_BYTES = 120_000  # every static file together, uncompressed
FORBIDDEN = re.compile(
    r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\s*\(|new\s+Function"
    r"|setAttribute\(\s*['\"](on|style|src|href)|\.style\.|createContextualFragment|DOMParser"
    r"|srcdoc|javascript:"
)
# The guard itself (js/dom.js): the only place that sets href, and only to a hash route.
GUARD_LINES = {
    "const FORBIDDEN_ATTRIBUTES = /^(on|style$|src$|srcdoc$|formaction$|action$|xlink:href$)/i;",
    "} else if (key === 'href') node.setAttribute('href', hashOnly(value));",
}
IMPORT = re.compile(r"""^import .* from '(\.[^']+)';$""", re.MULTILINE)
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


# Straight to the loopback door, whatever proxy the environment names.
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def static_files() -> list[Path]:
    return sorted(p for p in STATIC_DIRECTORY.rglob("*") if p.is_file())


def test_scripts_never_parse_html_or_run_strings_as_code() -> None:
    scripts = [p for p in static_files() if p.suffix == ".js"]
    assert len(scripts) >= 10
    found = {
        f"{path.relative_to(STATIC_DIRECTORY)}:{n}": line.strip()
        for path in scripts
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if FORBIDDEN.search(line)
        and not line.lstrip().startswith("//")
        and line.strip() not in GUARD_LINES
    }
    assert found == {}


def test_the_page_has_no_inline_script_style_or_foreign_origin() -> None:
    html = (STATIC_DIRECTORY / "index.html").read_text()
    assert re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", html) == []
    assert re.findall(r"<style|\sstyle=|\son\w+=", html) == []
    for path in static_files():
        text = path.read_text()
        assert not re.search(r"https?://|//cdn|@import url", text), path


def test_every_module_import_resolves_and_modules_stay_small() -> None:
    for path in static_files():
        if path.suffix != ".js":
            continue
        text = path.read_text()
        assert len(text.splitlines()) < 400, path
        for target in IMPORT.findall(text):
            assert (path.parent / target).resolve().is_file(), f"{path}: {target}"


def test_the_page_preloads_every_module() -> None:
    html = (STATIC_DIRECTORY / "index.html").read_text()
    preloaded = set(re.findall(r'<link rel="modulepreload" href="([^"]+)">', html))
    modules = {
        p.relative_to(STATIC_DIRECTORY).as_posix()
        for p in static_files()
        if p.suffix == ".js" and p.name != "main.js"
    }
    assert preloaded == modules


def test_page_weight_stays_within_budget() -> None:
    total = sum(p.stat().st_size for p in static_files())
    assert 0 < total <= PAGE_BUDGET_BYTES, total


def test_the_door_serves_each_file_with_its_type_and_the_csp(door: DoorServer) -> None:
    types = {".html": "text/html", ".js": "text/javascript", ".css": "text/css"}
    for path in static_files():
        name = path.relative_to(STATIC_DIRECTORY).as_posix()
        with OPENER.open(door.url + name) as answer:
            assert answer.headers["Content-Type"].startswith(types[path.suffix]), name
            assert answer.read() == path.read_bytes()
    with OPENER.open(door.url) as answer:
        assert answer.headers["Content-Security-Policy"] == CSP
        assert b'<script type="module" src="js/main.js">' in answer.read()
