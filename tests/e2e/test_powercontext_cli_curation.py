"""`powercontext` (the client CLI) curating, as a subprocess against a real server process:
remember --description/--tag, manifest and list pages, search filters, get --metadata-only,
merge, restore (--preview / --preview-token / --version) and undo-merge, with their exit codes
and one-line errors."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..serving import Served, serve_process
from .test_powercontext_cli import Cli


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    database = tmp_path_factory.mktemp("cli-curation") / "memory.sqlite3"
    with serve_process(database) as running:
        yield running


@pytest.fixture
def cli(served: Served, tmp_path: Path) -> Cli:
    return Cli(served.port, tmp_path)


def _abd(cli: Cli) -> tuple[str, list[str]]:
    """A memory with facts A and B (tag build) and preference D (tag docs)."""
    created = cli.json(
        "create", "Builds use uv.", "Tests run with make test.", "--tag", "build",
        "--description", "How we build and test",
    )  # fmt: skip
    memory = created["memory"]["artifact_id"]
    a, b = sorted(r["entry_id"] for r in created["results"])
    added = cli.json("remember", memory, "Docs build with make docs.", "--kind", "preference",
                     "--tag", "docs")  # fmt: skip
    return memory, [a, b, added["results"][0]["entry_id"]]


def _ids(page: dict[str, Any], key: str = "entries") -> list[str]:
    return [e["citation"]["entry_id"] for e in page.get(key, [])]


def test_descriptions_tags_manifest_and_list(cli: Cli) -> None:
    memory, (a, b, d) = _abd(cli)
    page = cli.json("manifest", memory)
    assert sorted(_ids(page, "items")) == sorted([a, b, d])
    assert page["code"] == "RECALL_MANIFEST_CODE_PAGE" and page["next_page_token"] == ""
    by_id = {i["citation"]["entry_id"]: i for i in page["items"]}
    assert by_id[a]["description"] == "How we build and test" and by_id[a]["tags"] == ["build"]
    assert by_id[d]["description"] == "Docs build with make docs." and by_id[d]["tags"] == ["docs"]
    assert all(i["text"] == "" for i in page["items"])

    first = cli.json("manifest", memory, "--page-size", "2")
    assert len(first["items"]) == 2 and first["next_page_token"]
    rest = cli.json(
        "manifest", memory, "--page-size", "2", "--page-token", first["next_page_token"]
    )
    assert _ids(first, "items") + _ids(rest, "items") == _ids(page, "items")
    every = cli("-o", "json", "manifest", memory, "--page-size", "1", "--all").stdout.splitlines()
    assert len(every) == 3  # one response per page
    text = cli("manifest", memory, "--page-size", "1").stdout
    first_item = by_id[min(by_id)]
    assert text.splitlines()[1] == f"   {first_item['description']}"
    assert text.splitlines()[-1].startswith("next page: --page-token pc2.")

    assert _ids(cli.json("manifest", memory, "--kind", "preference"), "items") == [d]
    assert sorted(_ids(cli.json("list", memory, "--tag", "build"))) == sorted([a, b])
    anyone = cli.json("list", memory, "--tag", "build", "--tag", "docs", "--tag-match", "any")
    assert len(_ids(anyone)) == 3
    assert _ids(cli.json("list", memory, "--tag", "build", "--tag", "docs")) == []
    listed = cli("list", memory, "--kind", "preference", "--no-ids").stdout
    assert listed == "preference  [docs]\n  Docs build with make docs.\n"  # text, no description

    view = cli.json("get", memory, "--metadata-only")
    assert view["content_omitted"] is True and view["content"]["manifest"]["entries"] == []
    assert "manifest  omitted" in cli("get", memory, "--metadata-only").stdout

    hits = cli.json("search", "make", "-m", memory, "--kind", "preference", "--mode", "fts")
    assert [h["entry_id"] for h in hits["hits"]] == [d]
    assert cli.json("search", "make", "-m", memory, "--min-score", "5")["hits"] == []
    error = cli.error(2, "search", "make", "-m", memory, "--min-score", "-1")
    assert error.startswith("error: INVALID_ARGUMENT") and "min_score" in error
    error = cli.error(2, "manifest", memory, "--page-size", "101")
    assert "page_size" in error
    error = cli.error(2, "remember", memory, "x", "--description", "two\nlines")
    assert "DESCRIPTION_INVALID" in error


def test_merge_restore_and_undo_merge(cli: Cli) -> None:
    memory, (a, b, d) = _abd(cli)
    assert "give --kind" in cli.error(2, "merge", memory, a, d, "--text", "mixed kinds")
    assert "MERGE_NEEDS_TWO_INPUTS" in cli.error(2, "merge", memory, a, "--text", "one input")

    merged = cli.json("merge", memory, a, b, "--text", "Builds use uv; tests run make test.",
                      "--reason", "same topic")  # fmt: skip
    c = merged["result"]["entry_id"]
    assert {ch["reason"] for ch in merged["changes"]} == {"same topic"}
    frozen = cli.json("list", memory, "--status", "merged")
    assert sorted(_ids(frozen)) == sorted([a, b])
    assert {e["merged_into_entry_id"] for e in frozen["entries"]} == {c}
    assert f"merged into {c}" in cli("list", memory, "--status", "merged").stdout
    result = cli.json("list", memory, "--kind", "fact", "--text")["entries"]
    assert [(e["citation"]["entry_id"], e["tags"]) for e in result] == [(c, ["build"])]
    assert "ENTRY_MERGED" in cli.error(5, "reactivate", memory, a)

    preview = cli.json("restore", memory, b, "--preview")
    assert preview["would_change"] is True and preview["preview_token"]
    assert sorted(r["entry_id"] for r in preview["outcome"]["restored"]) == sorted([a, b])
    assert [r["entry_id"] for r in preview["outcome"]["retired"]] == [c]
    shown = cli("restore", memory, b, "--preview").stdout
    assert "would change" in shown and "token      pc2." in shown and "expires" in shown
    assert cli.json("manifest", memory)["memory"]["revision"] == merged["memory"]["revision"]

    token = preview["preview_token"]
    assert "PREVIEW_TOKEN_MISMATCH" in cli.error(
        2, "undo-merge", memory, c, "--preview-token", token
    )
    restored = cli.json("restore", memory, b, "--preview-token", token, "--reason", "need b")
    assert restored["changed"] is True
    assert restored["outcome"]["undone_merge_results"] == [c]
    assert sorted(_ids(cli.json("list", memory))) == sorted([a, b, d])
    again = cli.json("restore", memory, b)
    assert again["changed"] is False and again["memory"] == restored["memory"]
    # The same token again: what it previewed has changed since (it was applied).
    assert "PREVIEW_STALE" in cli.error(4, "restore", memory, b, "--preview-token", token)

    second = cli.json("merge", memory, a, b, "--text", "once more", "--kind", "fact")
    e = second["result"]["entry_id"]
    assert "NOT_A_MERGE_RESULT" in cli.error(5, "undo-merge", memory, d)
    undo_preview = cli.json("undo-merge", memory, e, "--preview")
    assert [r["entry_id"] for r in undo_preview["outcome"]["retired"]] == [e]
    undone = cli("undo-merge", memory, e, "--reason", "too coarse").stdout
    assert "new revision" in undone and f"retired    {e}" in undone
    assert sorted(_ids(cli.json("list", memory))) == sorted([a, b, d])


def test_restore_a_historical_version_and_revise_keeps_tags(cli: Cli) -> None:
    memory, (a, _, _) = _abd(cli)
    first = cli.json("list", memory, "--tag", "build", "--text")["entries"]
    first_version = next(e for e in first if e["citation"]["entry_id"] == a)
    cli.json("revise", memory, a, "Builds use uv and Hatchling.")
    [revised] = [e for e in cli.json("list", memory, "--text")["entries"]
                 if e["citation"]["entry_id"] == a]  # fmt: skip
    assert revised["tags"] == ["build"]  # kept: a revision replaces tags, the CLI passes them
    assert revised["description"] == "Builds use uv and Hatchling."
    version = first_version["citation"]["entry_version_id"]
    back = cli.json("restore", memory, a, "--version", version)
    [restored] = back["outcome"]["restored"]
    assert restored["entry_version_id"] not in (version, revised["citation"]["entry_version_id"])
    [now] = [e for e in cli.json("list", memory, "--text")["entries"]
             if e["citation"]["entry_id"] == a]  # fmt: skip
    assert now["text"] == first_version["text"]
