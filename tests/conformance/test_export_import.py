"""Export from SQLite, import into each backend: exact, verified, idempotent, resumable.

The source is a SQLite database with a varied history (transfer_data.py); the target is the
conformance database of the run (SQLite or OceanBase).
"""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

import pytest

from powercontext_memory.admin.export import export
from powercontext_memory.admin.importer import ImportRefusedError, import_file
from powercontext_memory.api import SearchMode
from powercontext_memory.app import open_service
from powercontext_memory.domain.errors import NotFoundError
from powercontext_memory.domain.models import ArtifactRef
from powercontext_memory.embedding.minilm import MiniLMEmbedder
from powercontext_memory.memory import MemoryService
from powercontext_memory.verifier import verify

from .conftest import Harness
from .flaky_model import FlakyModel
from .helpers import add, ref
from .transfer_data import (
    CITED,
    CITING,
    Source,
    build,
    citations_expand,
    counter_ids,
    export_file,
    fingerprint,
    search_results,
)


@pytest.fixture
async def source(tmp_path: Path) -> Source:
    return await build(tmp_path / "source.sqlite3")


async def _fingerprint_of(path: Path) -> dict[str, object]:
    service = await open_service(path)
    try:
        return await fingerprint(service)
    finally:
        await service.close()


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def _line_of(lines: list[bytes], record: str, **match: object) -> int:
    """1-based number of the first line of kind `record` whose fields equal `match`."""
    for number, line in enumerate(lines, start=1):
        data = json.loads(line)
        if data["record"] == record and all(data.get(k) == v for k, v in match.items()):
            return number
    raise AssertionError(f"no {record} line with {match}")


async def test_import_reproduces_every_revision_and_passes_verify(
    service: MemoryService, source: Source, tmp_path: Path
) -> None:
    file = await export_file(source.path, tmp_path / "all.jsonl")
    report = await import_file(service, file)
    assert (report.memories, report.memories_written, report.revisions_written) == (2, 2, 12)
    assert report.sources_written == 7  # the five of the example, later.md, and the orphan
    assert await fingerprint(service) == await _fingerprint_of(source.path)
    assert (await verify(service.backend)).ok
    assert await citations_expand(service) > 0
    original = await open_service(source.path)
    try:
        assert await search_results(service) == await search_results(original)
    finally:
        await original.close()


async def test_import_with_a_model_embeds_every_imported_active_entry(
    harness: Harness, source: Source, tmp_path: Path, minilm: MiniLMEmbedder
) -> None:
    assert harness.service is not None
    await harness.service.close()
    service = await harness.open(embedding=FlakyModel(minilm))
    report = await import_file(service, await export_file(source.path, tmp_path / "all.jsonl"))
    assert (report.embedded, report.without_vectors) == (3 + 7, [])  # active at the heads
    verified = await verify(service.backend)
    assert verified.ok and verified.missing_vectors == 0
    heads = [(await service.get_memory(ArtifactRef(m, 0))).revision.ref for m in (CITED, CITING)]
    found = await service.search("notes on building releases", heads, 3, SearchMode.VECTOR)
    assert found.hits and found.mode is SearchMode.VECTOR


async def test_the_file_puts_a_cited_revision_before_the_revision_citing_it(
    source: Source, tmp_path: Path
) -> None:
    lines = _lines(await export_file(source.path, tmp_path / "all.jsonl"))
    # CITING sorts first, but its first revision cites CITED@2: that comes first.
    cited = _line_of(lines, "revision", artifact_id=CITED, revision=2)
    citing = _line_of(lines, "revision", artifact_id=CITING, revision=1)
    assert cited < citing
    assert _line_of(lines, "memory", artifact_id=CITING) < cited  # CITING's section started
    trailer = json.loads(lines[-1])
    assert trailer["counts"] == {
        "entry_version": 12,
        "label": 0,
        "memory": 2,
        "revision": 12,
        "source": 7,
    }


async def test_reimport_changes_nothing(
    service: MemoryService, source: Source, tmp_path: Path
) -> None:
    file = await export_file(source.path, tmp_path / "all.jsonl")
    await import_file(service, file)
    before = await fingerprint(service)
    report = await import_file(service, file)
    assert (report.memories_present, report.memories_written) == (2, 0)
    assert (report.revisions_written, report.entry_versions_written, report.sources_written) == (
        0,
        0,
        0,
    )
    assert await fingerprint(service) == before


def _tamper_text(lines: list[bytes]) -> tuple[list[bytes], int, str]:
    number = _line_of(lines, "entry_version", version=2)
    lines[number - 1] = lines[number - 1].replace(b"make docs-test", b"make all-tests")
    return lines, number, "entry_content_hash"


def _tamper_hash(lines: list[bytes]) -> tuple[list[bytes], int, str]:
    number = _line_of(lines, "revision", artifact_id=CITING, revision=3)
    data = json.loads(lines[number - 1])
    data["content_hash"] = "0" * 64
    lines[number - 1] = json.dumps(data, separators=(",", ":"), sort_keys=True).encode() + b"\n"
    return lines, number, "content hash"


def _tamper_source(lines: list[bytes]) -> tuple[list[bytes], int, str]:
    number = _line_of(lines, "source")
    data = json.loads(lines[number - 1])
    data["content_base64"] = "b3RoZXIgY29udGVudA=="
    lines[number - 1] = json.dumps(data, separators=(",", ":"), sort_keys=True).encode() + b"\n"
    return lines, number, "content_hash"


def _truncate(lines: list[bytes]) -> tuple[list[bytes], int, str]:
    kept = lines[: len(lines) - 3]
    return kept, len(kept), "truncated"


def _cut_mid_line(lines: list[bytes]) -> tuple[list[bytes], int, str]:
    kept = lines[: len(lines) - 2] + [lines[-2][:40]]
    return kept, len(kept), "truncated"


def _tamper_time(lines: list[bytes]) -> tuple[list[bytes], int, str]:
    number = _line_of(lines, "revision", artifact_id=CITED, revision=1)
    data = json.loads(lines[number - 1])
    data["committed_at_ms"] += 1  # no hash covers it: the trailer's digest does
    lines[number - 1] = json.dumps(data, separators=(",", ":"), sort_keys=True).encode() + b"\n"
    return lines, len(lines), "edited"


def _drop_version(lines: list[bytes]) -> tuple[list[bytes], int, str]:
    number = _line_of(lines, "entry_version", memory_artifact_id=CITING)
    revision = _line_of(lines, "revision", artifact_id=CITING, revision=1)
    return lines[: number - 1] + lines[number:], revision - 1, "does not create"


def _tamper_chain(lines: list[bytes]) -> tuple[list[bytes], int, str]:
    number = _line_of(lines, "entry_version", version=2)
    data = json.loads(lines[number - 1])
    data["version"] = 3  # no hash covers the chain: replay checks it
    lines[number - 1] = (
        json.dumps(data, separators=(",", ":"), sort_keys=True, ensure_ascii=False).encode() + b"\n"
    )
    return lines, _line_of(lines, "revision", artifact_id=CITED, revision=2), "next version"


TAMPERING = [
    _tamper_chain,
    _tamper_text,
    _tamper_hash,
    _tamper_source,
    _truncate,
    _cut_mid_line,
    _tamper_time,
    _drop_version,
]


async def test_a_tampered_file_is_refused_naming_the_line_and_nothing_is_written(
    service: MemoryService, source: Source, tmp_path: Path
) -> None:
    original = _lines(await export_file(source.path, tmp_path / "all.jsonl"))
    empty = await fingerprint(service)
    for tamper in TAMPERING:
        lines, number, words = tamper(list(original))
        bad = tmp_path / f"{tamper.__name__}.jsonl"
        bad.write_bytes(b"".join(lines))
        with pytest.raises(ImportRefusedError) as refused:
            await import_file(service, bad)
        message = str(refused.value)
        assert message.startswith(f"line {number}: "), (tamper.__name__, message)
        assert words in message and "nothing was imported" in message, (tamper.__name__, message)
        assert await fingerprint(service) == empty, tamper.__name__


async def test_an_interrupted_import_resumes_where_it_stopped(
    service: MemoryService, source: Source, tmp_path: Path
) -> None:
    file = await export_file(source.path, tmp_path / "all.jsonl")
    committed: list[tuple[str, int]] = []

    def crash_after_three(memory: str, revision: int) -> None:
        committed.append((memory, revision))
        if len(committed) == 3:
            raise RuntimeError("injected crash")

    with pytest.raises(RuntimeError, match="injected crash"):
        await import_file(service, file, batch_revisions=2, on_batch=crash_after_three)
    # The file holds CITED@1-2 (cited by CITING@1), CITING@1-7, then CITED@3-5.
    assert committed == [(CITED, 2), (CITING, 2), (CITING, 4)]
    assert (await verify(service.backend)).ok  # consistent after every batch
    partial = await fingerprint(service)
    assert [r[0] for r in partial["memories"][CITING]["revisions"]] == [1, 2, 3, 4]
    lines: list[str] = []
    report = await import_file(service, file, batch_revisions=2, progress=lines.append)
    assert any(f"{CITING}: resuming after revision 4 of 7" in line for line in lines), lines
    assert (report.revisions_written, report.memories_written) == (12 - 6, 2)
    assert await fingerprint(service) == await _fingerprint_of(source.path)
    assert (await verify(service.backend)).ok


async def test_a_conflicting_memory_is_refused(service: MemoryService, tmp_path: Path) -> None:
    files = []
    for name in ("alpha", "beta"):  # same ids, different histories
        path = tmp_path / f"{name}.sqlite3"
        other = await open_service(path, id_factory=counter_ids(["mem_art_same"]))
        try:
            first = await other.remember(None, [], [], [add(f"{name} one")])
            await other.remember(ref(first), [], [], [add(f"{name} two")])
        finally:
            await other.close()
        files.append(await export_file(path, tmp_path / f"{name}.jsonl"))
    await import_file(service, files[0])
    before = await fingerprint(service)
    with pytest.raises(ImportRefusedError) as refused:
        await import_file(service, files[1])
    line = _line_of(_lines(files[1]), "revision", revision=1)
    assert str(refused.value).startswith(f"line {line}: memory mem_art_same conflicts")
    assert await fingerprint(service) == before


async def test_a_memory_citing_one_outside_the_file_needs_it_in_the_target(
    service: MemoryService, source: Source, tmp_path: Path
) -> None:
    citing = await export_file(source.path, tmp_path / "citing.jsonl", (CITING,))
    with pytest.raises(ImportRefusedError, match=rf"cites {CITED}@2, which is neither"):
        await import_file(service, citing)
    assert (await fingerprint(service))["memories"] == {}
    await import_file(service, await export_file(source.path, tmp_path / "cited.jsonl", (CITED,)))
    report = await import_file(service, citing)
    assert report.revisions_written == 7
    assert (await verify(service.backend)).ok


async def test_export_of_an_unknown_memory_fails(source: Source, tmp_path: Path) -> None:
    service = await open_service(source.path)
    try:
        with (tmp_path / "x.jsonl").open("wb") as out, pytest.raises(NotFoundError):
            await export(service.backend, out, ["mem_art_nope"])
    finally:
        await service.close()


async def test_a_secret_stored_before_the_guard_is_imported_with_a_warning_naming_no_value(
    service: MemoryService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A database written before the secret guard existed: write with the guard switched off.
    # Built at run time, so the repository holds no string a secret scanner would flag.
    token = "ghp_" + "".join(random.Random(7).choices(string.ascii_letters + string.digits, k=36))
    path = tmp_path / "old.sqlite3"
    old = await open_service(path)
    try:
        with monkeypatch.context() as m:
            m.setattr("powercontext_memory.secret_refusal.text_secret", lambda *_args: None)
            await old.remember(None, [], [], [add(f"The bot pushes with {token}.")])
    finally:
        await old.close()
    lines: list[str] = []
    report = await import_file(
        service, await export_file(path, tmp_path / "old.jsonl"), progress=lines.append
    )
    assert report.revisions_written == 1  # history is immutable: imported as stored
    warnings = [line for line in lines if "warning" in line]
    assert len(warnings) == 1 and "rule github-token" in warnings[0]
    assert all(token not in line for line in lines)


async def test_an_escaped_secret_in_a_source_stored_before_the_guard_is_named_on_import(
    service: MemoryService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A source written by a server whose guard did not decode escapes: stored as it came.
    token = "ghp_" + "".join(random.Random(8).choices(string.ascii_letters + string.digits, k=36))
    escaped = "".join(f"\\u{ord(c):04x}" for c in token)
    path = tmp_path / "old.sqlite3"
    old = await open_service(path)
    try:
        with monkeypatch.context() as m:
            m.setattr("powercontext_memory.secret_refusal.source_secret", lambda *_args: None)
            stored, _ = await old.put_source(
                "task_outcome", "", "application/json", f'{{"report": "{escaped}"}}'.encode(), {}
            )
        await old.remember(None, [stored.ref], [], [add("CI pushes on green.")])
    finally:
        await old.close()
    lines: list[str] = []
    await import_file(
        service, await export_file(path, tmp_path / "old.jsonl"), progress=lines.append
    )
    warnings = [line for line in lines if "warning" in line]
    assert len(warnings) == 1, lines
    assert (
        f"source {stored.source_id} content holds a GitHub token with its escapes decoded"
        in (warnings[0])
    )
    assert all(token not in line and escaped not in line for line in lines)
