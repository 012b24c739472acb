"""security/signing.py: the token format, what verify refuses and with which reason."""

from __future__ import annotations

import base64
import json

import pytest

from powercontext_memory.domain.errors import InvalidArgumentError
from powercontext_memory.security.signing import (
    MAX_TOKEN_CHARS,
    PAGE,
    PREVIEW,
    TokenSigner,
    next_key_id,
)

KEY = b"k" * 32


def _signer(*ids: str) -> TokenSigner:
    return TokenSigner({key_id: KEY + key_id.encode() for key_id in ids})


def _reason(signer: TokenSigner, purpose: str, token: str) -> str:
    with pytest.raises(InvalidArgumentError) as error:
        signer.verify(purpose, token, "the_field")
    assert error.value.field == "the_field"
    return error.value.reason


def test_round_trip_and_format() -> None:
    signer = _signer("k000001")
    token = signer.sign(PAGE, {"after": "mem_ent_1", "rev": 3})
    fmt, payload, mac = token.split(".")
    assert fmt == "pc2" and len(base64.urlsafe_b64decode(mac + "=")) == 32
    body = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    assert body == {"after": "mem_ent_1", "rev": 3, "purpose": "page", "kid": "k000001"}
    assert signer.verify(PAGE, token, "page_token") == body


def test_the_newest_key_signs_every_kept_key_verifies() -> None:
    old = _signer("k000009").sign(PAGE, {"n": 1})
    both = _signer("k000009", "k000010")
    assert both.signing_key_id == "k000010", "numeric order, not text order of the digits"
    assert both.verify(PAGE, old, "page_token")["n"] == 1
    assert _reason(_signer("k000010"), PAGE, old) == "PAGE_TOKEN_INVALID"
    assert next_key_id({"k000009": "", "k000010": ""}) == "k000011"


def test_refusals() -> None:
    signer = _signer("k000001")
    token = signer.sign(PAGE, {"n": 1})
    fmt, payload, mac = token.split(".")
    forged = base64.urlsafe_b64encode(b'{"kid":"k000001","n":2,"purpose":"page"}').decode()
    for bad in (
        "",
        "garbage",
        f"{fmt}.{forged.rstrip('=')}.{mac}",  # another payload under the same MAC
        f"{fmt}.{payload}.{mac[:-2]}AA",
        f"{fmt}.{payload}.{mac}.x",
        f"{fmt}.!!.{mac}",
        f"{fmt}.{payload}",
        token + "A" * MAX_TOKEN_CHARS,
    ):
        assert _reason(signer, PAGE, bad) == "PAGE_TOKEN_INVALID", bad
    assert _reason(signer, PREVIEW, token) == "PREVIEW_TOKEN_INVALID", "purpose is bound"
    assert _reason(signer, PAGE, f"pc1.{payload}.{mac}") == "PAGE_TOKEN_FORMAT_RETIRED"
    assert _reason(signer, PREVIEW, f"pc1.{payload}.{mac}") == "PREVIEW_TOKEN_INVALID"


def test_sign_refuses_an_unknown_purpose() -> None:
    with pytest.raises(ValueError):
        _signer("k000001").sign("other", {})
