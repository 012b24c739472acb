"""Kind and tag filters of Search, ListEntries and GetRecallManifest: the one place of their
rules. Values are compared exactly as given (no NFC, no case folding): a decomposed filter
value does not match a composed stored tag. A filter value is checked, never normalized."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .descriptions import TAG_DELIMITER
from .errors import InvalidArgumentError

MAX_FILTER_VALUES = 32
MAX_KIND_FILTER_CHARS = 128
MAX_TAG_FILTER_CHARS = 64
FILTER_INVALID = "FILTER_INVALID"


def _check(field: str, values: Sequence[str], max_chars: int) -> tuple[str, ...]:
    if len(values) > MAX_FILTER_VALUES:
        raise InvalidArgumentError(
            field, f"at most {MAX_FILTER_VALUES} values", reason=FILTER_INVALID
        )
    for i, value in enumerate(values):
        if not 1 <= len(value) <= max_chars:
            raise InvalidArgumentError(
                f"{field}[{i}]", f"must be 1 to {max_chars} characters", reason=FILTER_INVALID
            )
        # The delimiter of the stored tag form: a value holding it could match across tags.
        if TAG_DELIMITER in value:
            raise InvalidArgumentError(
                f"{field}[{i}]", "must not contain U+001F", reason=FILTER_INVALID
            )
    return tuple(values)


def check_kinds(field: str, kinds: Sequence[str]) -> tuple[str, ...]:
    return _check(field, kinds, MAX_KIND_FILTER_CHARS)


def check_tags(field: str, tags: Sequence[str]) -> tuple[str, ...]:
    return _check(field, tags, MAX_TAG_FILTER_CHARS)


def matches(
    kind: str,
    tags: Iterable[str],
    kinds: Sequence[str],
    wanted_tags: Sequence[str],
    *,
    match_all: bool,
) -> bool:
    """Whether a version of this kind and these tags passes the filter (empty: no condition)."""
    if kinds and kind not in kinds:
        return False
    if not wanted_tags:
        return True
    have = set(tags)
    found = (t in have for t in wanted_tags)
    return all(found) if match_all else any(found)
