"""How analyzer tokens are spelled for the SPACE parser, and OceanBase DSNs."""

from __future__ import annotations

import pytest

from powercontext_memory.backends.oceanbase.fts_tokens import (
    MAX_TOKEN_BYTES,
    boolean_query,
    encode_row,
    encode_text,
    encode_token,
    memory_token,
)
from powercontext_memory.backends.oceanbase.probe import MIN_VERSION, parse_version
from powercontext_memory.backends.oceanbase.wire import OceanBaseDsn, vector_bytes, vector_literal
from powercontext_memory.domain.analyzer import searchable_text


def test_short_words_and_stopwords_get_a_prefix_the_parser_keeps() -> None:
    assert encode_text(searchable_text("Go to the UI, a DB")) == "w_go w_to w_the w_ui w_a w_db"


def test_cjk_tokens_are_already_safe() -> None:
    assert encode_text(searchable_text("中文")) == "u_4e2d u_6587 b_4e2d_6587"


def test_words_too_long_for_the_parser_are_hashed_within_its_limit() -> None:
    long = "x" * 200
    spelled = encode_token(long)
    assert spelled.startswith("h_") and len(spelled) <= MAX_TOKEN_BYTES
    assert spelled == encode_token(long) != encode_token("y" * 200)
    # The limit is in bytes: "w_" plus 41 two-byte letters is exactly 84.
    assert encode_token("é" * 41).startswith("w_")  # 2 + 82 bytes
    assert encode_token("é" * 42).startswith("h_")


def test_spellings_never_collide() -> None:
    tokens = ["go", "u_4e2d", "b_4e2d_6587", "x" * 100, "w", "h"]
    spelled = [encode_token(t) for t in tokens]
    assert len(set(spelled)) == len(spelled)
    assert encode_text("") == ""


def test_dsn_parsing() -> None:
    dsn = OceanBaseDsn.parse("oceanbase://app%40tenant:s3cret@db.example:2883/memory")
    assert (dsn.user, dsn.password, dsn.host, dsn.port, dsn.database) == (
        "app@tenant",
        "s3cret",
        "db.example",
        2883,
        "memory",
    )
    assert dsn.display == "oceanbase://app@tenant@db.example:2883/memory"  # no password
    assert OceanBaseDsn.parse(dsn.url) == dsn
    assert OceanBaseDsn.parse(dsn.with_database("other").url).database == "other"
    assert OceanBaseDsn.parse("mysql://root@127.0.0.1/test", password="pw").password == "pw"
    assert OceanBaseDsn.parse("oceanbase://root@h/test").port == 2881
    for bad in ["sqlite:///x", "oceanbase://root@host:1", "oceanbase:///test"]:
        with pytest.raises(ValueError):
            OceanBaseDsn.parse(bad)


def test_vector_literals_round_trip_float32_exactly() -> None:
    import numpy as np

    vector = np.array([0.1234567891, -1 / 3, 1e-8, 0.5], dtype="<f4")
    assert vector_bytes(vector_literal(vector.tobytes())) == vector.tobytes()
    assert vector_bytes(None) is None


def test_version_floor() -> None:
    assert parse_version("4.3.5.3") >= MIN_VERSION
    assert parse_version("4.3.5.2") < MIN_VERSION
    assert parse_version("4.4.0.0") > MIN_VERSION
    assert parse_version("4.3.5.3-bp1") >= MIN_VERSION


def test_manifest_pieces_cut_between_characters() -> None:
    from powercontext_memory.backends.oceanbase.wire import split_utf8

    data = ("ab中文é" * 1000).encode("utf-8")
    pieces = split_utf8(data, 7)
    assert b"".join(pieces) == data
    assert all(0 < len(p) <= 7 for p in pieces)
    for piece in pieces:
        piece.decode("utf-8")  # every piece is whole characters
    assert split_utf8(b"short", 7) == [b"short"]


def test_each_row_is_indexed_under_its_memory_token_first() -> None:
    token = memory_token("mem_art_1")
    assert token.startswith("m_") and len(token) == 42 and token != memory_token("mem_art_2")
    assert encode_row("mem_art_1", searchable_text("Go 中")) == f"{token} w_go u_4e2d"
    assert encode_row("mem_art_1", "") == token


def test_the_boolean_query_requires_a_memory_and_pushes_down_k_of_n_terms() -> None:
    a, b = memory_token("a"), memory_token("b")
    assert boolean_query(["a", "b"], ["go", "ui"], 1) == (f"+({a} {b}) +(w_go w_ui)", True)
    query, exact = boolean_query(["a"], ["go", "ui", "db"], 2)
    assert exact
    assert query == f"+({a}) +((+w_go +w_ui) (+w_go +w_db) (+w_ui +w_db))"
    # Too many combinations to spell: any term matches and the caller filters.
    many = [f"t{i}" for i in range(20)]
    query, exact = boolean_query(["a"], many, 5)
    assert not exact and query == f"+({a}) +(" + " ".join(f"w_{t}" for t in many) + ")"
