"""Sources follow their memories' allow-lists, on every backend.

A caller limited to some memories (a token's memory list, here set with `acting_as` as the
transport does) reads, and cites as evidence, only the sources those memories cite or had
recorded for them; every other source answers exactly as a source that does not exist. The
refusals are compared with a nonexistent id's, field for field, so no answer tells them apart.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from powercontext_memory.api import RememberMode
from powercontext_memory.domain.errors import (
    InvalidArgumentError,
    MemoryServiceError,
    NotFoundError,
)
from powercontext_memory.domain.models import ArtifactRef, Source, SourceRef
from powercontext_memory.memory import MemoryService
from powercontext_memory.security.caller import Caller, acting_as
from powercontext_memory.verifier import verify

from .conftest import Harness
from .helpers import add, entry_ref, ref

MISSING = "src_" + "0" * 32


async def _put(
    service: MemoryService, text: str, memory_id: str | None = None, kind: str = "user_note"
) -> tuple[Source, bool]:
    return await service.put_source(kind, "", "text/plain", text.encode(), {}, memory_id)


class World:
    """Memory A cites `a_lineage` (operation evidence only) and `a_entry` (also an entry's
    evidence: entry evidence is always part of the operation's); memory B cites `b_entry` and
    `b_lineage` alike; `loose` belongs to no memory."""

    def __init__(self, service: MemoryService) -> None:
        self.service = service

    async def build(self) -> World:
        s = self.service
        self.a_lineage = (await _put(s, "A's task outcome"))[0].ref
        self.a_entry = (await _put(s, "A's user note"))[0].ref
        self.b_lineage = (await _put(s, "B's task outcome"))[0].ref
        self.b_entry = (await _put(s, "B's user note"))[0].ref
        self.loose = (await _put(s, "nobody's note"))[0].ref
        self.a = ref(
            await s.remember(
                None,
                [self.a_lineage, self.a_entry],
                [],
                [add("A builds with make.", sources=(self.a_entry,))],
            )
        )
        self.b = ref(
            await s.remember(
                None,
                [self.b_lineage, self.b_entry],
                [],
                [add("B builds with just.", sources=(self.b_entry,))],
            )
        )
        return self

    def head(self, memory: ArtifactRef) -> Awaitable[ArtifactRef]:
        async def read() -> ArtifactRef:
            view = await self.service.get_memory(ArtifactRef(memory.artifact_id, 0))
            return view.revision.ref

        return read()


def limited(*memories: ArtifactRef) -> Caller:
    return Caller("tok_limited", "limited", tuple(sorted(m.artifact_id for m in memories)))


async def _refusal(call: Callable[[], Awaitable[object]]) -> MemoryServiceError:
    with pytest.raises(MemoryServiceError) as refused:
        await call()
    return refused.value


def _shape(error: MemoryServiceError, source_id: str) -> tuple[object, ...]:
    """The refusal with the id made neutral: what a caller can compare between two ids."""
    message = str(error).replace(source_id, "<id>")
    metadata = tuple(sorted((k, v.replace(source_id, "<id>")) for k, v in error.metadata.items()))
    return type(error), error.reason, message, metadata, getattr(error, "field", None)


async def test_a_limited_caller_reads_only_the_sources_of_its_memories(
    service: MemoryService,
) -> None:
    w = await World(service).build()
    with acting_as(limited(w.a)):
        for own in (w.a_lineage, w.a_entry):
            assert (await service.get_source(own.source_id)).ref == own
        missing = _shape(await _refusal(lambda: service.get_source(MISSING)), MISSING)
        assert missing[:2] == (NotFoundError, "SOURCE_NOT_FOUND")
        for other in (w.b_lineage, w.b_entry, w.loose):
            error = await _refusal(lambda o=other: service.get_source(o.source_id))  # type: ignore[misc]
            assert _shape(error, other.source_id) == missing
    with acting_as(limited(w.a, w.b)):
        for source in (w.a_entry, w.b_lineage, w.b_entry):
            assert (await service.get_source(source.source_id)).ref == source
        assert (await _refusal(lambda: service.get_source(w.loose.source_id))).reason == (
            "SOURCE_NOT_FOUND"
        )
    # Without a memory list (an unrestricted token, or auth off) every source is readable.
    for source in (w.a_entry, w.b_entry, w.loose):
        assert (await service.get_source(source.source_id)).ref == source


async def test_a_source_recorded_for_a_memory_is_readable_before_any_revision_cites_it(
    service: MemoryService,
) -> None:
    w = await World(service).build()
    with acting_as(limited(w.a)):
        note = "Deploys wait for the release manager."
        stored, created = await _put(service, note, w.a.artifact_id)
        assert created
        assert await service.get_source(stored.source_id) == stored
        again, created_again = await _put(service, note, w.a.artifact_id)
        assert (again, created_again) == (stored, False)
        # Cited by A's next revision: nothing changes for the caller.
        cited = await service.remember(
            await w.head(w.a),
            [stored.ref],
            [],
            [add("Deploys need a release manager.", sources=(stored.ref,))],
        )
        assert cited.changed
        assert await service.get_source(stored.source_id) == stored


async def test_storing_what_another_memory_holds_tells_a_limited_caller_nothing(
    service: MemoryService,
) -> None:
    w = await World(service).build()
    theirs = await service.get_source(w.b_entry.source_id)
    await asyncio.sleep(0.005)  # so that "when A first had it" differs from "when stored"
    with acting_as(limited(w.a)):
        mine, created = await _put(service, "B's user note", w.a.artifact_id)
        # As if new: the creation time is when it became A's, never the first store's.
        assert created and mine.source_id == theirs.source_id
        assert mine.created_at_ms > theirs.created_at_ms
        assert await service.get_source(mine.source_id) == mine
        assert (await _put(service, "B's user note", w.a.artifact_id)) == (mine, False)
    # The record itself is unchanged: an unrestricted caller sees the first store's time.
    assert await service.get_source(theirs.source_id) == theirs
    assert (await _put(service, "B's user note"))[1] is False


async def test_put_source_names_an_existing_memory(service: MemoryService) -> None:
    w = await World(service).build()
    nowhere = "mem_art_" + "f" * 32
    error = await _refusal(lambda: _put(service, "a note for nowhere", nowhere))
    assert isinstance(error, NotFoundError) and error.reason == "MEMORY_NOT_FOUND"
    assert error.metadata == {"artifactId": nowhere, "field": "memory_id"}
    bad = await _refusal(lambda: _put(service, "a note", "not an id!"))
    assert isinstance(bad, InvalidArgumentError) and bad.field == "memory_id"
    # Refused before anything was stored.
    assert (await _put(service, "a note for nowhere"))[1] is True
    # An unrestricted caller may record a source for any memory; A's tokens then read it.
    recorded, _ = await _put(service, "recorded for B", w.b.artifact_id)
    with acting_as(limited(w.b)):
        assert await service.get_source(recorded.source_id) == recorded


async def test_a_limited_write_cannot_cite_a_source_of_another_memory(
    service: MemoryService,
) -> None:
    w = await World(service).build()
    wrong_hash = SourceRef(w.b_entry.source_id, "0" * 64)
    twins = await service.remember(
        await w.head(w.a), [], [], [add("Tests use pytest."), add("pytest runs the tests.")]
    )
    head, inputs = ref(twins), [entry_ref(twins, 0), entry_ref(twins, 1)]
    # Unrestricted, a wrong hash is a mismatch: the source exists.
    mismatch = await _refusal(
        lambda: service.remember(head, [wrong_hash], [], [add("An unrelated fact.")])
    )
    assert mismatch.reason == "SOURCE_HASH_MISMATCH"
    writes: dict[str, Callable[[SourceRef], Awaitable[object]]] = {
        "operation evidence": lambda s: service.remember(head, [s], [], [add("A fact.")]),
        "entry evidence": lambda s: service.remember(head, [s], [], [add("A", sources=(s,))]),
        "extract": lambda s: service.remember(head, [s], [], [], RememberMode.EXTRACT),
        "merge": lambda s: service.merge(
            head, inputs, add("Tests run with pytest.", sources=(s,)), "duplicates"
        ),
    }
    with acting_as(limited(w.a)):
        for what, write in writes.items():
            shapes = set()
            for cited in (w.b_entry, wrong_hash, w.loose, SourceRef(MISSING, "0" * 64)):
                error = await _refusal(lambda c=cited, call=write: call(c))  # type: ignore[misc]
                assert (type(error), error.reason) == (NotFoundError, "SOURCE_NOT_FOUND"), what
                shapes.add(_shape(error, cited.source_id))
            assert len(shapes) == 1, (what, shapes)  # B's, a wrong hash, nobody's, none: alike
        assert await w.head(w.a) == head  # nothing was written
        # Its own memory's sources it cites as before.
        done = await service.remember(head, [w.a_entry], [], [add("A also lints with ruff.")])
        assert done.changed


async def test_a_commit_makes_what_it_cites_readable_to_its_memory(
    service: MemoryService,
) -> None:
    w = await World(service).build()
    with acting_as(limited(w.a)):
        assert (await _refusal(lambda: service.get_source(w.loose.source_id))).reason == (
            "SOURCE_NOT_FOUND"
        )
    # An unrestricted writer cites it in A: from then on A's tokens read it.
    entry = add("Loose ends.", sources=(w.loose,))
    await service.remember(await w.head(w.a), [w.loose], [], [entry])
    with acting_as(limited(w.a)):
        assert (await service.get_source(w.loose.source_id)).ref == w.loose


async def test_a_database_written_before_the_links_gets_them_on_open(harness: Harness) -> None:
    service = harness.service
    assert service is not None
    w = await World(service).build()
    with acting_as(limited(w.a)):
        before = await service.get_source(w.a_entry.source_id)
    await service.close()
    # As an older server left it: no links, no marker.
    harness.tamper.execute("DELETE FROM memory_sources")
    key = "key" if harness.backend == "sqlite" else "meta_key"
    assert harness.tamper.execute(f"DELETE FROM schema_meta WHERE {key} = ?", ("memory_sources",))
    old = await harness.open()
    # The open itself backfilled them; the verifier agrees, and the times are the citing ones.
    assert (await verify(old.backend)).ok
    with acting_as(limited(w.a)):
        assert await old.get_source(w.a_entry.source_id) == before
        assert (await old.get_source(w.a_lineage.source_id)).ref == w.a_lineage
        assert (await _refusal(lambda: old.get_source(w.b_entry.source_id))).reason == (
            "SOURCE_NOT_FOUND"
        )
    assert harness.tamper.scalar("SELECT COUNT(*) FROM memory_sources") == 4


async def test_the_verifier_names_a_cited_source_without_its_link(harness: Harness) -> None:
    service = harness.service
    assert service is not None
    w = await World(service).build()
    harness.tamper.execute("DELETE FROM memory_sources WHERE source_id = ?", (w.a_entry.source_id,))
    report = await verify(service.backend)
    assert [str(p) for p in report.problems] == [
        f"memory_sources[{w.a.artifact_id}]: source {w.a_entry.source_id} is cited but not "
        "linked (tokens limited to this memory cannot read it)"
    ]
