"""The deterministic candidate adapters, one by one, over real-looking files (English and
Chinese fixtures in tests/data/candidates/): what each derives, its kind and its evidence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from powercontext_memory.api import Hit
from powercontext_memory.candidates import (
    agent_rules,
    build_targets,
    pyproject,
    task_outcome,
    user_note,
)
from powercontext_memory.candidates.model import parse_candidates
from powercontext_memory.candidates.port import (
    ActiveEntry,
    Candidate,
    Extraction,
    ExtractionInput,
    SuggestionKind,
)
from powercontext_memory.candidates.sources import file_format
from powercontext_memory.domain.lifecycle import EntryRef
from powercontext_memory.domain.models import ArtifactRef, Source, SourceRef

DATA = Path(__file__).resolve().parents[1] / "data" / "candidates"


def source(path: str, text: str, kind: str = "file", media_type: str = "text/plain") -> Source:
    name = "src_" + "".join(c if c.isalnum() else "_" for c in path)
    uri = f"repo://{path}" if kind == "file" else f"{kind}://x"
    return Source(name, kind, uri, media_type, text.encode(), (), name[-8:].rjust(64, "0"), 0)


def fixture(folder: str, path: str) -> Source:
    return source(path, (DATA / folder / path).read_text())


def texts(candidates: list[Candidate]) -> dict[str, tuple[str, ...]]:
    return {c.text: tuple(r.source_id for r in c.sources) for c in candidates}


def test_file_names_choose_the_adapter() -> None:
    assert file_format(source("sub/GNUmakefile", "")) == ("build-targets", "make")
    assert file_format(source(".justfile", "")) == ("build-targets", "just")
    assert file_format(source("docs/Agents.MD", "")) == ("agent-rules", "markdown")
    assert file_format(source("README.md", "")) is None
    assert file_format(source("Makefile", "", kind="note")) is None


def test_pyproject_hatchling_and_uv_from_the_sibling_sources() -> None:
    agents = fixture("worked_example", "AGENTS.md")
    project = fixture("worked_example", "pyproject.toml")
    makefile = fixture("worked_example", "Makefile")
    found = texts(pyproject.derive(project, [agents, project, makefile]))
    assert found == {
        "The package is built with Hatchling (build backend hatchling.build).": (
            project.source_id,
        ),
        "Dependencies are managed with uv.": tuple(
            sorted((agents.source_id, project.source_id, makefile.source_id))
        ),
        "Requires Python >=3.11 (project.requires-python).": (project.source_id,),
        "pytest is configured in pyproject.toml: testpaths = tests; "
        "addopts = -q --strict-markers.": (project.source_id,),
        # Ruff's role is the one the file states (a [tool.ruff.lint] table), its settings
        # only the ones that change how code is written: never a dump of the table.
        "Ruff (lint) is configured in pyproject.toml: line-length = 100; target-version = py311.": (
            project.source_id,
        ),
        "mypy (type checking) is configured in pyproject.toml: strict = true.": (
            project.source_id,
        ),
    }
    # Alone, nothing evidences uv: no package-manager fact.
    alone = [c.text for c in pyproject.derive(project, [project])]
    assert "Dependencies are managed with uv." not in alone


def test_pyproject_poetry_black_pyright_and_broken_toml() -> None:
    project = fixture("en", "pyproject.toml")
    found = [c.text for c in pyproject.derive(project, [project])]
    assert found == [
        "The package is built with poetry-core (build backend poetry.core.masonry.api).",
        "Dependencies are managed with Poetry.",
        "pytest is configured in pyproject.toml: testpaths = tests/unit, tests/integration; "
        "addopts = -ra --cov=billing; asyncio_mode = auto.",
        "Black (format) is configured in pyproject.toml: line-length = 88.",
        "Pyright (type checking) is configured in pyproject.toml: typeCheckingMode = strict.",
    ]
    assert pyproject.derive(source("pyproject.toml", "[project\nname=")) == []
    assert {c.topic for c in pyproject.derive(project)} >= {"pyproject:build-backend"}


def test_makefile_targets_say_what_they_run() -> None:
    makefile = fixture("worked_example", "Makefile")
    found = {c.topic: c.text for c in build_targets.derive(makefile)}
    assert found == {
        "make:test": "`make test` runs `uv run pytest`.",
        "make:check": "`make check` runs first `make lint`, `make test`, then `uv run mypy`.",
        "make:lint": "`make lint` runs `uv run ruff check .`; `uv run ruff format --check .`.",
        "make:docs": "`make docs` runs `uv run mkdocs build --strict`.",
        "make:docs-test": "`make docs-test` runs `uv run pytest tests/docs`.",
    }
    assert all(
        c.kind == "fact" and c.sources == (makefile.ref,) for c in build_targets.derive(makefile)
    )


def test_makefile_recipes_are_bounded() -> None:
    recipe = "".join(f"\tuv run step {i}\n" for i in range(20))
    [candidate] = build_targets.derive(source("Makefile", f"build:\n{recipe}"))
    assert candidate.text.endswith("(+14 more).")
    assert build_targets.derive(source("Makefile", "hello:\n\techo hi\n")) == []


def test_justfile_package_json_tox_and_nox() -> None:
    derived = {
        name: {c.topic: c.text for c in build_targets.derive(fixture("en", name))}
        for name in ("justfile", "package.json", "tox.ini", "noxfile.py")
    }
    assert derived["justfile"] == {
        "just:test": "`just test` (Run the unit tests) runs `pytest {{args}}`.",
        "just:lint": "`just lint` runs first `just fmt`, then `ruff check .`.",
        "just:fmt": "`just fmt` runs `ruff format .`.",
    }
    assert derived["package.json"] == {
        "npm:dev": "`npm run dev` runs `vite`.",
        "npm:build": "`npm run build` runs `tsc -b && vite build`.",
        "npm:test": "`npm run test` runs `vitest run`.",
        "npm:test:e2e": "`npm run test:e2e` runs `playwright test`.",
        "npm:lint": "`npm run lint` runs `eslint . --max-warnings 0`.",
    }
    assert derived["tox.ini"] == {
        "tox": "`tox` (env list py311, py312) runs `pytest {posargs:tests}`.",
        "tox:lint": "`tox -e lint` runs `ruff check src tests`; `ruff format --check src tests`.",
        "tox:docs": "`tox -e docs` runs `sphinx-build -W docs docs/_build`.",
    }
    assert derived["noxfile.py"] == {
        "nox:tests": "`nox -s tests` runs `pytest -q …`.",
        "nox:type-check": "`nox -s type-check` runs `mypy src`.",
    }
    assert build_targets.derive(source("package.json", "{not json")) == []


def test_agent_rules_quote_only_explicit_rules_in_english() -> None:
    claude = fixture("en", "CLAUDE.md")
    justfile = fixture("en", "justfile")
    tox = fixture("en", "tox.ini")
    found = {c.text: c.kind for c in agent_rules.derive(claude, [claude, justfile, tox])}
    assert found == {
        "Never edit files under `migrations/` by hand; generate them with `just migrate`.": (
            "constraint"
        ),
        "Always run `just test` before pushing.": "preference",
        "You should prefer small, focused pull requests.": "preference",
        "Do not commit `.env` files.": "constraint",
        "Tests must pass on Python 3.12 and the oldest supported version.": "constraint",
        "Run `tox -e lint` before review; you must fix every warning.": "constraint",
    }
    cited = texts(agent_rules.derive(claude, [claude, justfile, tox]))
    # A rule naming a target cites the build file that defines it (`just migrate` is not one).
    assert cited["Always run `just test` before pushing."] == tuple(
        sorted((claude.source_id, justfile.source_id))
    )
    assert cited[
        "Never edit files under `migrations/` by hand; generate them with `just migrate`."
    ] == (claude.source_id,)


def test_agent_rules_in_chinese() -> None:
    agents = fixture("worked_example", "AGENTS.md")
    found = {c.text: c.kind for c in agent_rules.derive(agents)}
    assert found == {
        "验证约定：常规代码变更务必运行 `make test`；评审前运行 `make check`。": "preference",
        "site/ 是生成输出，禁止作为源材料修改。": "constraint",
    }
    text = "说明文字。\n\n- 不得把密钥写进仓库\n- 应该先写测试\n- 普通的一条说明\n"
    found = {c.text: c.kind for c in agent_rules.derive(source("CONTRIBUTING.md", text))}
    assert found == {"不得把密钥写进仓库": "constraint", "应该先写测试": "preference"}


def outcome(data: dict[str, object]) -> Source:
    return source("o", json.dumps(data), kind="task_outcome")


def test_task_outcome_is_a_mechanical_working_note_or_nothing() -> None:
    [note] = task_outcome.derive(
        outcome(
            {
                "turn_id": "42",
                "git_head": "abcdef0123456789",
                "report": "Fixed the flaky test.",
                "changed_paths": [f"src/m{i}.py" for i in range(12)],
                "verification": [
                    {"command": "make test", "result": "passed"},
                    {"command": "make lint"},
                ],
            }
        )
    )
    assert note.kind == "working_note" and note.target is None
    # No host-internal key (turn id, commit) in the text: those stay in the source.
    assert note.text == (
        "Fixed the flaky test.; changed: src/m0.py, src/m1.py, "
        "src/m2.py, src/m3.py, src/m4.py, src/m5.py, src/m6.py, src/m7.py, src/m8.py, "
        "src/m9.py (+2 more); verified: make test → passed; make lint"
    )
    [paths_only] = task_outcome.derive(outcome({"changed_paths": ["a.py"]}))
    assert paths_only.text == "changed: a.py"
    assert task_outcome.derive(outcome({"turn_id": "1", "git_head": "ab", "report": ""})) == []
    assert task_outcome.derive(source("o", "not json", kind="task_outcome")) == []
    long_report = task_outcome.derive(outcome({"report": "x" * 5000}))[0].text
    assert len(long_report) < 700 and long_report.endswith("…")


@pytest.mark.parametrize(
    ("note", "what", "words"),
    [
        ("Remember that the staging DB is read-only.", "remember", "The staging DB is read-only."),
        ("记住：发布前必须打 tag。", "remember", "发布前必须打 tag。"),
        ("forget the site/ rule", "forget", "site/ rule"),
        ("site/ 那条不要记了，有些发布任务会需要处理它。", "forget", "site/ 那条"),
        ("不要再记 make docs 那条", "forget", "make docs 那条"),
        ("别记 uv 的事", "forget", "uv 的事"),
        ("改文档时不用跑完整 make test，优先跑 make docs-test。", "correct", None),
    ],
)
def test_user_note_intent(note: str, what: str, words: str | None) -> None:
    assert user_note.intent(note) == (what, words if words is not None else note)


def test_user_note_subject_terms() -> None:
    assert user_note.subject_query("改文档时不用跑完整 make test，优先跑 make docs-test。") == (
        "make test docs-test"
    )
    assert user_note.subject_query("site/ 那条") == "site/"
    assert user_note.subject_query("发布流程的那条") == "发布流程"
    assert user_note.subject_query("the rule about it") == ""


MEMORY = ArtifactRef("mem_art_x", 1)


def hit(entry: str, kind: str, text: str) -> Hit:
    return Hit(MEMORY, entry, entry + "_v", "0" * 64, kind, text, 1.0, ("fts",))


async def run_note(words: str, hits: list[Hit]) -> Extraction:
    note = source("n", words, kind="user_note")
    searched: list[str] = []

    async def search(query: str) -> list[Hit]:
        searched.append(query)
        return hits

    async def read(source_id: str) -> Source:
        raise AssertionError("not read")

    # The memory has entries (the note is searched); `hits` are what full text admits.
    entries = [ActiveEntry(EntryRef("e0", "e0_v"), "fact", "anything", ())]
    found = await user_note.extract(ExtractionInput([note], entries, search, read))
    assert searched == [user_note.subject_query(words)]
    return found


async def test_user_note_correction_revises_one_rule_adds_otherwise() -> None:
    rule = hit("e1", "preference", "Run make test for every change.")
    fact = hit("e2", "fact", "`make test` runs `pytest`.")
    one = await run_note("Prefer make docs-test for docs-only changes.", [rule, fact])
    [revise] = one.candidates
    assert revise.target is not None and revise.target.entry_id == "e1"
    assert revise.text == (
        "Run make test for every change. (update: Prefer make docs-test for docs-only changes.)"
    )
    none = await run_note("Prefer make docs-test for docs-only changes.", [fact])
    assert [(c.target, c.kind) for c in none.candidates] == [(None, "preference")]
    other = hit("e3", "constraint", "Never skip make test.")
    several = await run_note("Prefer make docs-test for docs-only changes.", [rule, other])
    assert [c.target for c in several.candidates] == [None]
    [ambiguous] = several.suggestions
    assert ambiguous.kind is SuggestionKind.AMBIGUOUS
    assert [e.entry_id for e in ambiguous.entries] == ["e1", "e3"]


def test_model_answer_keeps_unknown_ids_for_the_service_to_refuse() -> None:
    design = source("docs/design.md", "We chose gRPC.")
    request = ExtractionInput([design], [], None, None)  # type: ignore[arg-type]
    answer = json.dumps(
        {
            "candidates": [
                {"op": "add", "kind": "decision", "text": "g", "source_ids": [design.source_id]},
                {"op": "add", "kind": "fact", "text": "x", "source_ids": ["src_other"]},
                {"op": "revise", "entry_id": "e", "entry_version_id": "v", "kind": "fact",
                 "text": "y", "source_ids": []},
                "not an object",
            ]
        }
    )  # fmt: skip
    found = parse_candidates(answer, request)
    assert [c.sources for c in found] == [(design.ref,), (SourceRef("src_other", ""),), ()]
    assert found[2].target == EntryRef("e", "v")
    with pytest.raises(ValueError):
        parse_candidates('{"nope": 1}', request)


def _active(entry_id: str, kind: str, text: str) -> ActiveEntry:
    return ActiveEntry(EntryRef(entry_id, f"{entry_id}_v1"), kind, text, ())


def test_a_session_revises_its_one_working_note() -> None:
    note = _active("mem_ent_note", "working_note", "Started on the parser.")
    rule = _active("mem_ent_rule", "constraint", "Never edit site/ by hand.")
    later = outcome(
        {"session_id": "s1", "report": "Parser done.", "note_entry_id": note.ref.entry_id}
    )
    [revision] = task_outcome.derive(later, [rule, note])
    assert (revision.target, revision.text) == (note.ref, "Parser done.")
    # The named entry is gone (forgotten) or is no working note: a new note instead.
    [fresh] = task_outcome.derive(later, [rule])
    assert fresh.target is None
    named_rule = outcome({"report": "Parser done.", "note_entry_id": rule.ref.entry_id})
    assert task_outcome.derive(named_rule, [rule])[0].target is None


def test_a_note_repeating_an_active_note_is_not_added() -> None:
    old = _active("mem_ent_old", "working_note", "All tests pass; changed: a.py, b.py")
    again = outcome({"report": "All tests pass", "changed_paths": ["b.py", "a.py"]})
    assert task_outcome.derive(again, [old]) == []
    other = outcome({"report": "Docs build fixed", "changed_paths": ["docs/conf.py"]})
    assert len(task_outcome.derive(other, [old])) == 1
    assert task_outcome.near_duplicate("x", "x") and not task_outcome.near_duplicate("a b", "c")
