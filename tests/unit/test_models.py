"""Hand-assembled canonical encodings must equal the generic RFC 8785 encoder, byte for byte."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from powercontext_memory.domain.canonical import canonical_json
from powercontext_memory.domain.models import ArtifactRef, EntryContent, SourceRef

ids = st.text(st.characters(codec="ascii"), min_size=1, max_size=20)
texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=60)


@given(
    kind=texts,
    text=texts,
    sources=st.lists(st.builds(SourceRef, ids, ids), max_size=4),
    artifacts=st.lists(st.builds(ArtifactRef, ids, st.integers(0, 2**53 - 1)), max_size=4),
)
def test_entry_content_bytes_equal_generic_encoder(
    kind: str, text: str, sources: list[SourceRef], artifacts: list[ArtifactRef]
) -> None:
    content = EntryContent(kind, text, tuple(sources), tuple(artifacts))
    assert content.canonical_bytes() == canonical_json(content.to_json())


def test_embedding_hash_equals_generic_encoding() -> None:
    from powercontext_memory.domain.canonical import EMBEDDING_CONTENT_PREFIX, prefixed_sha256
    from powercontext_memory.domain.models import EmbeddingProfile

    profile = EmbeddingProfile("minilm-l6-v2-int8", "all-MiniLM-L6-v2-onnx-int8", 384)
    entry_hash = "ab" * 32
    generic = canonical_json({"entry_content_hash": entry_hash, "profile": profile.to_json()})
    assert profile.embedding_content_hash(entry_hash) == prefixed_sha256(
        EMBEDDING_CONTENT_PREFIX, generic
    )
    other = EmbeddingProfile("minilm-l6-v2-int8", "all-MiniLM-L6-v2-onnx-int8", 384, "l2", "none")
    assert other.embedding_content_hash(entry_hash) != profile.embedding_content_hash(entry_hash)
