"""The conversational retrieval truth set (bench/conversations.py) is well formed: the committed
jsonl is exactly what the generator makes of the hand-written scripts, every question's evidence
is a turn of its own conversation, and the set has the size, languages, kinds and question types
the benchmark reports on."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from bench import conversation_data
from bench.conversations import DATA, KINDS, LANGUAGES, TYPES, Conversation, load

TURN_TEXT = re.compile(r"\[(\d{4}-\d{2}-\d{2})\] (\S+?)(: |：)\S")


@pytest.fixture(scope="module")
def conversations() -> list[Conversation]:
    return load()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_committed_jsonl_is_the_generators_output(lang: str) -> None:
    committed = conversation_data.output_path(lang).read_text(encoding="utf-8")
    assert committed == conversation_data.render(lang), (
        "edit the script and run python -m bench.conversation_data, never the jsonl"
    )


def test_every_evidence_turn_exists_in_its_own_conversation(
    conversations: list[Conversation],
) -> None:
    for conversation in conversations:
        turn_ids = {turn_id for turn_id, _ in conversation.turns}
        for question in conversation.questions:
            assert question.conversation == conversation.id
            assert set(question.evidence) <= turn_ids, question.id


def test_size_languages_kinds_and_types(conversations: list[Conversation]) -> None:
    questions = [q for c in conversations for q in c.questions]
    assert len(questions) >= 400
    per_language = Counter(q.lang for q in questions)
    for lang in LANGUAGES:
        assert per_language[lang] >= 0.4 * len(questions), per_language
        mine = [c for c in conversations if c.lang == lang]
        assert len(mine) >= 4
        assert {c.kind for c in mine} == set(KINDS)
        assert {q.type for q in questions if q.lang == lang} == set(TYPES)
    assert min(Counter(q.type for q in questions).values()) >= 40


def test_ids_are_unique(conversations: list[Conversation]) -> None:
    for ids in (
        [c.id for c in conversations],
        [t for c in conversations for t, _ in c.turns],
        [q.id for c in conversations for q in c.questions],
    ):
        assert len(ids) == len(set(ids))


def test_turns_are_dated_spoken_and_distinct(conversations: list[Conversation]) -> None:
    for conversation in conversations:
        assert 150 <= len(conversation.turns) <= 400, conversation.id
        texts = [text for _, text in conversation.turns]
        # Remember keeps identical entries once: two equal turns would share one entry.
        assert len(set(texts)) == len(texts), conversation.id
        dates = []
        for text in texts:
            match = TURN_TEXT.match(text)
            assert match is not None, text
            assert match[3] == ("：" if conversation.lang == "zh" else ": "), text
            dates.append(match[1])
        assert dates == sorted(dates), f"{conversation.id}: sessions out of order"
        assert len(set(dates)) >= 5, f"{conversation.id}: too few sessions"


def test_evidence_count_matches_the_type(conversations: list[Conversation]) -> None:
    for question in (q for c in conversations for q in c.questions):
        expected = 2 if question.type == "multi-hop" else 1
        assert len(set(question.evidence)) == len(question.evidence) == expected, question.id


def test_question_texts_are_distinct(conversations: list[Conversation]) -> None:
    texts = [q.text for c in conversations for q in c.questions]
    assert len(set(texts)) == len(texts)


def _copy_data(tmp_path: Path) -> Path:
    for lang in LANGUAGES:
        shutil.copy(DATA / f"conversations_{lang}.jsonl", tmp_path)
    return tmp_path


def _rewrite(path: Path, change: dict[str, object], where: str) -> None:
    """Apply `change` to the first record whose "id" ends with `where`."""
    lines = path.read_text(encoding="utf-8").splitlines()
    for index, line in enumerate(lines):
        record = json.loads(line)
        if str(record.get("id", "")).endswith(where):
            lines[index] = json.dumps(record | change, ensure_ascii=False)
            break
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_load_refuses_evidence_from_another_conversation(tmp_path: Path) -> None:
    data = _copy_data(tmp_path)
    other = load()[1].turns[0][0]
    _rewrite(data / "conversations_en.jsonl", {"evidence": [other]}, "-q01")
    with pytest.raises(ValueError, match="is no turn of"):
        load(data)


def test_load_refuses_a_duplicate_turn_id(tmp_path: Path) -> None:
    data = _copy_data(tmp_path)
    first = load()[4].turns[0][0]
    _rewrite(data / "conversations_zh.jsonl", {"id": first}, "-t002")
    with pytest.raises(ValueError, match="duplicate turn ids"):
        load(data)


def test_load_refuses_an_unknown_question_type(tmp_path: Path) -> None:
    data = _copy_data(tmp_path)
    _rewrite(data / "conversations_en.jsonl", {"type": "open-domain"}, "-q03")
    with pytest.raises(ValueError, match="unknown type"):
        load(data)


def test_generator_refuses_a_question_citing_an_unknown_label(tmp_path: Path) -> None:
    script = conversation_data.script_path("en").read_text(encoding="utf-8")
    broken = script.replace("? single-hop violin |", "? single-hop viola |", 1)
    assert broken != script
    conversation_data.script_path("en", tmp_path).write_text(broken, encoding="utf-8")
    with pytest.raises(ValueError, match="cites unknown"):
        conversation_data.render("en", tmp_path)
