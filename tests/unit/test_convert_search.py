"""transport/convert.py's search response: every field of every hit on the wire."""

from __future__ import annotations

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types
from powercontext_memory.api import Hit, SearchMode, SearchResult
from powercontext_memory.domain.models import ArtifactRef
from powercontext_memory.transport import convert


def _hit(memory: ArtifactRef, n: int, matched_by: tuple[str, ...], tags: tuple[str, ...]) -> Hit:
    return Hit(
        memory_ref=memory,
        entry_id=f"mem_ent_{n:032x}",
        entry_version_id=f"mem_ver_{n:032x}",
        entry_content_hash=f"{n:064x}",
        kind="decision" if n % 2 else "fact",
        text=f"entry {n} 中文",
        score=1.0 / (60 + n),
        matched_by=matched_by,
        description=f"about {n}" if n % 3 else "",
        tags=tags,
    )


def test_search_response_carries_every_field_of_every_hit() -> None:
    a, b = ArtifactRef("mem_art_" + "a" * 32, 3), ArtifactRef("mem_art_" + "b" * 32, 9)
    hits = [
        _hit(a, 1, ("fts",), ()),
        _hit(b, 2, ("fts", "vector"), ("api", "ci")),
        _hit(a, 3, ("vector",), ("é",)),
    ]
    result = SearchResult(hits, SearchMode.HYBRID, fallback_reason="why not")
    expected = pb.SearchResponse(
        hits=[
            types.Hit(
                memory_ref=types.ArtifactRef(
                    artifact_id=h.memory_ref.artifact_id, revision=h.memory_ref.revision
                ),
                entry_id=h.entry_id,
                entry_version_id=h.entry_version_id,
                entry_content_hash=h.entry_content_hash,
                kind=h.kind,
                text=h.text,
                score=h.score,
                matched_by=[
                    {"fts": types.SEARCH_CHANNEL_FTS, "vector": types.SEARCH_CHANNEL_VECTOR}[c]
                    for c in h.matched_by
                ],
                description=h.description,
                tags=h.tags,
            )
            for h in hits
        ],
        mode=types.SEARCH_MODE_HYBRID,
        fallback_reason="why not",
    )
    assert convert.search_response(result) == expected
    assert convert.hit_pb(hits[1]) == expected.hits[1]
