"""Every relative link in README.md and docs/ leads somewhere: the file exists and, for a
Markdown file, so does the heading an anchor names."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.doc_blocks import ROOT, anchors, documentation_files, links, slug

EXTERNAL = ("http://", "https://", "mailto:")


def broken_links(path: Path, root: Path = ROOT) -> list[str]:
    broken = []
    for target in links(path):
        if target.startswith(EXTERNAL):
            continue
        file_part, _, anchor = target.partition("#")
        destination = (path.parent / file_part).resolve() if file_part else path
        if not destination.exists():
            broken.append(f"{target}: no such file")
            continue
        if root not in destination.parents and destination != root:
            broken.append(f"{target}: outside the repository")
            continue
        if anchor and destination.suffix == ".md" and anchor not in anchors(destination):
            broken.append(f"{target}: no heading with that anchor")
    return broken


@pytest.mark.parametrize("path", documentation_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path: Path) -> None:
    assert broken_links(path) == []


def test_the_documentation_is_linked_from_the_readme() -> None:
    linked = {
        (ROOT / target.partition("#")[0]).resolve()
        for target in links(ROOT / "README.md")
        if not target.startswith(EXTERNAL)
    }
    docs = {p.resolve() for p in (ROOT / "docs").glob("*.md")}
    assert sorted(str(p.relative_to(ROOT)) for p in docs - linked) == []


def test_the_link_checker_can_fail(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# Other\n\n## A `code` heading (here)\n", encoding="utf-8")
    page.write_text(
        "# Page\n\n[ok](other.md#a-code-heading-here) [self](#page) [gone](missing.md)\n"
        "[bad anchor](other.md#nope) `[not a link](missing.md)`\n\n"
        "```\n[in code](missing.md)\n```\n",
        encoding="utf-8",
    )
    assert broken_links(page, tmp_path) == [
        "missing.md: no such file",
        "other.md#nope: no heading with that anchor",
    ]
    assert slug("Use it from Claude Code / Codex / any MCP client") == (
        "use-it-from-claude-code--codex--any-mcp-client"
    )
    assert slug("Performance (`make bench`)") == "performance-make-bench"
