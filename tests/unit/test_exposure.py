"""When the server checks tokens, and when it refuses to start (security/exposure.py)."""

from __future__ import annotations

import pytest

from powercontext_memory.security.exposure import (
    AuthMode,
    ExposureRefused,
    decide,
    is_loopback,
)

LOOPBACK = ["127.0.0.1:50051", "127.0.0.2:1", "localhost:50051", "[::1]:50051"]
REACHABLE = ["0.0.0.0:50051", "[::]:50051", ":50051", "10.0.0.5:50051", "memory.internal:1"]


@pytest.mark.parametrize("address", LOOPBACK)
def test_loopback_addresses(address: str) -> None:
    assert is_loopback(address)


@pytest.mark.parametrize("address", REACHABLE)
def test_addresses_other_machines_may_reach(address: str) -> None:
    assert not is_loopback(address)


@pytest.mark.parametrize("address", LOOPBACK)
def test_on_loopback_without_tokens_nothing_changes(address: str) -> None:
    assert not decide(AuthMode.AUTO, address, 0, insecure=False).tokens
    assert not decide(AuthMode.NONE, address, 3, insecure=False).tokens


@pytest.mark.parametrize("address", LOOPBACK + REACHABLE)
def test_an_active_token_or_tokens_mode_turns_checking_on(address: str) -> None:
    assert decide(AuthMode.AUTO, address, 1, insecure=False).tokens
    assert decide(AuthMode.AUTO, address, 1, insecure=True).tokens
    assert decide(AuthMode.TOKENS, address, 0, insecure=False).tokens


@pytest.mark.parametrize("address", REACHABLE)
@pytest.mark.parametrize(
    ("mode", "tokens"), [(AuthMode.AUTO, 0), (AuthMode.NONE, 0), (AuthMode.NONE, 2)]
)
def test_elsewhere_no_authentication_needs_insecure(
    address: str, mode: AuthMode, tokens: int
) -> None:
    with pytest.raises(ExposureRefused) as refused:
        decide(mode, address, tokens, insecure=False)
    message = str(refused.value)
    assert f"refusing to serve on {address} without authentication" in message
    assert "powercontext-memory tokens create" in message and "--insecure" in message
    decision = decide(mode, address, tokens, insecure=True)
    assert not decision.tokens and "--insecure" in decision.why
