"""Remember EXTRACT: the candidate pipeline over persisted sources, on every backend.

The worked example of docs/walkthrough.md (AGENTS.md, pyproject.toml and Makefile saying uv +
Hatchling, `make test` for changes, `make check` before review, site/ is generated output), then
a user's correction, a user's forget, a committed Makefile change and task outcomes without a
model.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from powercontext_memory.api import RememberMode, WriteResult
from powercontext_memory.candidates import SuggestionKind
from powercontext_memory.candidates.sources import (
    GIT_CHANGE_KIND,
    GIT_CHANGE_MEDIA_TYPE,
    TASK_OUTCOME_KIND,
    TASK_OUTCOME_MEDIA_TYPE,
    USER_NOTE_KIND,
    USER_NOTE_MEDIA_TYPE,
)
from powercontext_memory.domain.errors import (
    CapabilityNotSupportedError,
    InvalidArgumentError,
    NotFoundError,
)
from powercontext_memory.domain.idempotency import IdempotencyKey
from powercontext_memory.domain.lifecycle import EntryOutcome, EntryRef
from powercontext_memory.domain.models import ArtifactRef, Citation, EntryState, SourceRef
from powercontext_memory.memory import MemoryService

EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "candidates" / "worked_example"
EXTRACT = RememberMode.EXTRACT


async def put_file(service: MemoryService, path: str, text: str | None = None) -> SourceRef:
    content = (EXAMPLE / path).read_text() if text is None else text
    source, _ = await service.put_source(
        "file", f"repo://{path}", "text/plain; charset=utf-8", content.encode(), {}
    )
    return source.ref


async def put_json(service: MemoryService, kind: str, media_type: str, data: object) -> SourceRef:
    content = json.dumps(data, ensure_ascii=False).encode()
    source, _ = await service.put_source(kind, f"{kind}://test", media_type, content, {})
    return source.ref


async def put_note(service: MemoryService, words: str) -> SourceRef:
    source, _ = await service.put_source(
        USER_NOTE_KIND, "user-note://test", USER_NOTE_MEDIA_TYPE, words.encode(), {}
    )
    return source.ref


async def texts(service: MemoryService, memory: ArtifactRef) -> dict[str, tuple[str, ...]]:
    """Active entry text -> its evidence source ids."""
    view = await service.get_memory(memory)
    active = [e for e in view.revision.content.entries if e.state is EntryState.ACTIVE]
    async with service.backend.read() as session:
        versions = await session.versions([e.entry_version_id for e in active])
    return {
        v.content.text: tuple(r.source_id for r in v.content.source_refs) for v in versions.values()
    }


def ref_of(result: WriteResult, text_part: str) -> EntryRef:
    for entry, outcome in zip(result.candidates, result.results, strict=True):
        if text_part in entry.text:
            return EntryRef(outcome.entry_id, outcome.entry_version_id)
    raise AssertionError(f"no candidate with {text_part!r}")


async def bootstrap(service: MemoryService) -> tuple[WriteResult, dict[str, SourceRef]]:
    files = {
        name: await put_file(service, name) for name in ("AGENTS.md", "pyproject.toml", "Makefile")
    }
    result = await service.remember(None, list(files.values()), [], [], EXTRACT)
    assert result.changed and result.memory is not None
    return result, files


VALIDATION = "验证约定：常规代码变更务必运行 `make test`；评审前运行 `make check`。"
SITE = "site/ 是生成输出，禁止作为源材料修改。"


async def test_worked_example_extracts_entries_with_their_evidence(service: MemoryService) -> None:
    result, files = await bootstrap(service)
    assert result.memory is not None
    agents, pyproject, makefile = (
        files[n].source_id for n in ("AGENTS.md", "pyproject.toml", "Makefile")
    )
    assert len(result.candidates) == len(result.results)
    assert {r.outcome for r in result.results} == {EntryOutcome.ADDED}
    stored = await texts(service, result.memory)
    assert stored[VALIDATION] == tuple(sorted((agents, makefile)))
    assert stored[SITE] == (agents,)
    assert stored["The package is built with Hatchling (build backend hatchling.build)."] == (
        pyproject,
    )
    assert stored["Dependencies are managed with uv."] == tuple(
        sorted((agents, pyproject, makefile))
    )
    assert stored["`make test` runs `uv run pytest`."] == (makefile,)
    assert stored["`make check` runs first `make lint`, `make test`, then `uv run mypy`."] == (
        makefile,
    )
    kinds = {e.text: e.kind for e in result.candidates}
    assert kinds[VALIDATION] == "preference" and kinds[SITE] == "constraint"
    # The code fence's line and the prose paragraph are not rules.
    assert not any("不要在这里" in t or "参考实现" in t for t in stored)
    # Running it again on the same files proposes nothing: a no-op on the head.
    again = await service.remember(result.memory, list(files.values()), [], [], EXTRACT)
    assert not again.changed and again.memory == result.memory and not again.candidates


async def test_user_correction_revises_the_one_rule_it_names(service: MemoryService) -> None:
    result, files = await bootstrap(service)
    assert result.memory is not None
    validation = ref_of(result, "验证约定")
    note = await put_note(service, "改文档时不用跑完整 make test，优先跑 make docs-test。")
    revised = await service.remember(result.memory, [note], [], [], RememberMode.AUTO)
    assert revised.changed and [r.outcome for r in revised.results] == [EntryOutcome.REVISED]
    assert revised.results[0].entry_id == validation.entry_id
    assert revised.candidates[0].target == validation
    assert revised.memory is not None
    citation = Citation(revised.memory, validation.entry_id, revised.results[0].entry_version_id)
    [expanded] = await service.expand([citation])
    version = expanded.version
    assert version.version == 2 and version.previous_version_id == validation.entry_version_id
    assert version.content.text == (
        VALIDATION + "（更新：改文档时不用跑完整 make test，优先跑 make docs-test。）"
    )
    # The note joins the previous version's evidence (AGENTS.md and the Makefile).
    assert {r.source_id for r in version.content.source_refs} == {
        files["AGENTS.md"].source_id,
        files["Makefile"].source_id,
        note.source_id,
    }


async def test_forget_note_suggests_the_site_entry_and_forgets_nothing(
    service: MemoryService,
) -> None:
    result, _ = await bootstrap(service)
    assert result.memory is not None
    site = ref_of(result, "site/")
    note = await put_note(service, "site/ 那条不要记了，有些发布任务会需要处理它。")
    answer = await service.remember(result.memory, [note], [], [], EXTRACT)
    assert not answer.changed and answer.memory == result.memory and not answer.candidates
    [suggestion] = answer.suggestions
    assert suggestion.kind is SuggestionKind.FORGET and suggestion.entries == (site,)
    assert suggestion.adapter == "user-note" and suggestion.sources == (note,)
    # A note that names several entries is reported back, never guessed.
    vague = await put_note(service, "forget the make rules")
    answer = await service.remember(result.memory, [vague], [], [], EXTRACT)
    [suggestion] = answer.suggestions
    assert suggestion.kind is SuggestionKind.AMBIGUOUS and len(suggestion.entries) > 1


async def test_git_change_revises_exactly_the_affected_entry(service: MemoryService) -> None:
    result, files = await bootstrap(service)
    assert result.memory is not None
    old_text = (EXAMPLE / "Makefile").read_text()
    new_text = old_text.replace("\tuv run pytest\n\ncheck", "\tuv run pytest -x -q\n\ncheck")
    new_text = new_text.replace("docs:\n\tuv run mkdocs build --strict\n\n", "")
    makefile = await put_file(service, "Makefile", new_text)
    change = await put_json(
        service,
        GIT_CHANGE_KIND,
        GIT_CHANGE_MEDIA_TYPE,
        {
            "base": "a" * 40,
            "head": "b" * 40,
            "paths": ["Makefile"],
            "patch": "…",
            "truncated": False,
        },
    )
    answer = await service.remember(result.memory, [makefile, change], [], [], EXTRACT)
    test_entry = ref_of(result, "`make test` runs")
    assert [r.outcome for r in answer.results] == [EntryOutcome.REVISED]
    assert answer.results[0].entry_id == test_entry.entry_id
    assert answer.candidates[0].text == "`make test` runs `uv run pytest -x -q`."
    assert set(answer.candidates[0].sources) == {makefile, change}
    # The docs target is gone: suggested for an explicit forget, never forgotten.
    [suggestion] = answer.suggestions
    assert suggestion.kind is SuggestionKind.FORGET and suggestion.adapter == "git-change"
    assert suggestion.entries == (ref_of(result, "`make docs` runs"),)
    assert answer.memory is not None
    stored = await texts(service, answer.memory)
    assert "`make docs` runs `uv run mkdocs build --strict`." in stored
    assert stored["`make test` runs `uv run pytest -x -q`."] == tuple(
        sorted((files["Makefile"].source_id, makefile.source_id, change.source_id))
    )
    assert len(stored) == len(await texts(service, result.memory))


async def test_task_outcome_without_a_model_is_a_working_note_or_nothing(
    service: MemoryService,
) -> None:
    outcome = await put_json(
        service,
        TASK_OUTCOME_KIND,
        TASK_OUTCOME_MEDIA_TYPE,
        {
            "host": "claude-code",
            "session_id": "s1",
            "turn_id": "t7",
            "report": "Added the docs-test target.\nAll green.",
            "git_head": "0123456789abcdef0123",
            "changed_paths": ["Makefile", "docs/index.md"],
            "verification": [{"command": "make docs-test", "result": "passed"}],
        },
    )
    created = await service.remember(None, [outcome], [], [], RememberMode.AUTO)
    assert created.changed and [e.kind for e in created.candidates] == ["working_note"]
    assert created.candidates[0].text == (
        "Added the docs-test target. All green.; "
        "changed: Makefile, docs/index.md; verified: make docs-test → passed"
    )
    empty = await put_json(
        service, TASK_OUTCOME_KIND, TASK_OUTCOME_MEDIA_TYPE, {"turn_id": "t8", "report": " "}
    )
    nothing = await service.remember(None, [empty], [], [], EXTRACT)
    assert nothing == WriteResult(None, False, "")  # no memory is created for nothing


async def test_a_source_alone_never_creates_a_memory(service: MemoryService) -> None:
    notes = await put_file(service, "docs/notes.md", "Some prose about the project.")
    result = await service.remember(None, [notes], [], [], RememberMode.AUTO)
    assert result == WriteResult(None, False, "")


async def test_extract_errors(service: MemoryService) -> None:
    agents = await put_file(service, "AGENTS.md")
    with pytest.raises(CapabilityNotSupportedError) as unknown:
        await service.remember(None, [agents], [], [], EXTRACT, extractors=["model"])
    assert unknown.value.capability == "extractors[0]"
    missing = SourceRef("src_" + "0" * 32, "0" * 64)
    with pytest.raises(NotFoundError) as not_found:
        await service.remember(None, [missing], [], [], EXTRACT)
    assert not_found.value.reason == "SOURCE_NOT_FOUND"
    wrong_hash = SourceRef(agents.source_id, "1" * 64)
    with pytest.raises(InvalidArgumentError) as mismatch:
        await service.remember(None, [wrong_hash], [], [], EXTRACT)
    assert mismatch.value.reason == "SOURCE_HASH_MISMATCH"
    # `extractors` restricts the run: only the rules of AGENTS.md.
    only = await service.remember(None, [agents], [], [], EXTRACT, extractors=["agent-rules"])
    assert {e.text for e in only.candidates} == {VALIDATION, SITE}
    caps = service.capabilities()
    assert caps.candidate_extraction and caps.candidate_extractors == ()
    assert caps.candidate_adapters == (
        "git-change", "pyproject", "build-targets", "agent-rules", "task-outcome", "user-note",
    )  # fmt: skip


async def test_a_retried_extract_gets_its_candidates_and_suggestions_back(
    service: MemoryService,
) -> None:
    """The runtime applies a FORGET suggestion from the answer: a retry (same request id) after
    a lost answer must carry it too, even once the head has moved."""
    result, _ = await bootstrap(service)
    assert result.memory is not None
    site = ref_of(result, "site/")
    forget_note = await put_note(service, "site/ 那条不要记了")
    key = IdempotencyKey("retry-forget-note", "fingerprint-1")
    first = await service.remember(
        result.memory, [forget_note], [], [], EXTRACT, idempotency_key=key
    )
    correction = await put_note(service, "改文档时不用跑完整 make test，优先跑 make docs-test。")
    key2 = IdempotencyKey("retry-correction", "fingerprint-2")
    revised = await service.remember(
        result.memory, [correction], [], [], EXTRACT, idempotency_key=key2
    )
    assert revised.changed  # the head moved on
    again = await service.remember(
        result.memory, [forget_note], [], [], EXTRACT, idempotency_key=key
    )
    assert again.suggestions == first.suggestions and again.suggestions[0].entries == (site,)
    replayed = await service.remember(
        result.memory, [correction], [], [], EXTRACT, idempotency_key=key2
    )
    assert replayed.candidates == revised.candidates and replayed.results == revised.results


async def test_a_session_keeps_one_working_note_that_each_turn_revises(
    service: MemoryService,
) -> None:
    async def turn(
        memory: ArtifactRef | None, report: str, note: str = "", session: str = "s1"
    ) -> WriteResult:
        data: dict[str, object] = {
            "session_id": session,
            "report": report,
            "changed_paths": ["src/parser.py"],
        }
        if note:
            data["note_entry_id"] = note
        outcome = await put_json(service, TASK_OUTCOME_KIND, TASK_OUTCOME_MEDIA_TYPE, data)
        return await service.remember(memory, [outcome], [], [], EXTRACT)

    first = await turn(None, "Started the parser rewrite.")
    note = first.results[0].entry_id
    second = await turn(first.memory, "Parser rewrite done; tests green.", note)
    third = await turn(second.memory, "Parser rewrite done; docs updated.", note)
    assert [r.outcome for r in (*second.results, *third.results)] == [EntryOutcome.REVISED] * 2
    assert {r.entry_id for r in (*second.results, *third.results)} == {note}
    assert third.memory is not None
    head = await service.get_memory(ArtifactRef(third.memory.artifact_id, 0))
    active = [e for e in head.revision.content.entries if e.state is EntryState.ACTIVE]
    assert [e.entry_id for e in active] == [note]  # one note for the session, three versions
    _, history = await service.changes(third.memory, 0)
    ops = [item.changes[0].op.value async for item in history]
    assert ops == ["add", "revise", "revise"]
    # Another session saying what the note already says adds nothing; saying more adds one.
    same = await turn(third.memory, "Parser rewrite done; docs updated.", session="s2")
    assert not same.changed
    other = await turn(third.memory, "Started on the CLI flags.", session="s2")
    assert other.changed and other.results[0].outcome is EntryOutcome.ADDED
