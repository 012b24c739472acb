"""Entries and evidence from the command line: text arguments, files, JSON Lines."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from google.protobuf import json_format

from powercontext.memory.v1 import types_pb2 as types

from ..aio import AsyncClient
from ..requests import new_entry


def read_text(path: str) -> str:
    """A file's text, or stdin's for "-"."""
    return sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")


def read_bytes(path: str) -> bytes:
    return sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()


def jsonl_entries(path: str) -> list[types.EntryInput]:
    """One EntryInput per non-empty line, in proto3 JSON (field names as in the .proto or
    lowerCamel): {"kind": "fact", "text": "...", "sources": [{"source_id": "src_..."}]}."""
    entries = []
    for number, line in enumerate(read_text(path).splitlines(), 1):
        if not line.strip():
            continue
        try:
            entries.append(json_format.Parse(line, types.EntryInput()))
        except json_format.ParseError as error:
            raise ValueError(f"{path}:{number}: not an EntryInput: {error}") from None
    return entries


def entries_from(
    kind: str,
    texts: Sequence[str],
    files: Sequence[str],
    jsonl: str | None,
    cited: Sequence[types.SourceRef],
    artifacts: Sequence[types.ArtifactRef],
    reason: str | None,
    *,
    description: str | None = None,
    tags: Sequence[str] = (),
) -> list[types.EntryInput]:
    """Text arguments and files become new entries of `kind` citing the given evidence, each
    with `description` (None: derived from its text) and `tags`; JSON Lines entries are taken
    as written."""
    texts = [*texts, *(read_text(path) for path in files)]
    made = [
        new_entry(
            kind,
            text,
            sources=cited,
            artifacts=artifacts,
            reason=reason,
            description=description,
            tags=tags,
        )
        for text in texts
    ]
    return made + (jsonl_entries(jsonl) if jsonl else [])


async def complete_sources(client: AsyncClient, refs: Iterable[types.SourceRef]) -> None:
    """Fill in the content hash of refs given by id only (the server re-checks every hash)."""
    missing = {ref.source_id for ref in refs if not ref.content_hash}
    # One byte of content is enough: content_hash describes the whole source.
    hashes = {
        source_id: (await client.get_source_chunk(source_id, content_limit=1)).source.content_hash
        for source_id in missing
    }
    for ref in refs:
        if not ref.content_hash:
            ref.content_hash = hashes[ref.source_id]
