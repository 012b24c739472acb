"""How Analyzer v1 tokens are written for OceanBase's FULLTEXT `WITH PARSER SPACE`.

The SPACE parser splits on spaces, but it drops tokens shorter than 3 characters ("go", "ui",
"a"), drops stopwords ("the"), and ignores tokens longer than 84. Every token is therefore
re-spelled so that the parser keeps it as it is, on both the indexed side and the query side:

* CJK tokens (`u_4e2d`, `b_4e2d_6587`) already carry a prefix and are short: unchanged;
* a word token becomes `w_<word>` (never a stopword, at least 3 characters);
* a word too long for the parser becomes `h_<first 40 hex digits of its SHA-256>`.

Analyzer words never contain `_`, so the three spellings cannot collide with each other or with
a CJK token. The searchable text itself (for admission and verification) is stored unchanged.

Each row's indexed text starts with its memory's token `m_<first 40 hex digits of the SHA-256
of the memory id>`, so a search filters by memory inside the full-text index (boolean mode
`+(m_...) +(terms)`): a column filter would make the engine fetch and sort every matching row of
every memory before its top-k (bench/oceanbase_fts.py measures both). Tokens carry only letters,
digits, marks and `_`, never a boolean-mode operator.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Iterable, Sequence

MAX_TOKEN_BYTES = 84  # the parser's largest max_token_size
MEMORY_TOKEN_PREFIX = "m_"
MAX_PUSHDOWN_GROUPS = 64  # above this many term combinations, match any term and filter later


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


def memory_token(artifact_id: str) -> str:
    return MEMORY_TOKEN_PREFIX + hashlib.sha256(artifact_id.encode("utf-8")).hexdigest()[:40]


def encode_row(artifact_id: str, searchable_text: str) -> str:
    """The fulltext_tokens column of one projection row: its memory's token, then its text's."""
    text = encode_text(searchable_text)
    return memory_token(artifact_id) + (" " + text if text else "")


def boolean_query(
    artifact_ids: Sequence[str], terms: Sequence[str], min_matches: int
) -> tuple[str, bool]:
    """A boolean-mode query for rows of these memories matching the terms, and whether it
    requires `min_matches` distinct terms itself (an OR of ANDs, as on SQLite) when few
    enough combinations spell it; otherwise it matches any term and the caller filters."""
    memories = " ".join(memory_token(a) for a in artifact_ids)
    spelled = list(dict.fromkeys(encode_token(t) for t in terms))
    pushed = 1 < min_matches <= len(spelled) and (
        math.comb(len(spelled), min_matches) <= MAX_PUSHDOWN_GROUPS
    )
    if pushed:
        groups = itertools.combinations(spelled, min_matches)
        text = " ".join("(" + " ".join("+" + t for t in g) + ")" for g in groups)
    else:
        text = " ".join(spelled)
    return f"+({memories}) +({text})", pushed or min_matches <= 1
