"""The secret guard on every backend: a refused write leaves no trace — no table row, no
full-text term, no vector (the real MiniLM model never sees it), no log line, and on SQLite not
a byte in the database file or its WAL.

The same checks first find an ordinary, accepted marker text everywhere, so they can fail.
Secrets are generated per run (`secrets`), never committed.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import secrets
import string
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path

import pytest

from powercontext_memory.api import SearchMode
from powercontext_memory.app import open_service
from powercontext_memory.backends.codec import source_record_hash
from powercontext_memory.domain.errors import InvalidArgumentError, NotFoundError
from powercontext_memory.domain.models import ArtifactRef, EmbeddingProfile
from powercontext_memory.embedding.minilm import MiniLMEmbedder
from powercontext_memory.embedding.port import EmbeddingResult
from powercontext_memory.memory import MemoryService

from .helpers import add, entry_ref, ref, revise
from .tamper import tamper_for

Database = tuple[str, "str | Path"]  # (backend, location) from the `database` fixture
ALPHABET = string.ascii_letters + string.digits


class RecordingModel:
    """The real model, remembering every text it was asked to embed."""

    def __init__(self, real: MiniLMEmbedder) -> None:
        self.real = real
        self.texts: list[str] = []

    @property
    def profile(self) -> EmbeddingProfile:
        return self.real.profile

    async def embed(self, texts: Sequence[str]) -> EmbeddingResult:
        self.texts.extend(texts)
        return await self.real.embed(texts)

    async def close(self) -> None:  # the shared real model outlives each service
        pass


@pytest.fixture
async def guarded(
    database: Database, minilm: MiniLMEmbedder
) -> AsyncIterator[tuple[MemoryService, RecordingModel]]:
    model = RecordingModel(minilm)
    service = await open_service(database[1], embedding=model)
    yield service, model
    await service.close()


def _random(n: int) -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(n))


def _raw_bytes(database: Database) -> bytes:
    """The SQLite database file and its WAL (and shared-memory index), as stored."""
    path = Path(database[1])
    files = [path, Path(f"{path}-wal"), Path(f"{path}-shm")]
    return b"".join(f.read_bytes() for f in files if f.exists())


def _traces(
    database: Database, model: RecordingModel, caplog: pytest.LogCaptureFixture, needle: str
) -> list[str]:
    """Where `needle` (as given or lower-cased, as the analyzer indexes it) is found."""
    found = []
    for variant in {needle, needle.lower()}:
        found += tamper_for(*database).cells_containing(variant)
        if any(variant in text for text in model.texts):
            found.append("embedding model input")
        for record in caplog.records:
            if variant in record.getMessage() or variant in (record.exc_text or ""):
                found.append(f"log line {record.name}")
        if database[0] == "sqlite" and variant.encode() in _raw_bytes(database):
            found.append("database file bytes")
    return sorted(set(found))


async def _fts_hits(service: MemoryService, memory: ArtifactRef, query: str) -> int:
    return len((await service.search(query, [memory], 8, SearchMode.FTS)).hits)


async def test_a_refused_secret_leaves_no_trace(
    database: Database,
    guarded: tuple[MemoryService, RecordingModel],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    service, model = guarded
    marker = "zq" + _random(20).lower()  # accepted: proves each check can find a text
    created = await service.remember(
        None, [], [], [add("Deploys run from tools/ship.sh."), add(f"marker {marker}")]
    )
    memory, entry = ref(created), entry_ref(created, 0)
    seen = _traces(database, model, caplog, marker)
    assert "embedding model input" in seen
    assert any(place.startswith("memory_") for place in seen), seen  # table cells
    assert database[0] != "sqlite" or "database file bytes" in seen
    assert await _fts_hits(service, memory, marker) == 1

    tamper = tamper_for(*database)
    vectors, fulltext = tamper.vector_rows(), tamper.fulltext_rows()
    # No x in the password: "xxx" reads as a template placeholder (u:xxx@h), which passes.
    body, password = _random(36), _random(20).replace("x", "k").replace("X", "K")
    token = "gh" + "p_" + body
    attempts: dict[str, tuple[str, Callable[[], Awaitable[object]]]] = {
        "entries[1].text": (
            "github-token",
            lambda: service.remember(
                memory, [], [], [add("An ordinary fact."), add(f"CI pushes with {token}")]
            ),
        ),
        "entries[0].reason": (
            "github-token",
            lambda: service.remember(
                memory,
                [],
                [],
                [revise(entry, "Deploys run from tools/release.sh.", reason=f"rotated {token}")],
            ),
        ),
        "entries[0].kind": (
            "github-token",
            lambda: service.remember(memory, [], [], [add("An ordinary fact.", kind=token)]),
        ),
        # An agent that wrote the token JSON-escaped: read as any reader of it would.
        "entries[0].description": (
            "github-token",
            lambda: service.remember(
                memory,
                [],
                [],
                [
                    dataclasses.replace(
                        add("An ordinary fact."),
                        description="pushes with "
                        + "".join(f"\\u{ord(c):04x}" for c in token[:4])
                        + token[4:],
                    )
                ],
            ),
        ),
        "reason": ("github-token", lambda: service.forget(memory, [entry], f"leaked {token}")),
        "content": (
            "github-token",
            lambda: service.put_source(
                "file", "repo://ci.env", "text/plain", f"GITHUB_TOKEN={token}\n".encode(), {}
            ),
        ),
        "uri": (
            "connection-string-password",
            lambda: service.put_source(
                "file", f"https://ci:{password}@git.internal/repo.git", "text/plain", b"x", {}
            ),
        ),
        "metadata['note']": (
            "github-token",
            lambda: service.put_source(
                "file", "repo://notes.md", "text/markdown", b"notes", {"note": f"via {token}"}
            ),
        ),
    }
    for field, (rule, call) in attempts.items():
        with pytest.raises(InvalidArgumentError) as refused:
            await call()
        error = refused.value
        assert (error.reason, error.field, error.metadata) == (
            "SECRET_DETECTED",
            field,
            {"field": field, "rule": rule},
        )
        assert body not in str(error) and password not in str(error)

    assert (await service.get_memory(ArtifactRef(memory.artifact_id, 0))).head_revision == (
        memory.revision
    )
    assert (tamper.vector_rows(), tamper.fulltext_rows()) == (vectors, fulltext)
    assert await _fts_hits(service, memory, body) == 0
    assert _traces(database, model, caplog, body) == []
    assert _traces(database, model, caplog, password) == []


async def test_a_source_is_refused_for_what_its_readers_decode(
    database: Database,
    guarded: tuple[MemoryService, RecordingModel],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A task outcome holding a token written as JSON escapes: json.loads (and the task-outcome
    adapter) read the token, so the guard does too, and nothing of it is stored."""
    caplog.set_level(logging.DEBUG)
    service, model = guarded
    body = _random(36)
    token = "gh" + "p_" + body
    escaped = "".join(f"\\u{ord(c):04x}" for c in token)
    content = ('{"report": "CI pushed with ' + escaped + '"}').encode()
    assert json.loads(content)["report"] == f"CI pushed with {token}"
    media_type = "application/vnd.powercontext.task-outcome+json"
    with pytest.raises(InvalidArgumentError) as refused:
        await service.put_source("task_outcome", "", media_type, content, {})
    error = refused.value
    assert (error.reason, error.field, error.metadata) == (
        "SECRET_DETECTED",
        "content",
        {"field": "content", "rule": "github-token"},
    )
    assert "with its escapes decoded" in error.message and body not in error.message
    source_id = "src_" + source_record_hash("task_outcome", "", media_type, content, ())[:32]
    with pytest.raises(NotFoundError):
        await service.get_source(source_id)
    for needle in (body, escaped[40:80]):
        assert _traces(database, model, caplog, needle) == []
