"""The secret guard on extracted candidates (Remember EXTRACT), over real gRPC on every backend.

A model extractor's answer is untrusted: a model may write a secret that no source holds as
stored (it decoded one, or made one up). A planted extractor proposes one ordinary candidate
and one with a generated token in each field a candidate carries (text, kind, reason): the
ordinary one is written, each other one is left out with a warning that names the rule and
never the value, and the token is in no table cell.
"""

from __future__ import annotations

import logging
import secrets
import string
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_memory.app import open_service
from powercontext_memory.candidates import Candidate
from powercontext_memory.candidates.port import Extraction, ExtractionInput
from powercontext_memory.transport.server import start_server

from .tamper import tamper_for

Database = tuple[str, "str | Path"]
ORDINARY = "The CI runs make test on every push."


class PlantedExtractor:
    """Proposes, from the operation's first source, what `plant` lists (kind, text, reason)."""

    name = "planted"

    def __init__(self) -> None:
        self.plant: list[tuple[str, str, str | None]] = []

    async def extract(self, request: ExtractionInput) -> Extraction:
        cited = (request.sources[0].ref,)
        return Extraction(
            [Candidate(None, k, t, cited, self.name, reason=r) for k, t, r in self.plant]
        )


@pytest.fixture
async def planted(
    database: Database,
) -> AsyncIterator[tuple[pb_grpc.MemoryServiceStub, PlantedExtractor]]:
    extractor = PlantedExtractor()
    service = await open_service(database[1], progress_interval=0.2, extractor=extractor)
    running = await start_server(service, "127.0.0.1:0")
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            yield pb_grpc.MemoryServiceStub(channel), extractor
    finally:
        await running.stop(grace=1.0)


async def test_extracted_candidates_holding_a_secret_are_left_out(
    database: Database,
    planted: tuple[pb_grpc.MemoryServiceStub, PlantedExtractor],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    stub, extractor = planted
    body = "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(36))
    token = "gh" + "p_" + body
    extractor.plant = [
        ("fact", ORDINARY, None),
        ("fact", f"CI pushes with {token}", None),
        (token, "Releases are tagged by the CI.", None),
        ("fact", "Deploys need a reviewer.", f"the bot's token {token}"),
    ]
    put = await stub.PutSource(
        pb.PutSourceRequest(kind="user_note", media_type="text/plain", content=b"CI notes")
    )
    note = types.SourceRef(source_id=put.source.source_id, content_hash=put.source.content_hash)
    answer = await stub.Remember(
        pb.RememberRequest(sources=[note], mode=pb.REMEMBER_MODE_EXTRACT, extractors=["planted"])
    )

    assert [(c.kind, c.text) for c in answer.candidates] == [("fact", ORDINARY)]
    assert answer.changed and answer.memory.revision == 1
    head = await stub.GetMemory(pb.GetMemoryRequest(memory=answer.memory))
    assert (head.active_entries, head.inactive_entries) == (1, 0)
    refusals = [
        r.getMessage() for r in caplog.records if "refused a planted candidate" in r.getMessage()
    ]
    assert [m.split(": ", 2)[1] for m in refusals] == ["SECRET_DETECTED"] * 3, refusals
    assert all("rule github-token" in m for m in refusals), refusals
    assert [m.split(": ", 3)[2] for m in refusals] == [
        "candidates[1].text",
        "candidates[1].kind",
        "candidates[1].reason",
    ]
    logged = "\n".join(r.getMessage() + (r.exc_text or "") for r in caplog.records)
    assert body not in logged
    tamper = tamper_for(*database)
    assert tamper.cells_containing(ORDINARY)  # the same check finds what was written
    assert tamper.cells_containing(body) == [] and tamper.cells_containing(body.lower()) == []


async def test_a_secret_only_candidate_writes_nothing(
    database: Database, planted: tuple[pb_grpc.MemoryServiceStub, PlantedExtractor]
) -> None:
    """With every candidate refused, EXTRACT creates no memory at all."""
    stub, extractor = planted
    body = "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(36))
    extractor.plant = [("fact", "CI pushes with gh" + "p_" + body, None)]
    put = await stub.PutSource(pb.PutSourceRequest(kind="user_note", content=b"CI notes"))
    note = types.SourceRef(source_id=put.source.source_id, content_hash=put.source.content_hash)
    answer = await stub.Remember(
        pb.RememberRequest(
            sources=[note], mode=pb.REMEMBER_MODE_EXTRACT, extractors=["planted"], request_id="x1"
        )
    )
    assert not answer.changed and not answer.HasField("memory") and not answer.candidates
    listed = await stub.ListMemories(pb.ListMemoriesRequest())
    assert list(listed.memories) == []
    assert tamper_for(*database).cells_containing(body) == []
