"""What a repository's memory holds, read through the Python client: the active entries with
their texts, kinds, the revision that made them and their evidence (Sources)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from powercontext.memory.v1 import types_pb2 as types
from powercontext_client import Client, citation


@dataclass(frozen=True)
class Evidence:
    uri: str
    content: str

    def json(self) -> Any:
        try:
            return json.loads(self.content)
        except ValueError:
            return None


@dataclass(frozen=True)
class Entry:
    entry_id: str
    kind: str
    text: str
    created_in_revision: int
    evidence: tuple[Evidence, ...]


def head_revision(endpoint: str, memory_id: str) -> int:
    with Client(endpoint) as client:
        return int(client.head(memory_id).revision)


def active_entries(endpoint: str, memory_id: str) -> list[Entry]:
    with Client(endpoint) as client:
        head = client.get_memory(memory_id)
        cites = [
            citation(head.memory, e.entry_id, e.entry_version_id)
            for e in head.content.manifest.entries
            if e.state == types.ENTRY_STATE_ACTIVE
        ]
        versions = [e.version for e in client.expand(cites).entries] if cites else []
        entries = []
        for version in versions:
            evidence = []
            for ref in version.source_refs:
                source = client.get_source(ref.source_id)
                content = source.content
                text = content.decode("utf-8", "replace") if isinstance(content, bytes) else content
                evidence.append(Evidence(source.uri, text))
            entries.append(
                Entry(
                    version.entry_id,
                    version.kind,
                    version.text,
                    int(version.created_in_revision),
                    tuple(evidence),
                )
            )
        return entries
