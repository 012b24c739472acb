"""The description and tag rules of entry versions, in one place.

A description is one line of 1..200 code points. A caller may give one (checked, never
repaired); otherwise it is derived from the entry's normalized text, deterministically and
without any model: whitespace runs collapse to one space, and a text longer than 200 code
points is cut to its first 199 followed by "…" (exactly 200). Line breaks and other control
characters count as whitespace there, so a derived description always obeys the same rule a
given one must.

Tags are part of the versioned entry content (hash v2): at most 32, each 1..64 code points of
one line without control characters or ',', NFC-normalized and trimmed, stored sorted and
distinct. Filters compare stored tags exactly (see tag_needle).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from .canonical import nfc
from .errors import InvalidArgumentError

MAX_DESCRIPTION_CODE_POINTS = 200
MAX_TAGS = 32
MAX_TAG_CODE_POINTS = 64
ELLIPSIS = "…"
# Delimits tags in memory_entry_heads.tags; a control character, so never inside a tag.
TAG_DELIMITER = "\x1f"

# Line and paragraph separators are not category Cc but still break a line.
_LINE_BREAKING = frozenset({"Cc", "Zl", "Zp"})


def _breaks_line(char: str) -> bool:
    return unicodedata.category(char) in _LINE_BREAKING


def derive_description(text: str) -> str:
    """The default description of a (normalized) entry text; "" only when the text has no
    character a description may hold (describe() refuses that)."""
    visible = "".join(" " if _breaks_line(c) else c for c in text)
    collapsed = " ".join(visible.split())
    if len(collapsed) <= MAX_DESCRIPTION_CODE_POINTS:
        return collapsed
    return collapsed[: MAX_DESCRIPTION_CODE_POINTS - 1] + ELLIPSIS


def description_problem(value: str) -> str | None:
    """Why `value` is not a valid stored description (already normalized), or None."""
    if not value or value != value.strip():
        return "must not be blank or start or end with whitespace"
    if len(value) > MAX_DESCRIPTION_CODE_POINTS:
        return f"is {len(value)} code points; the limit is {MAX_DESCRIPTION_CODE_POINTS}"
    if any(_breaks_line(c) for c in value):
        return "must be one line without control characters"
    if nfc(value) != value:
        return "is not NFC-normalized"
    return None


def validate_description(field: str, value: str) -> str:
    """A given description: NFC, trimmed, then it must obey the rule as it is."""
    description = nfc(value).strip()
    problem = description_problem(description)
    if problem is not None:
        raise InvalidArgumentError(field, problem, reason="DESCRIPTION_INVALID")
    return description


def describe(field: str, given: str | None, text: str) -> str:
    """The description of a new entry version with normalized `text`: the given one
    (validated, `field` is "<entry>.description") or, when none is given, the derived one."""
    if given is not None:
        return validate_description(field, given)
    derived = derive_description(text)
    if not derived:
        raise InvalidArgumentError(
            field,
            "cannot be derived from a text without visible characters; give one",
            reason="DESCRIPTION_INVALID",
        )
    return derived


def tag_problem(tag: str) -> str | None:
    """Why `tag` is not a valid stored tag (already normalized), or None."""
    if not tag or tag != tag.strip():
        return "must not be blank or start or end with whitespace"
    if len(tag) > MAX_TAG_CODE_POINTS:
        return f"is {len(tag)} code points; the limit is {MAX_TAG_CODE_POINTS}"
    if any(_breaks_line(c) for c in tag):
        return "must be one line without control characters"
    if "," in tag:
        return "must not contain ','"
    if nfc(tag) != tag:
        return "is not NFC-normalized"
    return None


def normalize_tags(field: str, tags: Iterable[str]) -> tuple[str, ...]:
    """Given tags (`field` is "<entry>.tags"): each NFC + trimmed and checked (errors name
    "<field>[j]"), then sorted and distinct; at most MAX_TAGS distinct tags."""
    normalized: set[str] = set()
    for j, value in enumerate(tags):
        tag = nfc(value).strip()
        problem = tag_problem(tag)
        if problem is not None:
            raise InvalidArgumentError(f"{field}[{j}]", problem, reason="TAGS_INVALID")
        normalized.add(tag)
        if len(normalized) > MAX_TAGS:
            raise InvalidArgumentError(
                field, f"has more than {MAX_TAGS} distinct tags", reason="TAGS_INVALID"
            )
    return tuple(sorted(normalized))


def tags_problem(tags: tuple[str, ...]) -> str | None:
    """Why stored `tags` break the rule (invalid tag, unsorted, repeated, too many), or None."""
    if len(tags) > MAX_TAGS:
        return f"has {len(tags)} tags; the limit is {MAX_TAGS}"
    for tag in tags:
        problem = tag_problem(tag)
        if problem is not None:
            return f"tag {tag!r} {problem}"
    if list(tags) != sorted(set(tags)):
        return "tags are not sorted and distinct"
    return None


def delimited_tags(tags: Iterable[str]) -> str:
    """The projection's form of a tag set: each tag between delimiters ("" for none), so that
    "has tag t" is the exact substring test tag_needle(t) in it."""
    items = list(tags)
    if not items:
        return ""
    return TAG_DELIMITER + TAG_DELIMITER.join(items) + TAG_DELIMITER


def tag_needle(tag: str) -> str:
    """What a filter for `tag` (exactly as given) looks for in delimited_tags()."""
    return TAG_DELIMITER + tag + TAG_DELIMITER
