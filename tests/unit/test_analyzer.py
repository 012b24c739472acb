"""Analyzer v2: normalization, word and CJK tokens, English stems, and query-term admission
counts."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from powercontext_memory.domain import analyzer
from powercontext_memory.domain.analyzer import (
    ANALYZER_VERSION,
    analyze,
    query_terms,
    searchable_text,
)

CONVENTIONS_DOC = (
    "验证约定：常规代码变更运行 make test；"
    "仅文档变更优先运行 make docs-test；评审前运行 make check。"
)
TOOLING_DOC = "powercontext 使用 uv 管理依赖并使用 Hatchling 构建。"
CONVENTIONS_QUERY = "修改文档前需要知道哪些构建和验证约定？"


def _shared_terms(query: str, document: str) -> int:
    tokens = set(analyze(document))
    return sum(1 for term in query_terms(query) if term in tokens)


def test_version() -> None:
    assert ANALYZER_VERSION == "v2"


def test_cjk_unigrams_then_bigrams() -> None:
    assert analyze("中文") == ["u_4e2d", "u_6587", "b_4e2d_6587"]


def test_single_cjk_char_gives_only_unigram() -> None:
    assert analyze("中") == ["u_4e2d"]
    assert analyze("a 中 b") == ["a", "u_4e2d", "b"]


def test_three_cjk_chars() -> None:
    assert analyze("构建器") == ["u_6784", "u_5efa", "u_5668", "b_6784_5efa", "b_5efa_5668"]


def test_mixed_chinese_and_latin() -> None:
    tokens = analyze("验证约定：常规代码变更运行 make test；")
    assert tokens[:7] == [
        "u_9a8c", "u_8bc1", "u_7ea6", "u_5b9a", "b_9a8c_8bc1", "b_8bc1_7ea6", "b_7ea6_5b9a",
    ]  # fmt: skip
    assert tokens[-2:] == ["make", "test"]
    assert "b_8fd0_884c" in tokens  # 运行
    assert "b_5b9a_5e38" not in tokens  # the full-width colon splits 约定 from 常规
    assert all(token.isalnum() or token.startswith(("u_", "b_")) for token in tokens)
    assert not any(mark in "".join(tokens) for mark in "：；")


def test_latin_directly_adjacent_to_cjk_splits() -> None:
    assert analyze("make中文test") == ["make", "u_4e2d", "u_6587", "b_4e2d_6587", "test"]


def test_casefold() -> None:
    assert analyze("Straße") == analyze("STRASSE") == ["strass"]  # casefold, then the stem
    assert analyze("HELLO World") == ["hello", "world"]
    assert analyze("ΣΊΣΥΦΟΣ") == analyze("σίσυφος")


def test_nfc() -> None:
    assert analyze("e\u0301") == analyze("é") == ["é"]
    assert analyze("Cafe\u0301") == ["café"]


def test_underscore_and_hyphen_split() -> None:
    assert analyze("docs-test") == ["doc", "test"]
    assert analyze("snake_case") == ["snake", "case"]
    assert analyze("a.b/c:d'e\"f*g(h)") == ["a", "b", "c", "d", "e", "f", "g", "h"]


def test_digits_kept() -> None:
    assert analyze("python3.11 port 8080") == ["python3", "11", "port", "8080"]
    assert analyze("٣٤") == ["٣٤"]  # Arabic-Indic digits are category Nd


def test_kana_and_hangul_are_cjk() -> None:
    assert analyze("ひら") == ["u_3072", "u_3089", "b_3072_3089"]
    assert analyze("カナ") == ["u_30ab", "u_30ca", "b_30ab_30ca"]
    assert analyze("한국") == ["u_d55c", "u_ad6d", "b_d55c_ad6d"]
    # Han, kana and Hangul next to each other form one run.
    assert analyze("日本ご") == ["u_65e5", "u_672c", "u_3054", "b_65e5_672c", "b_672c_3054"]


def test_non_bmp_han() -> None:
    assert analyze("\U00020000") == ["u_20000"]
    assert analyze("中\U00020000") == ["u_4e2d", "u_20000", "b_4e2d_20000"]


_NO_TOKEN_TEXTS = ["", "   ", "\t\n", "，。？；：", "!@#$%^&*()_+-=[]{}|;':\",./<>?`~"]


@pytest.mark.parametrize("text", _NO_TOKEN_TEXTS)
def test_no_tokens(text: str) -> None:
    assert analyze(text) == []
    assert searchable_text(text) == ""
    assert query_terms(text) == ()


def test_searchable_text() -> None:
    assert searchable_text("Run make-test, 中文!") == "run make test u_4e2d u_6587 b_4e2d_6587"


def test_query_terms_dedupe_in_first_occurrence_order() -> None:
    assert query_terms("b a B c a") == ("b", "a", "c")
    assert query_terms("中文中文") == (
        "u_4e2d", "u_6587", "b_4e2d_6587", "b_6587_4e2d",
    )  # fmt: skip


def test_chinese_query_admission_counts() -> None:
    assert len(query_terms(CONVENTIONS_QUERY)) == 35
    relevant = _shared_terms(CONVENTIONS_QUERY, CONVENTIONS_DOC)
    unrelated = _shared_terms(CONVENTIONS_QUERY, TOOLING_DOC)
    # 文 档 前 验 证 约 定 + 文档 验证 证约 约定
    assert relevant == 11
    # 构 建 + 构建
    assert unrelated == 3
    assert relevant >= 9 > unrelated


@given(st.text())
def test_tokens_are_safe_for_match_syntax(text: str) -> None:
    for token in analyze(text):
        if token.startswith(("u_", "b_")):
            hex_parts = token.split("_")[1:]
            assert len(hex_parts) == (1 if token[0] == "u" else 2)
            assert all(part == f"{int(part, 16):04x}" for part in hex_parts)
        else:
            # Words hold only letters, digits and marks: no operators, quotes, `_` or spaces.
            assert token
            assert all(unicodedata.category(char)[0] in "LNM" for char in token)


@given(st.text())
def test_analysis_is_idempotent_on_words(text: str) -> None:
    # Re-analyzing a word token gives one token; the same one unless it is a stem (a stem's
    # stem may be shorter: "ueding" -> "ued" -> "u"; nothing re-analyzes stored tokens).
    for token in analyze(text):
        if not token.startswith(("u_", "b_")):
            again = analyze(token)
            assert len(again) == 1
            if not (token.isascii() and token.isalpha()):
                assert again == [token]


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=60))
def test_ascii_text_takes_the_fast_path_to_the_same_tokens(text: str) -> None:
    # analyze() answers ASCII text with one regex; the per-character path must agree on
    # every ASCII character (letters of both cases, digits, _, -, punctuation, controls).
    assert analyze(text) == analyzer._stemmed(analyzer._analyze_unicode(analyzer._normalize(text)))


def test_ascii_fast_path_splits_on_underscores_and_lowers() -> None:
    assert analyze("Make_TEST-2x, docs!") == ["make", "test", "2x", "doc"]


# Snowball English stems as PyStemmer 3.1.0 gives them: a stemmer release that changes one of
# these changes what is indexed, and needs a new ANALYZER_VERSION.
PINNED_STEMS = {
    "painted": "paint",
    "paints": "paint",
    "painting": "paint",
    "running": "run",
    "tests": "test",
    "configs": "config",
    "deployment": "deploy",
    "deploys": "deploy",
    "cached": "cach",
    "caching": "cach",
    "university": "universiti",
    "universe": "univers",
    "went": "went",
    "generously": "generous",
    "skies": "sky",
    "ueding": "ued",
}


def test_english_words_are_stemmed_as_pinned() -> None:
    words = list(PINNED_STEMS)
    assert analyze(" ".join(words)) == [PINNED_STEMS[w] for w in words]


def test_only_ascii_letter_words_are_stemmed() -> None:
    assert analyze("v2 python3 8080 café naïve") == ["v2", "python3", "8080", "café", "naïve"]
    # A text with any non-ASCII character takes the per-character path: its English words
    # get the same stems as in an ASCII text.
    assert analyze("Inês painted lakes") == ["inês", "paint", "lake"]
    assert analyze("运行 tests") == ["u_8fd0", "u_884c", "b_8fd0_884c", "test"]


def test_a_question_meets_its_answer_in_another_form_of_its_words() -> None:
    shared = set(query_terms("Who paints the lakes?")) & set(analyze("Maria painted a lake."))
    assert shared == {"paint", "lake"}


def test_stems_are_the_same_in_every_thread() -> None:
    from concurrent.futures import ThreadPoolExecutor

    text = " ".join(PINNED_STEMS) * 20
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(analyze, [text] * 64))
    assert all(r == results[0] for r in results)
