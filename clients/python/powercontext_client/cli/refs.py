"""How the command line spells references: memories, citations and sources.

MEMORY      mem_art_…            the memory's head (read when the command runs)
            mem_art_…@3          exactly revision 3
CITATION    mem_art_…@3/mem_ent_…/mem_ver_…   (what `search` prints for each hit)
SOURCE      src_…                the stored source (its hash is looked up)
            src_…:<sha256>       an exact SourceRef
"""

from __future__ import annotations

import argparse

from powercontext.memory.v1 import types_pb2 as types


def memory(text: str) -> types.ArtifactRef:
    artifact_id, at, revision = text.partition("@")
    if not artifact_id:
        raise argparse.ArgumentTypeError(f"not a memory: {text!r} (MEMORY or MEMORY@REVISION)")
    if not at:
        return types.ArtifactRef(artifact_id=artifact_id, revision=0)
    if not revision.isdigit() or int(revision) < 1:
        raise argparse.ArgumentTypeError(f"not a revision number: {text!r}")
    return types.ArtifactRef(artifact_id=artifact_id, revision=int(revision))


def format_memory(ref: types.ArtifactRef) -> str:
    return f"{ref.artifact_id}@{ref.revision}" if ref.revision else ref.artifact_id


def citation(text: str) -> types.Citation:
    parts = text.split("/")
    if len(parts) != 3 or "@" not in parts[0] or not all(parts):
        raise argparse.ArgumentTypeError(
            f"not a citation: {text!r} (MEMORY@REVISION/ENTRY_ID/VERSION_ID)"
        )
    return types.Citation(memory_ref=memory(parts[0]), entry_id=parts[1], entry_version_id=parts[2])


def format_citation(ref: types.ArtifactRef, entry_id: str, version_id: str) -> str:
    return f"{format_memory(ref)}/{entry_id}/{version_id}"


def source(text: str) -> types.SourceRef:
    """A SourceRef; the hash may be left empty, for the command to look up."""
    source_id, _, content_hash = text.partition(":")
    if not source_id:
        raise argparse.ArgumentTypeError(f"not a source: {text!r} (SOURCE_ID[:SHA256])")
    return types.SourceRef(source_id=source_id, content_hash=content_hash)


def format_source(ref: types.SourceRef) -> str:
    return f"{ref.source_id}:{ref.content_hash}"
