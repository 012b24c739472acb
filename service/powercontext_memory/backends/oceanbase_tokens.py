"""How Analyzer v1 tokens are written for OceanBase's FULLTEXT `WITH PARSER SPACE`.

The SPACE parser splits on spaces, but it drops tokens shorter than 3 characters ("go", "ui",
"a"), drops stopwords ("the"), and ignores tokens longer than 84. Every token is therefore
re-spelled so that the parser keeps it as it is, on both the indexed side and the query side:

* CJK tokens (`u_4e2d`, `b_4e2d_6587`) already carry a prefix and are short: unchanged;
* a word token becomes `w_<word>` (never a stopword, at least 3 characters);
* a word too long for the parser becomes `h_<first 40 hex digits of its SHA-256>`.

Analyzer words never contain `_`, so the three spellings cannot collide with each other or with
a CJK token. The searchable text itself (for admission and verification) is stored unchanged.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

MAX_TOKEN_BYTES = 84  # the parser's largest max_token_size


def encode_token(token: str) -> str:
    if token.startswith(("u_", "b_")):
        return token
    spelled = "w_" + token
    if len(spelled.encode("utf-8")) <= MAX_TOKEN_BYTES:
        return spelled
    return "h_" + hashlib.sha256(token.encode("utf-8")).hexdigest()[:40]


def encode_text(searchable_text: str) -> str:
    """The fulltext_tokens column for a row's analyzer text."""
    return encode_tokens(searchable_text.split(" ") if searchable_text else [])


def encode_tokens(tokens: Iterable[str]) -> str:
    return " ".join(encode_token(t) for t in tokens)
