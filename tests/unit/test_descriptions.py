"""The description and tag rules (domain/descriptions.py) and how content carries them."""

from __future__ import annotations

import unicodedata

import pytest

from powercontext_memory.domain import descriptions, validation
from powercontext_memory.domain.errors import InvalidArgumentError
from powercontext_memory.domain.models import EntryContent


def _refused(call: object, *args: object) -> InvalidArgumentError:
    assert callable(call)
    with pytest.raises(InvalidArgumentError) as caught:
        call(*args)
    return caught.value


# -- derived descriptions ------------------------------------------------------------------------


def test_derived_collapses_whitespace_runs_and_line_breaks() -> None:
    text = "Run  make test\n\tbefore\u2028every   push\r\nplease"
    assert descriptions.derive_description(text) == "Run make test before every push please"


def test_derived_treats_other_control_characters_as_whitespace() -> None:
    assert descriptions.derive_description("bell\x07here\x85and\u2029there") == (
        "bell here and there"
    )


def test_derived_keeps_a_text_of_exactly_200_code_points() -> None:
    text = "é" * 200
    assert descriptions.derive_description(text) == text


def test_derived_cuts_a_longer_text_to_199_plus_ellipsis() -> None:
    text = "字" * 150 + " " + "x" * 100  # 251 code points
    derived = descriptions.derive_description(text)
    assert len(derived) == 200
    assert derived == text[:199] + "…"


def test_derived_cut_counts_code_points_after_collapsing() -> None:
    text = "a" + " " * 500 + "b"
    assert descriptions.derive_description(text) == "a b"


def test_describe_without_a_given_description_derives_it() -> None:
    assert descriptions.describe("entries[0].description", None, "one\ntwo") == "one two"


def test_describe_refuses_to_derive_from_a_text_without_visible_characters() -> None:
    error = _refused(descriptions.describe, "entries[3].description", None, "\x00\x07")
    assert error.field == "entries[3].description"
    assert error.reason == "DESCRIPTION_INVALID"


# -- given descriptions ---------------------------------------------------------------------------


def test_given_description_is_nfc_normalized_and_trimmed() -> None:
    decomposed = unicodedata.normalize("NFD", "  Café rules  ")
    assert descriptions.describe("d", decomposed, "text") == "Café rules"


def test_given_description_of_200_code_points_is_kept() -> None:
    assert descriptions.validate_description("d", "x" * 200) == "x" * 200


@pytest.mark.parametrize(
    "given",
    [
        "first line\nsecond line",
        "carriage\rreturn",
        "line\u2028separator",
        "next\x85line",
        "tab\there",
        "",
        "   ",
        "x" * 201,
    ],
)
def test_given_description_breaking_the_rule_is_invalid_argument(given: str) -> None:
    error = _refused(descriptions.describe, "entries[1].description", given, "text")
    assert error.field == "entries[1].description"
    assert error.reason == "DESCRIPTION_INVALID"


# -- tags -----------------------------------------------------------------------------------------


def test_tags_are_normalized_sorted_and_distinct() -> None:
    decomposed = unicodedata.normalize("NFD", "café")
    got = descriptions.normalize_tags("entries[0].tags", [" beta ", "alpha", decomposed, "beta"])
    assert got == ("alpha", "beta", "café")


def test_tags_keep_case_and_32_distinct_are_allowed() -> None:
    tags = [f"t{i:02d}" for i in range(32)] + ["T00", "t00"]
    with pytest.raises(InvalidArgumentError):
        descriptions.normalize_tags("entries[0].tags", tags)  # 33 distinct: T00 differs
    assert len(descriptions.normalize_tags("entries[0].tags", tags[:32] + ["t00"])) == 32


def test_more_than_32_distinct_tags_names_the_list() -> None:
    error = _refused(descriptions.normalize_tags, "entries[2].tags", [f"t{i}" for i in range(33)])
    assert error.field == "entries[2].tags"
    assert error.reason == "TAGS_INVALID"


@pytest.mark.parametrize(
    "bad",
    ["", "  ", "a,b", "two\nlines", "unit\x1fsep", "x" * 65, "para\u2029graph"],
)
def test_an_invalid_tag_names_its_index(bad: str) -> None:
    error = _refused(descriptions.normalize_tags, "entries[0].tags", ["ok", bad])
    assert error.field == "entries[0].tags[1]"
    assert error.reason == "TAGS_INVALID"


def test_a_tag_of_64_code_points_is_allowed() -> None:
    assert descriptions.normalize_tags("t", ["語" * 64]) == ("語" * 64,)


def test_stored_tag_checks_catch_unsorted_repeated_and_invalid() -> None:
    assert descriptions.tags_problem(("a", "b")) is None
    assert descriptions.tags_problem(("b", "a")) is not None
    assert descriptions.tags_problem(("a", "a")) is not None
    assert descriptions.tags_problem(("a,b",)) is not None
    assert descriptions.tags_problem(tuple(f"t{i:02d}" for i in range(33))) is not None


def test_stored_description_checks() -> None:
    assert descriptions.description_problem("fine") is None
    assert descriptions.description_problem(" padded") is not None
    assert descriptions.description_problem("two\nlines") is not None
    assert descriptions.description_problem(unicodedata.normalize("NFD", "é")) is not None
    assert descriptions.description_problem("x" * 201) is not None


def test_delimited_tags_make_a_filter_an_exact_substring_test() -> None:
    stored = descriptions.delimited_tags(("ab", "café"))
    assert stored == "\x1fab\x1fcafé\x1f"
    assert descriptions.tag_needle("ab") in stored
    assert descriptions.tag_needle("a") not in stored
    assert descriptions.tag_needle(unicodedata.normalize("NFD", "café")) not in stored
    assert descriptions.delimited_tags(()) == ""


# -- content built from input ----------------------------------------------------------------------


def test_entry_content_from_input_is_described_and_hashes_v2() -> None:
    content = validation.entry_content(
        "entries[0]",
        kind="fact",
        text="  The build\n uses  make  ",
        sources=(),
        artifacts=(),
        description=None,
        tags=("b", "a"),
    )
    assert content.text == "The build\n uses  make"
    assert content.description == "The build uses make"
    assert content.tags == ("a", "b")
    assert content.hash_version == 2


def test_entry_content_errors_name_the_entry_field() -> None:
    error = _refused(
        lambda: validation.entry_content(
            "entries[4]",
            kind="fact",
            text="text",
            sources=(),
            artifacts=(),
            description="a\nb",
            tags=(),
        )
    )
    assert error.field == "entries[4].description"
    error = _refused(
        lambda: validation.entry_content(
            "entries[4]",
            kind="fact",
            text="text",
            sources=(),
            artifacts=(),
            description=None,
            tags=("ok", "x" * 65),
        )
    )
    assert error.field == "entries[4].tags[1]"


def test_v1_content_hashes_as_before_and_v2_differs() -> None:
    v1 = EntryContent("fact", "text")
    assert v1.canonical_bytes() == (
        b'{"artifact_refs":[],"kind":"fact","source_refs":[],"text":"text"}'
    )
    v2 = EntryContent("fact", "text", description="text")
    assert v2.content_hash() != v1.content_hash()
    assert EntryContent("fact", "text", description="text", tags=("a",)).content_hash() != (
        v2.content_hash()
    )
