"""Builds bench/data/conversations_{en,zh}.jsonl from the hand-written scripts, deterministically.

The scripts (bench/data/conversations_script_{en,zh}.txt) hold, per conversation, its sessions'
hand-written turns (the answer-bearing ones labelled), its questions, and the words its filler
may mention; shared at the top of each script, the filler templates. This module only inserts
filler turns between the hand-written ones (seeded by the conversation id, so the output never
changes unless a script does) and numbers every turn.

Script lines (blank lines and lines starting with `#` are ignored):

    ~chat <template>        filler for either speaker of a chat ("~user", "~agent" for logs)
    = <conversation id> <chat|agent>
    speakers <first> | <second>        (agent logs: the user first, then the agent)
    slot <name> <value> | <value> ...  (what {name} in a template may become)
    @ <YYYY-MM-DD> +<filler turns>     (a session; its date heads every turn's text)
    [<label>] <speaker>: <text>        (a hand-written turn; the label only on evidence turns)
    ? <type> <label>[,<label>] | <question> | <answer>

Every turn's text is "[<date>] <speaker>: <text>" (Chinese: "[<date>] <speaker>：<text>").
Run: python -m bench.conversation_data   (rewrites the jsonl files)
"""

from __future__ import annotations

import json
import random
import re
import string
from dataclasses import dataclass, field
from pathlib import Path

DATA = Path(__file__).parent / "data"
LANGUAGES = ("en", "zh")
KINDS = ("chat", "agent")
TYPES = ("single-hop", "temporal", "multi-hop", "paraphrase", "keyword")
_SESSION = re.compile(r"@ (\d{4}-\d{2}-\d{2}) \+(\d+)")
_TURN = re.compile(r"(?:\[([\w-]+)\] )?([^:：\s]+)\s*[:：]\s*(.+)")
_SLOT = re.compile(r"\{(\w+)\}")
COMPOUND_SHARE = 1 / 3  # filler turns made of two template sentences


@dataclass
class _Session:
    date: str
    filler: int
    lines: list[tuple[str | None, str, str]] = field(default_factory=list)  # label, who, text


@dataclass
class _Conversation:
    id: str
    kind: str
    speakers: list[str] = field(default_factory=list)
    slots: dict[str, list[str]] = field(default_factory=dict)
    sessions: list[_Session] = field(default_factory=list)
    questions: list[tuple[str, list[str], str, str]] = field(default_factory=list)


def script_path(lang: str, data: Path = DATA) -> Path:
    return data / f"conversations_script_{lang}.txt"


def output_path(lang: str, data: Path = DATA) -> Path:
    return data / f"conversations_{lang}.jsonl"


def _parse(text: str) -> tuple[dict[str, list[str]], list[_Conversation]]:
    templates: dict[str, list[str]] = {"chat": [], "user": [], "agent": []}
    conversations: list[_Conversation] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            _parse_line(line, templates, conversations)
        except (ValueError, IndexError, KeyError) as error:
            raise ValueError(f"script line {number}: {error}: {line!r}") from error
    return templates, conversations


def _parse_line(
    line: str, templates: dict[str, list[str]], conversations: list[_Conversation]
) -> None:
    if line.startswith("~"):
        role, template = line[1:].split(" ", 1)
        templates[role].append(template.strip())
        return
    if line.startswith("= "):
        conversation_id, kind = line[2:].split()
        if kind not in KINDS:
            raise ValueError(f"unknown kind {kind}")
        conversations.append(_Conversation(conversation_id, kind))
        return
    current = conversations[-1]
    if line.startswith("speakers "):
        current.speakers = [s.strip() for s in line[len("speakers ") :].split("|")]
    elif line.startswith("slot "):
        name, values = line[len("slot ") :].split(" ", 1)
        current.slots[name] = [v.strip() for v in values.split("|")]
    elif line.startswith("@ "):
        match = _SESSION.fullmatch(line)
        if match is None:
            raise ValueError("a session line is '@ YYYY-MM-DD +N'")
        current.sessions.append(_Session(match[1], int(match[2])))
    elif line.startswith("? "):
        head, question, answer = (part.strip() for part in line[2:].split("|"))
        kind, labels = head.split()
        if kind not in TYPES:
            raise ValueError(f"unknown question type {kind}")
        current.questions.append((kind, labels.split(","), question, answer))
    else:
        match = _TURN.fullmatch(line)
        if match is None or match[2] not in current.speakers:
            raise ValueError("not a turn of one of the speakers")
        current.sessions[-1].lines.append((match[1], match[2], match[3].strip()))


def _fill(template: str, slots: dict[str, list[str]], rng: random.Random) -> str | None:
    """The template with every {slot} drawn; None when the conversation lacks one of them."""
    values: dict[str, str] = {}
    for name in _SLOT.findall(template):
        if name == "n":
            values[name] = str(rng.randint(12, 480))
        elif name == "m":
            values[name] = str(rng.randint(1, 9))
        elif name in slots:
            values[name] = rng.choice(slots[name])
        else:
            return None
    return string.Formatter().vformat(template, (), values)


def _build(
    conversation: _Conversation, templates: dict[str, list[str]], lang: str
) -> list[dict[str, object]]:
    """The conversation's records: its header, its turns, its questions."""
    rng = random.Random(conversation.id)  # a str seed is stable across runs and versions
    colon = "：" if lang == "zh" else ": "
    joiner = "" if lang == "zh" else " "  # Chinese sentences end in their own punctuation
    name = conversation.id
    header: dict[str, object] = {"conversation": name, "kind": conversation.kind}
    header["speakers"] = conversation.speakers
    turns: list[dict[str, object]] = []
    labels: dict[str, str] = {}
    seen: set[str] = set()
    for number, session in enumerate(conversation.sessions, 1):
        gaps = sorted(rng.randint(1, len(session.lines)) for _ in range(session.filler))
        planned: list[tuple[str | None, str, str] | None] = []  # None: a filler turn
        for index, written in enumerate(session.lines):
            planned += [None] * gaps.count(index)
            planned.append(written)
        planned += [None] * gaps.count(len(session.lines))
        used: set[str] = set()  # templates of this session: none twice in one sitting
        for line in planned:
            if line is None:
                previous = turns[-1]["speaker"]
                who = next(s for s in conversation.speakers if s != previous)
                label, text = None, _filler(conversation, templates, who, used, rng, joiner)
            else:
                label, who, text = line
            turn_id = f"{name}-t{len(turns) + 1:03d}"
            full = f"[{session.date}] {who}{colon}{text}"
            if full in seen:
                raise ValueError(f"{name}: the turn {full!r} occurs twice")
            seen.add(full)
            if label is not None:
                if label in labels:
                    raise ValueError(f"{name}: label {label} used twice")
                labels[label] = turn_id
            turns.append(
                {"conversation": name, "id": turn_id, "session": number}
                | {"date": session.date, "speaker": who, "text": full}
            )
    questions: list[dict[str, object]] = []
    for index, (kind, question_labels, question, answer) in enumerate(conversation.questions, 1):
        missing = [label for label in question_labels if label not in labels]
        if missing:
            raise ValueError(f"{name}: question {question!r} cites unknown {missing}")
        questions.append(
            {
                "conversation": name,
                "id": f"{name}-q{index:02d}",
                "type": kind,
                "question": question,
                "answer": answer,
                "evidence": [labels[label] for label in question_labels],
            }
        )
    return [header, *turns, *questions]


def _filler(
    conversation: _Conversation,
    templates: dict[str, list[str]],
    who: str,
    used: set[str],
    rng: random.Random,
    joiner: str,
) -> str:
    """One filler turn: a template's sentence, or (a third of the time) two of them, since real
    turns often react and then go on about something else."""
    role = "chat"
    if conversation.kind == "agent":
        role = "user" if who == conversation.speakers[0] else "agent"
    sentences = [_sentence(conversation, templates[role], role, used, rng)]
    if rng.random() < COMPOUND_SHARE:
        sentences.append(_sentence(conversation, templates[role], role, used, rng))
    return joiner.join(sentences)


def _sentence(
    conversation: _Conversation,
    templates: list[str],
    role: str,
    used: set[str],
    rng: random.Random,
) -> str:
    pool = [t for t in templates if t not in used]
    while pool:
        template = pool.pop(rng.randrange(len(pool)))
        text = _fill(template, conversation.slots, rng)
        if text is not None:
            used.add(template)
            if role == "chat":  # a slot may open the sentence ("your mom says hi")
                text = text[:1].upper() + text[1:]
            return text
    raise ValueError(f"{conversation.id}: too few {role} templates for one session")


def records(lang: str, data: Path = DATA) -> list[dict[str, object]]:
    """Every record of one language, in script order: per conversation a header
    ({"conversation", "kind", "speakers"}), its turns ({"conversation", "id", "session", "date",
    "speaker", "text"}) and its questions ({"conversation", "id", "type", "question", "answer",
    "evidence"}: turn ids)."""
    templates, conversations = _parse(script_path(lang, data).read_text(encoding="utf-8"))
    return [record for c in conversations for record in _build(c, templates, lang)]


def render(lang: str, data: Path = DATA) -> str:
    """The jsonl text of one language: a record a line, so a diff shows each changed turn or
    question."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records(lang, data))


def main() -> None:
    for lang in LANGUAGES:
        output_path(lang).write_text(render(lang), encoding="utf-8")
        print(f"wrote {output_path(lang)}")


if __name__ == "__main__":
    main()
