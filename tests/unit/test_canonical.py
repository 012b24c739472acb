"""Canonical JSON (RFC 8785) and content hashing, cross-checked against the rfc8785 package."""

from __future__ import annotations

import enum
import hashlib
import json
from typing import Any

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from powercontext_memory.domain.canonical import (
    EMBEDDING_CONTENT_PREFIX,
    ENTRY_CONTENT_PREFIX,
    SOURCE_CONTENT_PREFIX,
    canonical_json,
    nfc,
    prefixed_sha256,
    sha256_hex,
)

MAX_SAFE_INT = 2**53 - 1

# Characters where a naive encoder is most likely to disagree with JCS, mixed into the
# UTF-8-encodable alphabet (every code point except surrogates).
_TRICKY_CHARS = [
    "\x00", "\x08", "\x0c", "\x1f", "\x7f", '"', "\\", "/", "\u2028", "\u2029",
    "é", "\u0301", "中", "\ue000", "\uffff", "\U00010000", "\U0001f600", "\U0010ffff",
]  # fmt: skip
_alphabet = st.one_of(st.characters(codec="utf-8"), st.sampled_from(_TRICKY_CHARS))
_text = st.text(alphabet=_alphabet, max_size=12)
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-MAX_SAFE_INT, max_value=MAX_SAFE_INT),
    _text,
)
_json_values = st.recursive(
    _scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.lists(children, max_size=5).map(tuple),
        st.dictionaries(_text, children, max_size=6),
    ),
    max_leaves=40,
)


def _reference(value: Any) -> bytes:
    """The rfc8785 package's encoding, as the independent reference implementation."""
    return rfc8785.dumps(value)


def _as_plain_json(value: object) -> object:
    """What json.loads gives back: tuples become lists."""
    if isinstance(value, dict):
        return {key: _as_plain_json(child) for key, child in value.items()}
    if isinstance(value, list | tuple):
        return [_as_plain_json(child) for child in value]
    return value


@settings(max_examples=400)
@given(_json_values)
def test_matches_rfc8785(value: object) -> None:
    assert canonical_json(value) == _reference(value)


# A narrow alphabet so that keys often share prefixes and differ exactly where UTF-16 order and
# code-point order disagree (U+E000..U+FFFF against supplementary-plane characters).
_order_keys = st.text(
    alphabet=st.sampled_from(["a", "é", "\ue000", "\uffff", "\U00010000", "\U0001f600"]), max_size=3
)


@settings(max_examples=200)
@given(st.dictionaries(_order_keys, _scalars, min_size=2, max_size=8))
def test_key_order_matches_rfc8785(value: dict[str, object]) -> None:
    assert canonical_json(value) == _reference(value)


@given(_json_values)
def test_round_trips_through_json(value: object) -> None:
    assert json.loads(canonical_json(value)) == _as_plain_json(value)


def test_known_vector() -> None:
    value = {"b": 1, "a": [True, None, "é"]}
    assert canonical_json(value) == '{"a":[true,null,"é"],"b":1}'.encode()


def test_escapes() -> None:
    value = '\x00\x01\x08\t\n\x0b\x0c\r\x1f"\\/\x7f\u2028\u2029é\U0001f600'
    expected = '"\\u0000\\u0001\\b\\t\\n\\u000b\\f\\r\\u001f\\"\\\\/\x7f\u2028\u2029é\U0001f600"'
    assert canonical_json(value) == expected.encode("utf-8")


def test_rfc8785_key_sorting_example() -> None:
    # RFC 8785 section 3.2.3: UTF-16 order puts the emoji (D83D DE00) before U+FB33.
    value = {
        "\u20ac": "Euro Sign",
        "\r": "Carriage Return",
        "\ufb33": "Hebrew Letter Dalet With Dagesh",
        "1": "One",
        "\U0001f600": "Emoji: Grinning Face",
        "\u0080": "Control",
        "\u00f6": "Latin Small Letter O With Diaeresis",
    }
    keys = list(json.loads(canonical_json(value)))
    assert keys == ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\U0001f600", "\ufb33"]


def test_utf16_order_differs_from_code_point_order() -> None:
    value = {"\ue000": 1, "\U0001f600": 2, "nested": [{"\ue000": 3, "\U0001f600": 4}]}
    expected = '{"nested":[{"\U0001f600":4,"\ue000":3}],"\U0001f600":2,"\ue000":1}'
    assert canonical_json(value) == expected.encode("utf-8")
    assert canonical_json(value) == _reference(value)


def test_bool_is_not_int() -> None:
    assert canonical_json([True, False, 1, 0]) == b"[true,false,1,0]"
    assert canonical_json({"a": True}) != canonical_json({"a": 1})


def test_tuples_are_arrays() -> None:
    assert canonical_json(("a", (1, 2))) == canonical_json(["a", [1, 2]]) == b'["a",[1,2]]'


def test_str_and_int_subclasses_encode_as_their_values() -> None:
    class Colour(enum.StrEnum):
        RED = "red"

    class Level(enum.IntEnum):
        HIGH = 3

    assert canonical_json({"c": Colour.RED, "l": Level.HIGH}) == b'{"c":"red","l":3}'


def test_safe_integer_bounds() -> None:
    assert canonical_json([MAX_SAFE_INT, -MAX_SAFE_INT]) == b"[9007199254740991,-9007199254740991]"
    for unsafe in (MAX_SAFE_INT + 1, -MAX_SAFE_INT - 1, 10**30):
        with pytest.raises(ValueError):
            canonical_json({"n": [unsafe]})


@pytest.mark.parametrize(
    "value",
    [
        1.5,
        1.0,
        0.0,
        float("nan"),
        float("inf"),
        float("-inf"),
        [1, 2.5],
        {"a": {"b": [float("nan")]}},
        {"\U0001f600": 1.0},  # also on the UTF-16 re-sort path
    ],
    ids=repr,
)
def test_floats_refused(value: object) -> None:
    with pytest.raises(TypeError, match="float"):
        canonical_json(value)


@pytest.mark.parametrize(
    "value",
    [{1: "a"}, {True: "a"}, {None: "a"}, {1.5: "a"}, {"a": 1, 2: "b"}, [{"ok": {3: 4}}]],
    ids=repr,
)
def test_non_str_keys_refused(value: object) -> None:
    with pytest.raises(TypeError):
        canonical_json(value)


@pytest.mark.parametrize("value", [b"bytes", {1, 2}, object(), [{"a": frozenset()}]], ids=repr)
def test_unsupported_types_refused(value: object) -> None:
    with pytest.raises(TypeError):
        canonical_json(value)


@pytest.mark.parametrize(
    "value",
    ["\ud800", ["ok", "a\udfffb"], {"\udc00": 1}, {"\U0001f600": "\ud83d"}, "\ud83d\ude00"],
    ids=repr,
)
def test_lone_surrogates_refused(value: object) -> None:
    # "\ud83d\ude00" is two separate surrogate code points in a Python str, not one emoji.
    with pytest.raises(ValueError, match="surrogate"):
        canonical_json(value)


def test_circular_reference_refused() -> None:
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(ValueError):
        canonical_json(loop)


def test_sha256_hex() -> None:
    empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert sha256_hex(b"") == empty
    assert sha256_hex(b"abc") == hashlib.sha256(b"abc").hexdigest()


def test_prefixed_sha256() -> None:
    payload = canonical_json({"a": 1})
    hashed = prefixed_sha256(ENTRY_CONTENT_PREFIX, payload)
    assert hashed == sha256_hex(ENTRY_CONTENT_PREFIX + payload)
    assert hashed != sha256_hex(payload)
    assert hashed != prefixed_sha256(SOURCE_CONTENT_PREFIX, payload)
    assert len(hashed) == 64 and hashed == hashed.lower()


def test_prefixes_are_distinct_and_nul_terminated() -> None:
    prefixes = [ENTRY_CONTENT_PREFIX, EMBEDDING_CONTENT_PREFIX, SOURCE_CONTENT_PREFIX]
    assert len(set(prefixes)) == 3
    assert all(prefix.endswith(b"\x00") and prefix.count(b"\x00") == 1 for prefix in prefixes)


def test_nfc() -> None:
    assert nfc("e\u0301") == "é"
    assert nfc("é") == "é"
    assert canonical_json(nfc("e\u0301")) == canonical_json("é")
    # canonical_json itself does not normalize: callers decide what text means.
    assert canonical_json("e\u0301") != canonical_json("é")
