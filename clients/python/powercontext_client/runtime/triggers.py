"""Which prompts are explicit instructions about memory — THE trigger list, kept only here.

A prompt is sent as a user_note Source (and through the candidate pipeline) only when it looks
like the user telling the agent something to keep or to drop: "remember …", "forget …",
"记住 …", "不要再记 …", or a correction / standing preference in imperative words ("from now
on …", "always …", "以后 …", "优先 …", "不用 …"). Everything else is a task, and a task prompt
only asks for context: no write, one round trip. Long prompts are tasks (MAX_NOTE_CHARS).
The server's user-note adapter still decides what, if anything, the words become.
"""

from __future__ import annotations

import re
from typing import Final

MAX_NOTE_CHARS: Final = 600

# Asking to keep or to drop something from memory.
MEMORY_WORDS: Final = (
    "remember",
    "forget",
    "don't remember",
    "do not remember",
    "stop remembering",
    "note that",
    "keep in mind",
    "记住",
    "记得",
    "记一下",
    "不要再记",
    "不要记",
    "别再记",
    "别记",
    "不用记",
    "忘掉",
    "忘记",
    "忘了",
)
# A correction or a standing preference.
PREFERENCE_WORDS: Final = (
    "from now on",
    "going forward",
    "always",
    "never",
    "prefer",
    "instead of",
    "no need to",
    "以后",
    "今后",
    "从现在起",
    "总是",
    "永远",
    "优先",
    "不用",
    "不需要",
    "别再",
    "不要再",
    "务必",
    "必须",
    "禁止",
)
_LATIN: Final = re.compile(r"[a-z]")


def _contains(text: str, word: str) -> bool:
    if not _LATIN.search(word):
        return word in text
    return re.search(rf"(?<![a-z]){re.escape(word)}(?![a-z])", text) is not None


def is_explicit_instruction(prompt: str) -> bool:
    text = " ".join(prompt.lower().split())
    if not text or len(text) > MAX_NOTE_CHARS:
        return False
    return any(_contains(text, w) for w in MEMORY_WORDS + PREFERENCE_WORDS)
