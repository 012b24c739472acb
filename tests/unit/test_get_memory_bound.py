"""The GetMemory bound at a size that matters: ~28,000 entries encode past a default
client's 4 MiB, and the estimate the service compares with its bound never undercounts."""

from __future__ import annotations

from powercontext_memory.api import MemoryView
from powercontext_memory.domain.models import (
    ArtifactRef,
    ChangeOp,
    EntryState,
    Lineage,
    ManifestEntry,
    MemoryChange,
    MemoryContent,
    Revision,
)
from powercontext_memory.listing import GET_MEMORY_MAX_BYTES, estimated_size
from powercontext_memory.transport import convert

DEFAULT_CLIENT_LIMIT = 4 * 1024 * 1024


def _revision(entries: int, changes: int) -> Revision:
    rows = [
        ManifestEntry(f"mem_ent_{i:032x}", f"mem_ver_{i:032x}", f"{i:064x}", EntryState.ACTIVE)
        for i in range(entries)
    ]
    made = [
        MemoryChange(ChangeOp.ADD, f"mem_ent_{i:032x}", None, f"mem_ver_{i:032x}", "imported")
        for i in range(changes)
    ]
    content = MemoryContent(rows, made)
    return Revision(ArtifactRef("mem_art_" + "0" * 32, 9), content, Lineage("remember"), 0)


def test_a_large_manifest_passes_4_mib_and_the_estimate_covers_it() -> None:
    revision = _revision(28_000, 1000)
    whole = convert.get_memory_response(MemoryView(revision, 9)).ByteSize()
    assert whole > DEFAULT_CLIENT_LIMIT
    assert estimated_size(revision) >= whole > GET_MEMORY_MAX_BYTES
    framed = convert.get_memory_response(MemoryView(revision, 9, content_omitted=True))
    assert framed.ByteSize() < 4096 and framed.content_omitted


def test_the_estimate_covers_small_revisions_too() -> None:
    for entries, changes in ((0, 0), (1, 1), (500, 500)):
        revision = _revision(entries, changes)
        encoded = convert.get_memory_response(MemoryView(revision, 9)).ByteSize()
        assert encoded <= estimated_size(revision) < GET_MEMORY_MAX_BYTES
