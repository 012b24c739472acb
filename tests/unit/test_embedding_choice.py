"""`--embedding auto`: the model a database is served with, from its stored profile and content."""

from __future__ import annotations

import pytest

from powercontext_memory.domain.models import EmbeddingProfile
from powercontext_memory.embedding.multilingual import multilingual_profile
from powercontext_memory.embedding_choice import choose

MINILM = EmbeddingProfile("minilm-l6-v2-int8", "all-MiniLM-L6-v2-onnx-int8", 384)
HTTP = EmbeddingProfile("http:nomic:768", "nomic", 768)


def _kind(
    stored: EmbeddingProfile | None,
    has_memories: bool,
    *,
    http_configured: bool = False,
    multilingual_installed: bool = True,
) -> str:
    return choose(
        stored,
        has_memories,
        http_configured=http_configured,
        multilingual_installed=multilingual_installed,
    ).kind


def test_a_new_database_gets_the_multilingual_model() -> None:
    assert _kind(None, has_memories=False) == "multilingual"


def test_an_existing_database_keeps_its_stored_profile() -> None:
    assert _kind(MINILM, has_memories=True) == "minilm"
    assert _kind(multilingual_profile(), has_memories=True) == "multilingual"
    # A profile is fixed even before the first memory: it still decides.
    assert _kind(MINILM, has_memories=False) == "minilm"


def test_a_database_created_full_text_only_stays_full_text_only() -> None:
    choice = choose(None, True, http_configured=False, multilingual_installed=True)
    assert choice.kind == "none" and "migrate-embedding" in choice.why


@pytest.mark.parametrize("configured, kind", [(True, "http"), (False, "none")])
def test_an_http_profile_needs_the_endpoint_options(configured: bool, kind: str) -> None:
    choice = choose(HTTP, True, http_configured=configured, multilingual_installed=True)
    assert choice.kind == kind
    if not configured:
        assert "--embedding-url" in choice.why


def test_without_the_multilingual_extra_a_new_database_is_full_text_only() -> None:
    choice = choose(None, False, http_configured=False, multilingual_installed=False)
    assert choice.kind == "none" and "powercontext-memory[multilingual]" in choice.why
    # The extra only matters for new databases: a stored profile still decides.
    assert _kind(MINILM, True, multilingual_installed=False) == "minilm"


def test_the_local_profile_ids_match_the_models() -> None:
    from powercontext_memory.embedding.minilm import minilm_profile

    assert _kind(minilm_profile(), True) == "minilm"
