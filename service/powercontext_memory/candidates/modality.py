"""The modal words that make a sentence of a rules file an instruction, and the uses of them
that do not:

- constraint: must / must not / never / do not / don't / shall not / forbidden, and cannot /
  may not said of a person ("you cannot push"; "it can't connect" describes a thing),
  必须 / 禁止 / 不得 / 不要 / 不准 / 请勿 / 切勿 / 不可;
- preference: should / always / prefer / avoid, 应该 / 应当 / 务必 / 优先 / 尽量;
- a marker in a relative clause ("changes that don't fit") describes, it does not ask;
- "should" that expects an outcome describes what will happen, it asks nothing: "You should now
  be able to access the app", "it should connect to your local server";
- a modal the author emphasised — in bold (**must**) or in capitals (MUST, ALWAYS, NEVER,
  DO NOT) — marks a rule however long its paragraph is.
"""

from __future__ import annotations

import re
from typing import Final

# A marker in a relative clause describes something ("changes that don't fit"), not asks it.
_DESCRIBED: Final = r"(?<!\bthat )(?<!\bwhich )(?<!\bwho )"
CONSTRAINT_EN: Final = re.compile(
    _DESCRIBED + r"\b(?:must|mustn't|never|do not|don't|shall not|not allowed|forbidden)\b|"
    # "cannot" forbids only a person ("you cannot push"); "it can't connect" describes a thing
    r"\b(?:you|we|agents?|contributors?)\s+(?:cannot|can't|may not)\b",
    re.IGNORECASE,
)
PREFERENCE_EN: Final = re.compile(
    _DESCRIBED + r"\b(?:should|shouldn't|(?<!not )always|prefer|avoid)\b", re.IGNORECASE
)
CONSTRAINT_ZH: Final = ("必须", "禁止", "不得", "不要", "不准", "请勿", "切勿", "不可")
PREFERENCE_ZH: Final = ("应该", "应当", "务必", "优先", "尽量")
# "should" expecting an outcome: a person will now see something, or a thing will behave so.
_EXPECTED: Final = re.compile(
    r"\b(?:you|we)\s+should\s+(?:now\s+|then\s+|also\s+)?"
    r"(?:be able to|see|get|notice|receive|end up)\b|"
    r"\b(?:it|this|that|they)\s+should\s+(?:now\s+|then\s+|also\s+)?"
    r"(?:connect|say|show|look|appear|display|print|output|open|start|produce|contain|take|"
    r"return|respond|load|work)\b",
    re.IGNORECASE,
)
_SHOULD: Final = re.compile(r"\bshould\b", re.IGNORECASE)
# An emphasised modal: **must** / __never__ in bold, or MUST / ALWAYS / NEVER in capitals.
_EMPHASISED: Final = re.compile(
    r"(?:\*\*|__)\s*(?:must|must not|never|always|do not|don't|shall|shall not|should|"
    r"should not|required|only if)\s*(?:\*\*|__)|"
    r"\b(?:MUST|MUST NOT|NEVER|ALWAYS|DO NOT|SHALL|SHALL NOT|REQUIRED)\b"
)


def marker_kind(plain: str) -> str | None:
    """constraint or preference for a line holding a modal marker that asks something, else
    None (no marker, or only a "should" that expects an outcome)."""
    if CONSTRAINT_EN.search(plain) or any(m in plain for m in CONSTRAINT_ZH):
        return "constraint"
    if any(m in plain for m in PREFERENCE_ZH):
        return "preference"
    if not PREFERENCE_EN.search(plain):
        return None
    asked = _EXPECTED.sub("", plain)
    if _SHOULD.search(plain) and not PREFERENCE_EN.search(asked):
        return None  # every marker is a "should" expecting an outcome
    return "preference"


def emphasised(line: str) -> bool:
    """The line holds a modal its author emphasised (in bold or in capitals)."""
    return bool(_EMPHASISED.search(line))
