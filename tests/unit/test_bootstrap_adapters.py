"""Bootstrap adapters on the task runners and rules of real repositories' contract files:
poe / Hatch / PDM / taskipy / tox tasks in pyproject.toml, pre-commit hooks, justfile and
Makefile descriptions, plain imperative rules, command tables and commented command blocks —
and what they must never produce: lead-in fragments, governance prose, shell plumbing,
configuration dumps, roles a file does not state.
The last test runs bench/bootstrap.py's scorer on the tuning truth sets."""

from __future__ import annotations

from powercontext_client.runtime.sources import EVIDENCE_FILES, media_type
from powercontext_memory.candidates import agent_rules, build_targets, pre_commit, pyproject
from powercontext_memory.candidates.port import Candidate
from powercontext_memory.domain.models import Source


def source(path: str, text: str) -> Source:
    name = "src_" + "".join(c if c.isalnum() else "_" for c in path)
    return Source(name, "file", f"repo://{path}", "text/plain", text.encode(), (), "0" * 64, 0)


def by_topic(candidates: list[Candidate]) -> dict[str, str]:
    return {c.topic: c.text for c in candidates}


def rules(text: str) -> dict[str, str]:
    return {c.text: c.kind for c in agent_rules.derive(source("AGENTS.md", text))}


POE = """
[tool.poetry]
name = "x"

[tool.poe.tasks]
_clean = "rm -rf build"
test = "pytest"
lint = { cmd = "ruff check .", help = "Run the linter" }
check = { sequence = ["lint", "test"], help = "Run all checks" }
release = "poetry publish"

[tool.poe.tasks.docs]
cmd = "sphinx-build docs docs/_build"
deps = ["_clean"]
"""


def test_poe_tasks_with_their_help_private_and_release_tasks_left_out() -> None:
    found = by_topic(pyproject.derive(source("pyproject.toml", POE)))
    assert found["poe:test"] == "`poe test` runs `pytest`."
    assert found["poe:lint"] == "`poe lint` (Run the linter) runs `ruff check .`."
    assert found["poe:check"] == "`poe check` (Run all checks) runs `poe lint`; `poe test`."
    assert found["poe:docs"] == "`poe docs` runs `sphinx-build docs docs/_build`."
    assert "poe:_clean" not in found and "poe:release" not in found
    assert found["pyproject:package-manager"] == "Dependencies are managed with Poetry."


def test_hatch_pdm_taskipy_and_tox_configured_in_pyproject() -> None:
    text = """
[tool.hatch.envs.default.scripts]
cov = "pytest --cov"
[tool.hatch.envs.test.scripts]
run-coverage = "pytest --cov-config=pyproject.toml"
[tool.pdm.scripts]
lint = {cmd = "ruff check", help = "Lint"}
[tool.taskipy.tasks]
format = "black ."
[tool.tox]
env_list = ["py3.13", "py3.12", "style"]
[tool.tox.env_run_base]
commands = [["pytest", {replace = "posargs", default = [], extend = true}]]
[tool.tox.env.style]
description = "run all pre-commit hooks"
commands = [["pre-commit", "run", "--all-files"]]
"""
    found = by_topic(pyproject.derive(source("pyproject.toml", text)))
    assert found["hatch:cov"] == "`hatch run cov` runs `pytest --cov`."
    assert found["hatch:test:run-coverage"] == (
        "`hatch run test:run-coverage` runs `pytest --cov-config=pyproject.toml`."
    )
    assert found["pdm:lint"] == "`pdm run lint` (Lint) runs `ruff check`."
    assert found["task:format"] == "`task format` runs `black .`."
    assert found["tox"] == "`tox` (env list py3.13, py3.12) runs `pytest {posargs}`."
    assert found["tox:style"] == (
        "`tox -e style` (run all pre-commit hooks) runs `pre-commit run --all-files`."
    )
    # A [tool.hatch.envs] table without a default environment is no package manager.
    assert "pyproject:package-manager" in found  # the default env: Hatch manages it
    build_only = "[tool.hatch.build.targets.wheel]\npackages = ['src/x']\n"
    assert pyproject.derive(source("pyproject.toml", build_only)) == []


def test_a_tool_is_named_with_the_role_its_file_states_and_no_dump() -> None:
    bare = pyproject.derive(source("pyproject.toml", '[tool.ruff]\ntarget-version = "py38"\n'))
    assert [c.text for c in bare] == [
        "Ruff is configured in pyproject.toml: target-version = py38."
    ]
    lint = '[tool.ruff]\nline-length = 100\n[tool.ruff.lint]\nselect = ["E", "F", "I"]\n'
    assert [c.text for c in pyproject.derive(source("pyproject.toml", lint))] == [
        "Ruff (lint) is configured in pyproject.toml: line-length = 100."
    ]
    both = lint + '[tool.ruff.format]\nquote-style = "single"\n'
    assert [c.text for c in pyproject.derive(source("pyproject.toml", both))] == [
        "Ruff (lint and format) is configured in pyproject.toml: line-length = 100; "
        "format.quote-style = single."
    ]
    dump = "[tool.pyright]\nenableTypeIgnoreComments = true\nreportAny = 'none'\n"
    assert [c.text for c in pyproject.derive(source("pyproject.toml", dump))] == [
        "Pyright (type checking) is configured in pyproject.toml."
    ]


def test_the_package_manager_needs_real_evidence() -> None:
    poetry = source("pyproject.toml", "[tool.poetry]\nname = 'x'\n")
    claude = source("CLAUDE.md", "Poe integrates with poetry and uv.\n")
    assert "Dependencies are managed with Poetry." in [
        c.text for c in pyproject.derive(poetry, [poetry, claude])
    ]
    bare = source("pyproject.toml", "[project]\nname = 'x'\n")
    noxfile = source("noxfile.py", "#!/usr/bin/env -S uv run --script\nimport nox\n")
    assert pyproject.derive(bare, [bare, noxfile]) == []
    makefile = source("Makefile", "test:\n\tuv run pytest\n")
    [manager] = pyproject.derive(bare, [bare, makefile])
    assert manager.text == "Dependencies are managed with uv."
    assert {r.source_id for r in manager.sources} == {bare.source_id, makefile.source_id}


PRE_COMMIT = """\
ci:
  autoupdate_schedule: weekly  # a comment
repos:
  - repo: https://github.com/pre-commit/pre-commit-hooks
    rev: v4.5.0
    hooks:
      - id: trailing-whitespace
      - id: check-yaml
  - repo: https://github.com/astral-sh/ruff-pre-commit
    rev: v0.2.1
    hooks:
      - id: ruff
        args:
          - --fix
      - id: ruff-format
  - repo: local
    hooks:
    -   id: pyright
        name: pyright
        entry: uv run pyright
        args: [src]
        language: system
"""


def test_pre_commit_hooks_and_the_command_that_runs_them() -> None:
    [fact] = build_targets.derive(source(".pre-commit-config.yaml", PRE_COMMIT))
    assert fact.text == (
        "`pre-commit run --all-files` runs the hooks ruff, ruff-format, pyright "
        "(`uv run pyright src`), trailing-whitespace, check-yaml (.pre-commit-config.yaml)."
    )
    assert fact.kind == "fact" and fact.topic == "pre-commit"
    assert [h.args for h in pre_commit.hooks(PRE_COMMIT) if h.id == "ruff"] == [["--fix"]]
    assert build_targets.derive(source(".pre-commit-config.yaml", "repos: []\n")) == []
    assert build_targets.derive(source(".pre-commit-config.yaml", "{not: [yaml")) == []


JUSTFILE = """\
set shell := ["sh", "-c"]

# Run tests and linters
@default: test lint

# Run the tests
test *options:
  uv run pytest {{options}}

[doc("Lint the code")]
[group("lint")]
lint: _spell
  -uv run ruff check .

_spell:
  uv run codespell

[private]
build-helper:
  uv build

init python="3.12":
  uv sync -p {{python}}

# Remove caches
clean:
  rm -rf .cache
"""


def test_justfile_descriptions_private_recipes_and_plumbing() -> None:
    found = by_topic(build_targets.derive(source("Justfile", JUSTFILE)))
    assert found == {
        "just:default": "`just default` (Run tests and linters) runs first `just test`, "
        "`just lint`.",
        "just:test": "`just test` (Run the tests) runs `uv run pytest {{options}}`.",
        "just:lint": "`just lint` (Lint the code) runs `uv run ruff check .`.",
        "just:init": "`just init` runs `uv sync -p {{python}}`.",
    }


MAKEFILE = """\
run := poetry run
.PHONY: test test-serial check clean docs deploy-docs

test: test-serial ## Run the tests
\t$(run) pytest -n auto
test-serial:
\t$(run) pytest -m serial
test-snapshots:
\t$(run) pytest --snapshot-update
test-nightly:
\t$(run) pytest --nightly
integration-tests:
\tuv run python run_integration.py --profile full
integration-tests-voice:
\tuv run python run_integration.py --profile voice
check:
\t@set -eu; trap 'kill 0' EXIT; $(MAKE) test & wait; echo done
clean:
\trm -rf build
\t@echo cleaned
docs: clean
\t$(run) mkdocs build
deploy-docs:
\t$(run) mkdocs gh-deploy
"""


def test_makefile_steps_variants_plumbing_and_release_targets() -> None:
    agents = source("AGENTS.md", "- Run `make test-snapshots` after changing a widget.\n")
    makefile = source("Makefile", MAKEFILE)
    found = by_topic(build_targets.derive(makefile, [makefile, agents]))
    assert found == {
        # `## help`, simple variables expanded, its own step left to it
        "make:test": "`make test` (Run the tests) runs first `make test-serial`, then "
        "`poetry run pytest -n auto`.",
        # a variant, but AGENTS.md names it
        "make:test-snapshots": "`make test-snapshots` runs `poetry run pytest --snapshot-update`.",
        "make:integration-tests": "`make integration-tests` runs "
        "`uv run python run_integration.py --profile full`.",
        # a shell script that calls a sibling target is named by the call
        "make:check": "`make check` runs `make test`.",
        # the plumbing prerequisite is not named
        "make:docs": "`make docs` runs `poetry run mkdocs build`.",
    }
    # The rule citing the target cites the Makefile that defines it.
    [rule] = agent_rules.derive(agents, [makefile, agents])
    assert {r.source_id for r in rule.sources} == {agents.source_id, makefile.source_id}


def test_plain_imperative_rules_are_rules() -> None:
    found = rules(
        "- Run `make check` before asking for review.\n"
        "- Run `make test` before every commit.\n"
        "- Async testing: use anyio, not asyncio\n"
        "- Do use the walrus operator whenever applicable\n"
        "- Format: `uv run --frozen ruff format .`\n"
        "- Write tests for your code.\n"
        "\n"
        "To run a single test, use `uv run pytest -k <name>`.\n"
    )
    assert found == {
        "Run `make check` before asking for review.": "preference",
        "Run `make test` before every commit.": "preference",
        "Async testing: use anyio, not asyncio": "preference",
        "Do use the walrus operator whenever applicable": "preference",
        "Format: `uv run --frozen ruff format .`": "preference",
        "Write tests for your code.": "preference",
        "To run a single test, use `uv run pytest -k <name>`.": "preference",
    }


def test_a_lead_in_is_joined_to_its_commands_or_dropped() -> None:
    found = rules(
        "1. Ensure tests pass:\n\n"
        "```bash\nuv run pytest  # all of them\n```\n\n"
        "For focused iteration, prefer:\n\n"
        "```python\nimport x\n```\n\n"
        "- Avoid `anyio.sleep()` in tests. Instead:\n"
        "  - use events\n\n"
        "It will create a `dist` directory:\n\n```bash\ndist/\n```\n"
    )
    assert found == {
        "Ensure tests pass: `uv run pytest`": "preference",
        "Avoid `anyio.sleep()` in tests.": "preference",
    }


def test_no_governance_generic_advice_plumbing_or_prose() -> None:
    found = rules(
        "# Contributing\n\n"
        "We welcome contributions! We should all be kind.\n\n"
        "- Keep changes minimal\n"
        "- Follow existing patterns\n"
        "- Test thoroughly\n"
        "- PRs without a linked issue will be closed.\n"
        "- Make sure you have Poetry installed\n"
        "- Clone your fork: `git clone https://example.org/x.git`\n"
        "- Never commit `.env` files.\n\n"
        "## Code of Conduct\n\n"
        "- You must follow the code of conduct in all spaces.\n\n"
        "## Release process\n\n"
        "- Always tag releases with `git tag`.\n"
    )
    assert found == {"Never commit `.env` files.": "constraint"}


def test_a_myst_warning_is_one_rule() -> None:
    found = rules("```{warning}\nThe `src/x/_version.py` file should NEVER\nbe committed.\n```\n")
    assert found == {"The `src/x/_version.py` file should NEVER be committed.": "constraint"}


RUNNER_WORDS = """\
alias lint := linter

# Run all linters
linter: ruff-check
  uv run codespell

ruff-check:
  uv run ruff check .

# Start the containers the tests need
up:
  docker compose up -d

kafka-up:
  docker compose up -d kafka

down:
  docker compose down

coverage-reset:
  uv run coverage erase

coverage-html:
  uv run coverage html && open htmlcov/index.html

pages-build:
  curl -LsSf https://astral.sh/uv/install.sh | sh
  uv run mkdocs build
"""


def test_task_words_whole_names_housekeeping_and_recipes_for_a_person() -> None:
    justfile = source("justfile", RUNNER_WORDS)
    found = by_topic(build_targets.derive(justfile))
    # "linter" is a lint word; `up` alone starts the project's services, `kafka-up` one of them.
    assert found == {
        "just:linter": "`just linter` (Run all linters) runs first `just ruff-check`, then "
        "`uv run codespell`.",
        "just:ruff-check": "`just ruff-check` runs `uv run ruff check .`.",
        "just:up": "`just up` (Start the containers the tests need) runs `docker compose up -d`.",
    }
    # Housekeeping, a viewer and a download piped into a shell are kept when a rules file asks.
    agents = source(
        "AGENTS.md",
        "- Run `just coverage-reset` after moving tests.\n"
        "- Run `just coverage-html` to see the report.\n"
        "- Run `just pages-build` to preview the site.\n",
    )
    named = by_topic(build_targets.derive(justfile, [justfile, agents]))
    assert {"just:coverage-reset", "just:coverage-html", "just:pages-build"} <= set(named)


def test_a_browser_variable_and_webbrowser_open_a_viewer() -> None:
    makefile = source(
        "Makefile",
        "docs:\n\tsphinx-build docs docs/_build\n\t$(BROWSER) docs/_build/index.html\n"
        "coverage:\n\tcoverage html\n\tpython -m webbrowser htmlcov/index.html\n"
        "lint:\n\truff check . | tee lint.log\n",
    )
    assert list(by_topic(build_targets.derive(makefile))) == ["make:lint"]


def test_a_one_word_task_is_no_step_of_a_compound_one() -> None:
    text = """
[tool.poe.tasks]
fix = "ruff check --fix ."
check = "ruff check ."
fix-and-check = { shell = "poe fix && poe check" }
tests-serial = "pytest -p no:xdist"
tests = ["tests-serial"]
"""
    found = by_topic(pyproject.derive(source("pyproject.toml", text)))
    assert found["poe:fix"] == "`poe fix` runs `ruff check --fix .`."
    assert found["poe:fix-and-check"] == "`poe fix-and-check` runs `poe fix && poe check`."
    assert "poe:tests" in found and "poe:tests-serial" not in found  # still a step


def test_a_make_help_comment_may_hold_a_semicolon() -> None:
    makefile = source(
        "Makefile",
        "record: ## Re-record the cassettes; needs API keys\n\tpytest --record-mode=rewrite\n"
        "test: ; pytest -x\n",
    )
    found = by_topic(build_targets.derive(makefile, [makefile]))
    assert found == {
        "make:test": "`make test` runs `pytest -x`.",
    }
    agents = source("AGENTS.md", "- Run `make record` when an API changes.\n")
    [record] = [
        c.text for c in build_targets.derive(makefile, [makefile, agents]) if "record" in c.topic
    ]
    assert record == (
        "`make record` (Re-record the cassettes; needs API keys) runs "
        "`pytest --record-mode=rewrite`."
    )


def test_pytest_settings_in_tox_ini() -> None:
    tox = "[tox]\nenvlist = py312\n[testenv]\ncommands = pytest\n"
    settings = "[pytest]\ntestpaths = testing\naddopts = -r a\nfilterwarnings =\n  error\n"
    found = by_topic(build_targets.derive(source("tox.ini", tox + settings)))
    assert found["pytest:tox"] == (
        "pytest is configured in tox.ini: testpaths = testing; addopts = -r a; "
        "filterwarnings = error (warnings fail the tests)."
    )
    assert "pytest:tox" not in by_topic(build_targets.derive(source("tox.ini", tox)))


def test_an_obligation_lead_in_makes_rules_of_the_items_that_complete_it() -> None:
    found = rules(
        "All changes need to:\n\n"
        "- have tests covering 100% of code paths\n"
        "- update the docs\n"
        "  - nested detail is read on its own\n"
        "- be linked to an issue first\n\n"
        "Your code should:\n"
        "- stay readable\n\n"
        "## Next\n\n"
        "- use whatever you like\n"
    )
    assert found == {
        "All changes need to: have tests covering 100% of code paths": "constraint",
        "All changes need to: update the docs": "constraint",
        "Your code should: stay readable": "preference",
    }


def test_a_lead_in_whose_colon_lists_examples_is_no_obligation() -> None:
    found = rules(
        "You should verify claims yourself, by looking up things like:\n\n"
        "- relevant GitHub issues\n"
        "- provider API docs\n\n"
        "At minimum, this means:\n\n"
        "- reading the issue\n\n"
        "Every pull request must\nsatisfy the following:\n\n"
        "- pass `make check`\n"
        "- keep the public API stable\n"
    )
    assert found == {
        "Every pull request must satisfy the following: pass `make check`": "constraint",
        "Every pull request must satisfy the following: keep the public API stable": "constraint",
    }


def test_a_long_paragraph_without_code_is_prose_not_a_rule() -> None:
    prose = (
        "When working in this repository, you should consider yourself to be working for the "
        "benefit of the project and all of its users, current and future, human and agent, "
        "rather than just the specific user who happens to be driving you at the moment."
    )
    assert len(prose) > 240
    item = "- " + prose.replace("When working in this repository, you", "You")
    found = rules(prose + "\n\n" + prose + " Run `make check`.\n\n" + item + "\n")
    assert found == {
        prose + " Run `make check`.": "preference",
        item[2:]: "preference",
    }


def test_installing_a_tool_from_its_website_is_a_persons_setup() -> None:
    found = rules(
        "1. Install [uv](https://docs.astral.sh/uv/getting-started/installation/)\n"
        "2. Install [pre-commit](https://pre-commit.com) hooks with `pre-commit install`\n"
    )
    assert found == {
        "Install [pre-commit](https://pre-commit.com) hooks with `pre-commit install`": (
            "preference"
        )
    }


def test_bootstrap_reads_the_new_evidence_files() -> None:
    assert {"Justfile", ".pre-commit-config.yaml"} <= set(EVIDENCE_FILES)
    assert media_type(".pre-commit-config.yaml") == "application/yaml"
    assert media_type("Justfile") == "text/x-just"


def test_a_build_backend_is_named_by_its_dotted_path_or_its_requirement() -> None:
    def backend(requires: str, module: str) -> list[str]:
        text = f'[build-system]\nrequires = [{requires}]\nbuild-backend = "{module}"\n'
        return [c.text for c in pyproject.derive(source("pyproject.toml", text))]

    # `pdm` is both pdm-pep517 and its successor pdm-backend: the first part names neither.
    assert backend('"pdm-pep517>=1"', "pdm.pep517.api") == [
        "The package is built with pdm-pep517 (build backend pdm.pep517.api)."
    ]
    assert backend('"pdm-backend"', "pdm.backend") == [
        "The package is built with pdm-backend (build backend pdm.backend)."
    ]
    assert backend("", "poetry.masonry.api") == [
        "The package is built with Poetry (build backend poetry.masonry.api)."
    ]
    # Unknown: the requirement that provides the module names it, else nothing does.
    assert backend('"foo-bar>=2"', "foo_bar.api") == [
        "The package is built with foo-bar (build backend foo_bar.api)."
    ]
    assert backend('"x"', "mystery.backend") == [
        "The package is built with the build backend mystery.backend."
    ]


RELEASE_MAKEFILE = """\
H1="\\n\\033[0;32m\\#\\#\\# "
H1END=" \\#\\#\\# \\033[0m\\n"

test:
\t@echo $(H1)Running tests$(H1END)
\tvenv/bin/python -m pytest

twine-check:
\ttwine check dist/*

###############
# Publishing to PyPI
###############

build:
\tpython -m build

###############
# Homebrew
###############

brew-test:
\tbrew uninstall x
\tbrew install --build-from-source ./x.rb
deps-install:
\tsudo apt-get install -y libffi-dev
"""


def test_release_sections_publishing_tools_and_system_packages_are_not_tasks() -> None:
    found = by_topic(build_targets.derive(source("Makefile", RELEASE_MAKEFILE)))
    # The echo's quoted ANSI escape holds a `;` that splits nothing: the line only prints.
    assert found == {"make:test": "`make test` runs `venv/bin/python -m pytest`."}
    # Outside a release section `build` is a task; twine publishes, brew / apt provision.
    found = by_topic(build_targets.derive(source("Makefile", "build:\n\tpython -m build\n")))
    assert found == {"make:build": "`make build` runs `python -m build`."}
    agents = source("AGENTS.md", "- Run `make brew-test` after changing the formula.\n")
    makefile = source("Makefile", RELEASE_MAKEFILE)
    named = by_topic(build_targets.derive(makefile, [makefile, agents]))
    assert "make:brew-test" in named and "make:build" not in named  # a release, even named


def test_qa_and_aggregates_of_task_words_are_tasks() -> None:
    makefile = source(
        "Makefile",
        "qa: lint test\nlint:\n\truff check .\ntest:\n\tpytest\n"
        "pr: lint test\n\t@echo done\nnotes: changelog authors\n"
        "changelog:\n\ttowncrier build\nauthors:\n\tpython authors.py\n",
    )
    found = by_topic(build_targets.derive(makefile))
    assert found["make:qa"] == "`make qa` runs first `make lint`, `make test`."
    assert found["make:pr"] == "`make pr` runs first `make lint`, `make test`."
    assert "make:notes" not in found  # an aggregate of tasks that are no task words


def test_just_string_variables_are_expanded_and_parameters_kept() -> None:
    justfile = source(
        "justfile",
        'prek := "prek run --all-files"\nconfig := "--config-file=docs/mkdocs.yml"\n\n'
        "# Lint\nlint:\n    uv run {{ prek }} --skip mypy\n\n"
        "# Build the docs\ndocs-build *args:\n    uv run mkdocs build {{ config }} {{args}}\n",
    )
    assert by_topic(build_targets.derive(justfile)) == {
        "just:lint": "`just lint` (Lint) runs `uv run prek run --all-files --skip mypy`.",
        "just:docs-build": "`just docs-build` (Build the docs) runs "
        "`uv run mkdocs build --config-file=docs/mkdocs.yml {{args}}`.",
    }


def test_nox_starred_arguments_from_a_list_or_a_helper_returning_one() -> None:
    noxfile = source(
        "noxfile.py",
        "import nox\n\n"
        "def sphinx(kind):\n"
        '    return ["sphinx-build", "-W", "-b", kind, "docs", "docs/_build/" + kind]\n\n'
        "@nox.session\ndef docs(session):\n"
        '    session.run(*sphinx("html"))\n    session.run(*sphinx("man"))\n\n'
        "@nox.session\ndef tests(session):\n"
        '    args = ["pytest", "-x"]\n    session.run(*args, *session.posargs)\n',
    )
    assert by_topic(build_targets.derive(noxfile)) == {
        # computed words stay "…"; the two calls read the same and are told once
        "nox:docs": "`nox -s docs` runs `sphinx-build -W -b … docs …`.",
        "nox:tests": "`nox -s tests` runs `pytest -x …`.",
    }


def test_commands_introduced_by_hard_wrapped_lead_ins_and_bare_items() -> None:
    found = rules(
        "Running a specific test with the environment activated is as easy as:\n"
        "`py.test tests -k test_name`\n\n"
        "This is useful for running specific tests. The easiest way to set this up\n"
        "is to run:\n\n1. `tox -e venv`\n2. `. venv/bin/activate`\n\n"
        "After you have activated your virtual environment, you\n"
        "can run specific tests from the terminal:\n\n"
        "```bash\n$ python -m pytest tests/test_x.py\n```\n\n"
        "Install the rest with:\n\n- `uv sync`\n- `make docs`\n- `make lint`\n- `make test`\n"
    )
    assert found == {
        "Running a specific test with the environment activated is as easy as: "
        "`py.test tests -k test_name`": "preference",
        "This is useful for running specific tests. The easiest way to set this up is to run: "
        "`tox -e venv`; `. venv/bin/activate`": "preference",
        "After you have activated your virtual environment, you can run specific tests from "
        "the terminal: `python -m pytest tests/test_x.py`": "preference",
    }  # four bare items are a list, not the lead-in's commands


def test_a_lead_in_whose_commands_set_up_a_persons_checkout_is_refused() -> None:
    found = rules(
        "Clone the repository:\n\n```bash\ngit clone https://example.org/x.git\n```\n\n"
        "Add the fork as a remote:\n\n```bash\ngit remote add fork https://e.org/me/x.git\n```\n\n"
        "Install them as:\n\n```bash\nsudo apt install libffi-dev\n```\n\n"
        "Once you have Textual installed, run the demo:\n\n```bash\npython -m textual\n```\n"
    )
    # A condition ("once you have X installed") is no setup step: the commands decide.
    assert found == {
        "Once you have Textual installed, run the demo: `python -m textual`": "preference"
    }


def test_softened_imperatives_and_introductions_without_a_comma() -> None:
    found = rules(
        "With the environment activated simply run `pre-commit install`.\n\n"
        "Please add tests for any new features and bug fixes.\n\n"
        "With great power comes great responsibility.\n"
    )
    assert found == {
        "With the environment activated simply run `pre-commit install`.": "preference",
        "Please add tests for any new features and bug fixes.": "preference",
    }


def test_definitions_relative_clauses_and_pull_request_intake_are_no_rules() -> None:
    found = rules(
        "1. **Build System** (`src/x/builders/`): PEP 517 build front-end for wheels\n"
        "- `misc`: Miscellaneous changes that don't fit any other category\n"
        "- Functions that don't return should be annotated with `-> None`\n"
        "- **Documentation** — Typo fixes are always welcome as PRs.\n"
        "- **Reference an issue you're assigned to.** Every PR must reference a tracked issue.\n"
        "- **If your PR was auto-closed, don't open a new one.**\n"
        "- Never commit `.env` files.\n\n"
        "## What we'll close without review\n\n"
        "- Don't reference an issue or address a self-evident bug\n"
    )
    assert found == {
        "Functions that don't return should be annotated with `-> None`": "preference",
        "Never commit `.env` files.": "constraint",
    }


def test_what_looks_like_a_command() -> None:
    from powercontext_memory.candidates.commands import looks_like_command

    assert looks_like_command("py.test tests -k x")
    assert looks_like_command(". venv/bin/activate")
    assert not looks_like_command("self.x = 1")
    assert not looks_like_command(". a b")


COMMAND_TABLES = """\
### Install

|          | Command                | Directory  |
| -------- | ---------------------- | ---------- |
| Backend  | `uv sync --all-extras` | `backend/` |
| Frontend | `pnpm install`         | repo root  |
| Fork     | `git clone https://e.org/me/x.git` | anywhere |

### Where to look

| To do this...        | Look here                        |
|----------------------|----------------------------------|
| Add a new task type  | `task/base.py`, then `task/*.py` |

| Label | For |
|-------|-----|
| [`good first issue`](https://e.org/issues) | Newcomers |
"""


def test_a_command_table_gives_each_row_its_heading_and_label() -> None:
    # The role is what the heading and the row say; a table with no command column (paths,
    # links) and a row that sets up a person's checkout make nothing.
    assert rules(COMMAND_TABLES) == {
        "Install — Backend: `uv sync --all-extras` (Directory: `backend/`).": "preference",
        "Install — Frontend: `pnpm install` (Directory: repo root).": "preference",
    }


def test_commented_command_blocks_name_each_group() -> None:
    found = rules(
        "# Workflow\n\n```bash\n# Lint and style\n# Check for issues and fix automatically\n"
        "python -m ruff check src/ --fix\npython -m ruff format src/\n\n# Typecheck.\n"
        "python -m mypy src/\n\nuv run pytest   # run tests\nprek -a  // all the hooks\n"
        "uv build\n```\n\n"
        "These commands match CI:\n\n```bash\n# Tests\npython -m pytest tests/\n"
        "python -m pytest tests/x.py\npython -m pytest tests/y.py\npython -m pytest -x\n```\n\n"
        "```bash\n# Clone your fork\ngit clone git@e.org:me/x.git\n\n# Enter it\ncd x\n```\n\n"
        "```bash\n# Output\n$ ls\nfoo.py  bar.py\n```\n\n"
        "```python\n# Tests\nimport pytest\n```\n\n"
        "```bash\nmake test  # don't extract rules here\n```\n"
    )
    assert found == {
        "Lint and style — Check for issues and fix automatically: "
        "`python -m ruff check src/ --fix`; `python -m ruff format src/`": "preference",
        "Typecheck: `python -m mypy src/`": "preference",
        "run tests: `uv run pytest`": "preference",
        "all the hooks: `prek -a`": "preference",  # `uv build`: no comment names it
        "Tests: `python -m pytest tests/`; `python -m pytest tests/x.py`; "
        "`python -m pytest tests/y.py`; `python -m pytest -x`": "preference",
    }  # a person's clone-and-enter steps, output, Python and a remark (a modal) make nothing


def test_a_shell_block_is_read_as_typed() -> None:
    from powercontext_memory.candidates.script_lines import Line, read

    typed = ["$ uv venv && \\", "  uv sync  # install", "", "// from root", 'echo "a # b"']
    assert read(typed) == [
        Line("uv venv && uv sync", "install"),
        Line(""),
        Line("", "from root"),
        Line('echo "a # b"'),
    ]


def test_an_announcing_sentence_introduces_its_commands() -> None:
    found = rules(
        "This will run the backend's unit tests.\n\n```sh\ncd backend\nuv run pytest\n```\n\n"
        "This is how we like it.\n\n```sh\nuv run pytest\n```\n"
    )
    assert found == {
        "This will run the backend's unit tests. `cd backend`; `uv run pytest`": "preference"
    }


def test_an_interactive_ui_is_for_a_person() -> None:
    found = rules(
        "For debugging purposes, use the interactive mode. Run:\n\n"
        "```\npnpm test:interactive // runs `cypress open`\n```\n"
    )
    assert found == {}
    package = source(
        "package.json",
        '{"scripts": {"test:e2e": "cypress run", "test:e2e:interactive": "cypress open"}}',
    )
    assert list(by_topic(build_targets.derive(package))) == ["npm:test:e2e"]


def test_long_emphasised_rules_and_short_hard_wrapped_ones() -> None:
    long_tail = " Explain the trade-off to the user and wait for an answer before going on." * 3
    found = rules(
        "All changes **MUST** be backward-compatible." + long_tail + "\n\n"
        "All changes need care and attention from everyone." + long_tail + "\n\n"
        "Keep each workflow's `permissions:` block minimal, and never print tokens or\n"
        "environment variables in workflow logs.\n\n"
        "Workflow jobs in this repository that call Claude run with three protections. They\n"
        "were added after an incident, and each of them must stay in place until the firewall\n"
        "team says otherwise, which will not happen soon because the team is busy elsewhere.\n"
    )
    assert found == {
        "All changes **MUST** be backward-compatible." + long_tail: "constraint",
        "Keep each workflow's `permissions:` block minimal, and never print tokens or "
        "environment variables in workflow logs.": "constraint",
    }  # long prose without emphasis, hard-wrapped or not, is no rule


def test_should_that_expects_an_outcome_is_no_rule() -> None:
    found = rules(
        "You should now be able to access the app on `http://127.0.0.1:8000`.\n\n"
        "If you visit `http://localhost:5173/`, it should connect to your local server. If it "
        "is not running, it should say that it can't connect.\n\n"
        "You should run `make test` before pushing.\n\n"
        "- You cannot push to `main` directly.\n"
    )
    assert found == {
        "You should run `make test` before pushing.": "preference",
        "You cannot push to `main` directly.": "constraint",
    }


def test_an_introduction_without_a_comma_before_a_command() -> None:
    found = rules(
        "If you only want to run some of the tests run `pip install x[test]`.\n\n"
        "If you run `make` without arguments it prints the help.\n"
    )
    assert found == {
        "If you only want to run some of the tests run `pip install x[test]`.": "preference"
    }


def test_reassurance_and_bypassing_checks_are_no_rules() -> None:
    found = rules(
        "- Don't be discouraged if a reviewer asks for changes to your `tests`.\n"
        "- To skip the hook temporarily, use `git push --no-verify`.\n"
        "- Never skip pre-commit hooks (`--no-verify`); fix the underlying issue.\n"
    )
    assert found == {
        "Never skip pre-commit hooks (`--no-verify`); fix the underlying issue.": "constraint"
    }


NOXFILE_HELPERS = '''\
import nox


def tests_impl(session, extras=""):
    session.run("uv", "--version")
    session.run("python", "-c", "import sys; print(sys.version)")
    session.run("pytest", "-x", *session.posargs)


@nox.session
def test(session):
    tests_impl(session)


@nox.session
def lint(session):
    session.run("pre-commit", "run", "--all-files")


@nox.session
def format(session):
    """Run code formatters."""
    lint(session)


@nox.session
def github_actions_tests(session):
    tests_impl(session)
'''


def test_nox_sessions_that_hand_the_session_to_a_helper_or_a_session() -> None:
    # A version or a one-liner's print is plumbing; a session named after a CI service is the
    # CI machine's.
    assert by_topic(build_targets.derive(source("noxfile.py", NOXFILE_HELPERS))) == {
        "nox:test": "`nox -s test` runs `pytest -x …`.",
        "nox:lint": "`nox -s lint` runs `pre-commit run --all-files`.",
        "nox:format": "`nox -s format` (Run code formatters) runs `nox -s lint`.",
    }


def test_helpers_fed_files_are_not_tasks() -> None:
    package = source(
        "package.json",
        '{"scripts": {"format-check:files": "prettier --check --ignore-unknown",'
        ' "format-check": "pnpm format-check:files .", "lint-staged": "lint-staged"}}',
    )
    assert list(by_topic(build_targets.derive(package))) == ["npm:format-check"]


def test_the_tuning_set_scores_what_docs_bootstrap_md_reports() -> None:
    from bench.bootstrap import run

    total = run(["tuning"])["tuning"]
    assert total.false == 0
    assert (total.core_found, total.core_total) == (178, 178)
    assert (total.entries, total.noise) == (574, 14)
    assert total.noise_share <= 0.05
