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
