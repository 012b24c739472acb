"""The export file as verified events, for both passes of import (importer.py).

Every record is parsed and its hash recomputed from canonical bytes (export_format.py); every
revision's content is rebuilt from the previous one and its changes (domain/replay.py) and must
match its content_hash. What a revision cites is checked against the file so far; what the file
does not hold is left for the importer to find in the target. A memory's labels must follow
all of its revisions, numbered 1, 2, ... without gaps. The first bad line raises
ExportFileError naming it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

from ..backends.port import MemoryLabelRow
from ..domain.models import (
    ArtifactRef,
    EntryVersion,
    Lineage,
    MemoryContent,
    Source,
    SourceRef,
)
from ..domain.replay import MemoryReplay, ReplayError
from . import export_format as fmt
from .export_format import ExportFileError, RecordError
from .export_labels import parse_label


@dataclass(frozen=True, slots=True)
class MemoryStart:
    line: int
    artifact_id: str
    head: int


@dataclass(frozen=True, slots=True)
class Unit:
    """One verified revision, with what it creates and the sources that came before it."""

    line: int
    artifact_id: str
    revision: int
    head: int  # the memory's last revision in the file
    content: MemoryContent
    lineage: Lineage
    committed_at_ms: int
    created: tuple[EntryVersion, ...]
    sources: tuple[tuple[int, Source], ...]
    # what it cites that is not earlier in the file: the target must hold it
    outside_sources: tuple[SourceRef, ...]
    outside_artifacts: tuple[ArtifactRef, ...]


@dataclass(frozen=True, slots=True)
class Label:
    """One label version of a memory whose revisions all came before it."""

    line: int
    row: MemoryLabelRow


@dataclass(frozen=True, slots=True)
class End:
    line: int  # the trailer's
    sources: tuple[tuple[int, Source], ...]  # sources no revision cites


Event = fmt.Header | MemoryStart | Unit | Label | End


def events(stream: IO[bytes]) -> Iterator[Event]:
    """The file as verified events; ExportFileError names the first bad line."""
    replays: dict[str, MemoryReplay] = {}
    heads: dict[str, int] = {}
    pending: dict[str, list[EntryVersion]] = {}
    sources: list[tuple[int, Source]] = []
    seen_sources: dict[str, str] = {}
    label_versions: dict[str, int] = {}  # memory -> its last label version so far
    last = 0
    for number, record in fmt.read_lines(stream):
        last = number
        try:
            if number == 1:
                yield fmt.parse_header(record)
                continue
            kind = record["record"]
            if kind == "source":
                source = fmt.parse_source(record)
                if source.source_id in seen_sources:
                    raise RecordError(f"source {source.source_id} appears twice")
                seen_sources[source.source_id] = source.content_hash
                sources.append((number, source))
            elif kind == "memory":
                artifact_id, head = fmt.parse_memory(record)
                if artifact_id in heads:
                    raise RecordError(f"memory {artifact_id} starts twice")
                heads[artifact_id] = head
                replays[artifact_id] = MemoryReplay(artifact_id)
                yield MemoryStart(number, artifact_id, head)
            elif kind == "label":
                row = parse_label(record)
                _check_label_order(row, replays, heads, label_versions)
                label_versions[row.memory_artifact_id] = row.label_version
                yield Label(number, row)
            elif kind == "entry_version":
                version = fmt.parse_version(record)
                if version.memory_artifact_id not in replays:
                    raise RecordError(f"memory {version.memory_artifact_id} has not started")
                pending.setdefault(version.memory_artifact_id, []).append(version)
            else:
                unit = _revision_unit(number, fmt.parse_revision(record), replays, heads, pending)
                yield _with_evidence(unit, seen_sources, replays, tuple(sources))
                sources = []
        except RecordError as error:
            raise ExportFileError(number, str(error)) from None
    trailer = last + 1
    for artifact_id, head in heads.items():
        if replays[artifact_id].revision != head:
            raise ExportFileError(
                trailer,
                f"memory {artifact_id} declares head {head}, the file holds revisions up to "
                f"{replays[artifact_id].revision}",
            )
    if any(pending.values()):
        raise ExportFileError(trailer, "entry versions without the revision that creates them")
    yield End(trailer, tuple(sources))


def _check_label_order(
    row: MemoryLabelRow,
    replays: dict[str, MemoryReplay],
    heads: dict[str, int],
    label_versions: dict[str, int],
) -> None:
    artifact_id = row.memory_artifact_id
    what = f"label version {row.label_version} of memory {artifact_id}"
    replay = replays.get(artifact_id)
    if replay is None:
        raise RecordError(f"{what}: the file holds no such memory before it")
    if replay.revision != heads[artifact_id]:
        raise RecordError(
            f"{what} comes before the memory's revision {replay.revision + 1}: labels follow "
            "all of a memory's revisions"
        )
    expected = label_versions.get(artifact_id, 0) + 1
    if row.label_version != expected:
        raise RecordError(
            f"{what}: version {expected} comes next (label versions run 1, 2, ... without "
            "gaps or repeats)"
        )


def _revision_unit(
    number: int,
    record: fmt.RevisionRecord,
    replays: dict[str, MemoryReplay],
    heads: dict[str, int],
    pending: dict[str, list[EntryVersion]],
) -> Unit:
    artifact_id = record.artifact_id
    what = f"revision {artifact_id}@{record.revision}"
    replay = replays.get(artifact_id)
    if replay is None:
        raise RecordError(f"memory {artifact_id} has not started")
    if record.revision > heads[artifact_id]:
        raise RecordError(f"{what} is beyond the memory's head {heads[artifact_id]}")
    created = tuple(pending.pop(artifact_id, []))
    try:
        content = replay.apply(record.revision, record.changes, created)
    except ReplayError as error:
        raise RecordError(f"{what}: {error}") from None
    if content.content_hash != record.content_hash:
        raise RecordError(
            f"{what}: its changes and entry versions give content hash {content.content_hash}, "
            f"the record says {record.content_hash}"
        )
    return Unit(
        number,
        artifact_id,
        record.revision,
        heads[artifact_id],
        content,
        record.lineage,
        record.committed_at_ms,
        created,
        (),
        (),
        (),
    )


def _with_evidence(
    unit: Unit,
    seen_sources: dict[str, str],
    replays: dict[str, MemoryReplay],
    sources: tuple[tuple[int, Source], ...],
) -> Unit:
    """Check what the revision cites against the file so far; the rest is for the target."""
    cited_sources = {
        *unit.lineage.sources,
        *(s for v in unit.created for s in v.content.source_refs),
    }
    outside_sources = []
    for ref in sorted(cited_sources):
        known = seen_sources.get(ref.source_id)
        if known is None:
            outside_sources.append(ref)
        elif known != ref.content_hash:
            raise RecordError(
                f"revision {unit.artifact_id}@{unit.revision} cites source {ref.source_id} with "
                f"hash {ref.content_hash}; the file's source has {known}"
            )
    cited = {*unit.lineage.artifacts, *(a for v in unit.created for a in v.content.artifact_refs)}
    outside_artifacts = []
    for artifact in sorted(cited):
        replay = replays.get(artifact.artifact_id)
        own = artifact.artifact_id == unit.artifact_id
        if (
            replay is None
            or replay.revision < artifact.revision
            or (own and artifact.revision >= unit.revision)
        ):
            outside_artifacts.append(artifact)
    return Unit(
        unit.line,
        unit.artifact_id,
        unit.revision,
        unit.head,
        unit.content,
        unit.lineage,
        unit.committed_at_ms,
        unit.created,
        sources,
        tuple(outside_sources),
        tuple(outside_artifacts),
    )
