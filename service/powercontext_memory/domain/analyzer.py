"""Analyzer v2: the one tokenizer for indexed entry text and for queries.

Both sides go through the same function, so an entry matches a query exactly when they share
tokens, and every backend sees the same tokens. Tokens only ever contain letters, digits and
marks (words) or `u_`/`b_` plus lowercase hex (CJK), so user text never reaches full-text MATCH
syntax as operators, quotes or wildcards.

Text is normalized NFC -> casefold -> NFC (casefold can produce unnormalized sequences). Then:

* a maximal run of CJK characters yields one unigram `u_<hex>` per character followed by one
  bigram `b_<hex>_<hex>` per adjacent pair (CJK has no spaces; bigrams keep word order);
* a maximal run of other letters, digits and combining marks (Unicode categories L*, N*, M*)
  is one word token;
* everything else (punctuation including `_` and `-`, symbols, whitespace) separates tokens.

Then every word of ASCII letters only is reduced to its English stem (Snowball's English
stemmer, PyStemmer): "painted" and "paints" meet "paint", "tests" meets "test", so a question
finds the sentence that answers it in another form of its words. Words with digits or other
letters ("v2", "café"), and CJK tokens, are kept as they are. v1 was the same without stems.

Changing any of this (an upgrade of the stemmer that stems differently included: PyStemmer is
pinned, and tests/unit/test_analyzer.py pins stems) changes what is indexed, so it requires a
new ANALYZER_VERSION; a database indexed by an older one (OLDER_ANALYZERS) is re-indexed
when a server opens it (each backend's schema.py).
"""

from __future__ import annotations

import re
import threading
import unicodedata
from itertools import pairwise
from typing import Final

import Stemmer

ANALYZER_VERSION: Final = "v2"
# Versions a database may have been indexed by: its full text is indexed again when opened.
OLDER_ANALYZERS: Final = ("v1",)
STEMMER_LANGUAGE: Final = "english"

_ASCII_WORDS: Final = re.compile(r"[a-z0-9]+")

# Inclusive code-point ranges treated as CJK: Han, kana and Hangul.
_CJK_RANGES: Final[tuple[tuple[int, int], ...]] = (
    (0x1100, 0x11FF),  # Hangul Jamo
    (0x3040, 0x309F),  # Hiragana
    (0x30A0, 0x30FF),  # Katakana
    (0x3130, 0x318F),  # Hangul Compatibility Jamo
    (0x31F0, 0x31FF),  # Katakana Phonetic Extensions
    (0x3400, 0x4DBF),  # CJK Unified Ideographs Extension A
    (0x4E00, 0x9FFF),  # CJK Unified Ideographs
    (0xAC00, 0xD7AF),  # Hangul Syllables
    (0xF900, 0xFAFF),  # CJK Compatibility Ideographs
    (0x20000, 0x2FA1F),  # Supplementary Ideographic Plane (Extensions B-F, compatibility)
)


class _Stems(threading.local):
    """A stemmer per thread: a PyStemmer object is not safe to share between threads."""

    def __init__(self) -> None:
        self.stemmer = Stemmer.Stemmer(STEMMER_LANGUAGE)


_stems = _Stems()


def analyze(text: str) -> list[str]:
    """All tokens of `text` in order, duplicates kept."""
    if text.isascii():
        # The same tokens without a Python step per character: in ASCII, normalization is a
        # no-op, casefold is lower(), the word characters (L*, N*; no M*) are [a-z0-9] once
        # lowered, and nothing is CJK.
        return _stemmed(_ASCII_WORDS.findall(text.lower()))
    return _stemmed(_analyze_unicode(_normalize(text)))


def _stemmed(tokens: list[str]) -> list[str]:
    """The tokens with every word of ASCII letters replaced by its stem."""
    stem = _stems.stemmer.stemWord
    return [stem(token) if token.isalpha() and token.isascii() else token for token in tokens]


def _analyze_unicode(normalized: str) -> list[str]:
    tokens: list[str] = []
    word: list[str] = []
    cjk_run: list[int] = []
    for char in normalized:
        code_point = ord(char)
        if _is_cjk(code_point):
            _flush_word(word, tokens)
            cjk_run.append(code_point)
        elif _is_word_char(char):
            _flush_cjk(cjk_run, tokens)
            word.append(char)
        else:
            _flush_word(word, tokens)
            _flush_cjk(cjk_run, tokens)
    _flush_word(word, tokens)
    _flush_cjk(cjk_run, tokens)
    return tokens


def searchable_text(text: str) -> str:
    """The space-separated token string stored in full-text indexes."""
    return " ".join(analyze(text))


def query_terms(text: str) -> tuple[str, ...]:
    """Distinct tokens in first-occurrence order, for MATCH expressions and admission."""
    return tuple(dict.fromkeys(analyze(text)))


def _normalize(text: str) -> str:
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", text).casefold())


def _is_cjk(code_point: int) -> bool:
    if code_point < 0x1100:  # fast exit for ASCII, Latin, Cyrillic and other alphabets
        return False
    return any(low <= code_point <= high for low, high in _CJK_RANGES)


def _is_word_char(char: str) -> bool:
    return unicodedata.category(char)[0] in "LNM"


def _flush_word(word: list[str], tokens: list[str]) -> None:
    if word:
        tokens.append("".join(word))
        word.clear()


def _flush_cjk(run: list[int], tokens: list[str]) -> None:
    if not run:
        return
    tokens.extend(f"u_{code_point:04x}" for code_point in run)
    tokens.extend(f"b_{first:04x}_{second:04x}" for first, second in pairwise(run))
    run.clear()
