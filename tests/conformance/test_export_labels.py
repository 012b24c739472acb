"""Memory labels through export and import, into each backend: every version moves, exactly.

The source is the SQLite database of transfer_data.py with labels set, cleared and set again
(transfer_labels.py); the target is the conformance database of the run.
"""

from __future__ import annotations

import hashlib
import json
import random
import string
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from powercontext_memory.admin.export import export
from powercontext_memory.admin.importer import ImportRefusedError, import_file
from powercontext_memory.app import open_service
from powercontext_memory.backends.port import MemoryLabelRow
from powercontext_memory.domain.canonical import canonical_json
from powercontext_memory.domain.errors import AbortedError, DataLossError
from powercontext_memory.memory import MemoryService

from .tamper import SQLiteTamper
from .transfer_data import CITED, CITING, Source, build, export_file, fingerprint
from .transfer_labels import (
    LABEL_COUNT,
    LABELS,
    histories_of,
    label_histories,
    listed_labels,
    set_labels,
)

Lines = list[bytes]


@pytest.fixture
async def source(tmp_path: Path) -> Source:
    return await build(tmp_path / "source.sqlite3")


@pytest.fixture
async def labelled(source: Source) -> Source:
    await set_labels(source.path)
    return source


def _records(lines: Lines) -> list[dict[str, Any]]:
    return [json.loads(line) for line in lines]


def _line_of(lines: Lines, record: str, **match: object) -> int:
    """1-based number of the first line of kind `record` whose fields equal `match`."""
    for number, data in enumerate(_records(lines), start=1):
        if data["record"] == record and all(data.get(k) == v for k, v in match.items()):
            return number
    raise AssertionError(f"no {record} line with {match}")


def _line(data: dict[str, Any]) -> bytes:
    return canonical_json(data) + b"\n"


def _edited(lines: Lines, number: int, **changes: object) -> Lines:
    data = json.loads(lines[number - 1])
    data.update(changes)
    return lines[: number - 1] + [_line(data)] + lines[number:]


def _reframed(lines: Lines, version: int, kinds: tuple[str, ...]) -> Lines:
    """The records between header and trailer under a header of `version`, with a trailer
    recomputed as that version counts (what an exporter of that version would have written)."""
    header = _line({**json.loads(lines[0]), "format_version": version})
    body = [header, *lines[1:-1]]
    counts = Counter(json.loads(line)["record"] for line in body[1:])
    trailer = {
        "counts": {kind: counts[kind] for kind in kinds},
        "lines": len(body),
        "record": "trailer",
        "sha256": hashlib.sha256(b"".join(body)).hexdigest(),
    }
    return [*body, _line(trailer)]


async def test_every_label_version_moves_and_lists_the_same(
    service: MemoryService, labelled: Source, tmp_path: Path
) -> None:
    file = await export_file(labelled.path, tmp_path / "all.jsonl")
    lines = file.read_bytes().splitlines(keepends=True)
    records = _records(lines)
    assert records[0]["format_version"] == 2
    assert records[-1]["counts"]["label"] == LABEL_COUNT
    for memory, head in ((CITED, labelled.cited.revision), (CITING, labelled.citing.revision)):
        last = _line_of(lines, "revision", artifact_id=memory, revision=head)
        after = records[last : last + len(LABELS[memory])]  # right after its last revision
        assert [(r["record"], r["memory_artifact_id"], r["label"]) for r in after] == [
            ("label", memory, label) for label in LABELS[memory]
        ]
        assert [r["label_version"] for r in after] == list(range(1, len(LABELS[memory]) + 1))

    report = await import_file(service, file)
    assert report.labels_written == LABEL_COUNT
    expected = await histories_of(labelled.path)
    assert await label_histories(service) == expected  # versions, labels and times
    assert await listed_labels(service) == {
        CITED: ("Release and validation rules", 3),
        CITING: ("团队的 validation", 1),
    }
    again = await import_file(service, file)
    assert (again.labels_written, again.revisions_written) == (0, 0)
    assert await label_histories(service) == expected
    # The imported history goes on where it stopped: compare-and-swap on version 3.
    with pytest.raises(AbortedError):
        await service.set_memory_label(CITED, "Stale", 2)
    assert (await service.set_memory_label(CITED, "Next", 3)).label_version == 4


def _pad(lines: Lines) -> tuple[Lines, int, str]:
    number = _line_of(lines, "label", memory_artifact_id=CITED, label_version=1)
    return _edited(lines, number, label=" Release rules"), number, "start or end with whitespace"


def _two_lines(lines: Lines) -> tuple[Lines, int, str]:
    number = _line_of(lines, "label", memory_artifact_id=CITED, label_version=3)
    return _edited(lines, number, label="Release\nrules"), number, "one line"


def _decomposed(lines: Lines) -> tuple[Lines, int, str]:
    number = _line_of(lines, "label", memory_artifact_id=CITING, label_version=1)
    return _edited(lines, number, label="Cafe\u0301 rules"), number, "not NFC-normalized"


def _gap(lines: Lines) -> tuple[Lines, int, str]:
    number = _line_of(lines, "label", memory_artifact_id=CITED, label_version=2)
    return lines[: number - 1] + lines[number:], number, "version 2 comes next"


def _foreign(lines: Lines) -> tuple[Lines, int, str]:
    number = _line_of(lines, "label", memory_artifact_id=CITING, label_version=1)
    edited = _edited(lines, number, memory_artifact_id="mem_art_elsewhere")
    return edited, number, "the file holds no such memory"


def _too_early(lines: Lines) -> tuple[Lines, int, str]:
    number = _line_of(lines, "label", memory_artifact_id=CITED, label_version=1)
    label = lines[number - 1]
    rest = lines[: number - 1] + lines[number:]
    last = _line_of(rest, "revision", artifact_id=CITED, revision=5)
    moved = rest[: last - 1] + [label] + rest[last - 1 :]
    return moved, last, "comes before the memory's revision 5"


def _retimed(lines: Lines) -> tuple[Lines, int, str]:
    number = _line_of(lines, "label", memory_artifact_id=CITED, label_version=2)
    data = json.loads(lines[number - 1])
    edited = _edited(lines, number, set_at_ms=data["set_at_ms"] + 1)
    return edited, len(lines), "edited"  # no hash covers a label: the trailer's digest does


TAMPERING: list[Callable[[Lines], tuple[Lines, int, str]]] = [
    _pad,
    _two_lines,
    _decomposed,
    _gap,
    _foreign,
    _too_early,
    _retimed,
]


async def test_a_tampered_label_is_refused_naming_the_line_and_nothing_is_written(
    service: MemoryService, labelled: Source, tmp_path: Path
) -> None:
    original = (await export_file(labelled.path, tmp_path / "all.jsonl")).read_bytes()
    empty = await fingerprint(service)
    for tamper in TAMPERING:
        lines, number, words = tamper(original.splitlines(keepends=True))
        bad = tmp_path / f"{tamper.__name__}.jsonl"
        bad.write_bytes(b"".join(lines))
        with pytest.raises(ImportRefusedError) as refused:
            await import_file(service, bad)
        message = str(refused.value)
        assert message.startswith(f"line {number}: "), (tamper.__name__, message)
        assert words in message and "nothing was imported" in message, (tamper.__name__, message)
        assert await fingerprint(service) == empty, tamper.__name__
        assert await label_histories(service) == {}, tamper.__name__


async def test_labels_reach_a_target_holding_the_memories_and_another_label_is_refused(
    service: MemoryService, source: Source, tmp_path: Path
) -> None:
    plain = await export_file(source.path, tmp_path / "plain.jsonl")  # before any label
    await set_labels(source.path)
    file = await export_file(source.path, tmp_path / "labelled.jsonl")
    assert (await import_file(service, plain)).labels_written == 0
    report = await import_file(service, file)
    assert (report.memories_present, report.revisions_written) == (2, 0)
    assert report.labels_written == LABEL_COUNT
    assert await label_histories(service) == await histories_of(source.path)

    # A label set in the target after the import: the file is a prefix, nothing to write.
    await service.set_memory_label(CITING, "Set in the target", 1)
    assert (await import_file(service, file)).labels_written == 0
    assert (await listed_labels(service))[CITING] == ("Set in the target", 2)

    # Another target whose version 1 is another label: refused before anything is written.
    other = await open_service(tmp_path / "other.sqlite3")
    try:
        await import_file(other, plain)
        ours = await other.set_memory_label(CITED, "Ours", 0)
        with pytest.raises(ImportRefusedError) as refused:
            await import_file(other, file)
        line = _line_of(file.read_bytes().splitlines(), "label", memory_artifact_id=CITED)
        assert str(refused.value).startswith(
            f"line {line}: memory {CITED} conflicts with the target: its label version 1 is "
            "another label there"
        )
        assert await label_histories(other) == {
            CITED: [MemoryLabelRow(CITED, 1, "Ours", ours.set_at_ms)]
        }
    finally:
        await other.close()


async def test_a_version_1_file_still_imports_and_holds_no_label(
    service: MemoryService, labelled: Source, tmp_path: Path
) -> None:
    lines = (await export_file(labelled.path, tmp_path / "all.jsonl")).read_bytes()
    lines_v2 = lines.splitlines(keepends=True)
    without = [line for line in lines_v2 if json.loads(line)["record"] != "label"]
    v1_kinds = ("source", "memory", "entry_version", "revision")
    old = tmp_path / "v1.jsonl"
    old.write_bytes(b"".join(_reframed(without, 1, v1_kinds)))
    bad = tmp_path / "v1-with-labels.jsonl"
    bad.write_bytes(b"".join(_reframed(lines_v2, 1, v1_kinds)))
    future = tmp_path / "v3.jsonl"
    future.write_bytes(b"".join(_reframed(lines_v2, 3, (*v1_kinds, "label"))))

    with pytest.raises(ImportRefusedError, match=r"^line 1: format version 3; this program"):
        await import_file(service, future)
    label_line = _line_of(lines_v2, "label")
    with pytest.raises(ImportRefusedError, match=rf"^line {label_line}: unknown record kind"):
        await import_file(service, bad)
    report = await import_file(service, old)
    assert (report.revisions_written, report.labels_written) == (12, 0)
    source_service = await open_service(labelled.path)
    try:
        assert await fingerprint(service) == await fingerprint(source_service)
    finally:
        await source_service.close()
    assert await label_histories(service) == {}


async def test_a_label_holding_a_secret_is_imported_with_a_warning_naming_no_value(
    service: MemoryService, source: Source, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Set by a server whose guard lacked the rule. Built at run time: no scanner flags the file.
    token = "ghp_" + "".join(random.Random(9).choices(string.ascii_letters + string.digits, k=36))
    old = await open_service(source.path)
    try:
        with monkeypatch.context() as m:
            m.setattr("powercontext_memory.memory_catalog.refuse_secret", lambda *_args: None)
            await old.set_memory_label(CITED, f"push with {token}", 0)
    finally:
        await old.close()
    lines: list[str] = []
    file = await export_file(source.path, tmp_path / "all.jsonl")
    report = await import_file(service, file, progress=lines.append)
    assert report.labels_written == 1  # moved as stored
    warnings = [line for line in lines if "warning" in line]
    assert len(warnings) == 1 and f"label version 1 of memory {CITED}" in warnings[0]
    assert "rule github-token" in warnings[0]
    assert all(token not in line for line in lines)


async def test_export_fails_on_a_damaged_label_history_naming_the_row(
    labelled: Source, tmp_path: Path
) -> None:
    raw = SQLiteTamper(labelled.path)
    damages = [
        (
            "UPDATE memory_labels SET label = label || ' ' "
            "WHERE memory_artifact_id = ? AND label_version = 3",
            f"memory_labels[{CITED}@3]: the label must not be blank or start or end",
        ),
        (
            "DELETE FROM memory_labels WHERE memory_artifact_id = ? AND label_version = 1",
            f"memory_labels[{CITED}@1]: missing below version 2",
        ),
    ]
    for sql, words in damages:
        assert raw.execute(sql, (CITED,)) == 1
        service = await open_service(labelled.path)
        try:
            with (tmp_path / "x.jsonl").open("wb") as out, pytest.raises(DataLossError) as lost:
                await export(service.backend, out, [CITED])
        finally:
            await service.close()
        assert words in lost.value.message
