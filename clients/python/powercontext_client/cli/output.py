"""What the CLI prints: `-o json` is the response message as proto3 JSON (one object per line,
field names as in the .proto like grpcurl, fields at their default value included so scripts
can read `"changed": false`); `-o text` is for people: revisions, entry ids, versions, states
and which channels matched here, and what was remembered (texts first) in views.py.

A text line is printed once: a write lists each change, then only the inputs no change stands
for (unchanged, duplicate); a merge's result and a restore's restored and retired entries are
not listed again as changes."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from typing import Any, TextIO

from google.protobuf import json_format
from google.protobuf.message import Message

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types

from .refs import format_citation, format_memory
from .views import says_more

_CHANGE_OPS = {
    types.CHANGE_OP_ADD: "add",
    types.CHANGE_OP_REVISE: "revise",
    types.CHANGE_OP_DEACTIVATE: "deactivate",
    types.CHANGE_OP_REACTIVATE: "reactivate",
}
_OUTCOMES = {
    pb.ENTRY_OUTCOME_ADDED: "added",
    pb.ENTRY_OUTCOME_REVISED: "revised",
    pb.ENTRY_OUTCOME_UNCHANGED: "unchanged",
    pb.ENTRY_OUTCOME_DUPLICATE: "duplicate",
}
_STATES = {types.ENTRY_STATE_ACTIVE: "active", types.ENTRY_STATE_INACTIVE: "inactive"}
STATUSES = {
    "active": types.ENTRY_STATUS_ACTIVE,
    "inactive": types.ENTRY_STATUS_INACTIVE,
    "merged": types.ENTRY_STATUS_MERGED,
}
_STATUS_NAMES = {number: name for name, number in STATUSES.items()}
_CHANNELS = {types.SEARCH_CHANNEL_FTS: "fts", types.SEARCH_CHANNEL_VECTOR: "vector"}
_MODES = {
    types.SEARCH_MODE_FTS: "fts",
    types.SEARCH_MODE_VECTOR: "vector",
    types.SEARCH_MODE_HYBRID: "hybrid",
    types.SEARCH_MODE_AUTO: "auto",
}


def ids_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ids",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show entry and version ids, citations and hashes with the text (default: only "
        "when stdout is not a terminal)",
    )


class Printer:
    def __init__(self, output: str, stream: TextIO | None = None) -> None:
        self.json = output == "json"
        self.stream = stream or sys.stdout

    def line(self, text: str = "") -> None:
        print(text, file=self.stream, flush=True)

    def message(self, message: Message) -> None:
        """One message as a line of proto3 JSON."""
        self.line(
            json_format.MessageToJson(
                message,
                preserving_proto_field_name=True,
                always_print_fields_with_no_presence=True,
                indent=None,
            )
        )

    def ids(self, asked: bool | None) -> bool:
        """Whether text output shows entry and version ids and hashes: as asked (--ids,
        --no-ids), else only when stdout is not a terminal, where a pipe or a script may
        need them."""
        if asked is not None:
            return asked
        isatty = getattr(self.stream, "isatty", None)
        return not (isatty is not None and isatty())

    def show(self, message: Message, text_lines: Iterable[str]) -> None:
        if self.json:
            self.message(message)
            return
        for text in text_lines:
            self.line(text)


# -- text renderings ----------------------------------------------------------------------------


def change_line(change: types.MemoryChange) -> str:
    op = _CHANGE_OPS.get(change.op, str(change.op))
    before = change.from_entry_version_id if change.HasField("from_entry_version_id") else ""
    after = change.to_entry_version_id if change.HasField("to_entry_version_id") else ""
    versions = f"{before} -> {after}" if before and after else before or after
    reason = f"  ({change.reason})" if change.HasField("reason") else ""
    return f"  {op:<10} {change.entry_id}  {versions}{reason}"


def write_lines(response: Any) -> Iterable[str]:
    """Remember / Forget / Reactivate / Organize responses."""
    if not response.HasField("memory"):
        yield "nothing to remember: no memory created"
        return
    state = "new revision" if response.changed else "unchanged"
    yield f"{format_memory(response.memory)}  {state}  {response.content_hash}"
    made = set()
    for change in response.changes:
        made.add((change.entry_id, change.to_entry_version_id))
        yield change_line(change)
    for index, result in enumerate(getattr(response, "results", ())):
        if (result.entry_id, result.entry_version_id) in made:
            continue  # an added or revised input: its change line above
        outcome = _OUTCOMES.get(result.outcome, str(result.outcome))
        yield f"  [{index}] {outcome:<9} {result.entry_id}  {result.entry_version_id}"


def expanded_lines(response: pb.ExpandResponse) -> Iterable[str]:
    for item in response.entries:
        version = item.version
        cited = item.citation
        state = _STATES.get(item.state, str(item.state))
        yield format_citation(cited.memory_ref, cited.entry_id, cited.entry_version_id)
        yield f"  version {version.version} ({state}), kind {version.kind}"
        yield f"  hash     {version.entry_content_hash}"
        if says_more(version.description, version.text):  # a derived one repeats the text
            yield f"  about    {version.description}"
        if version.tags:
            yield f"  tags     {', '.join(version.tags)}"
        if version.HasField("previous_version_id"):
            yield f"  previous {version.previous_version_id}"
        for source in version.source_refs:
            yield f"  source   {source.source_id}"
        for artifact in version.artifact_refs:
            yield f"  artifact {format_memory(artifact)}"
        yield f"  {version.text}"


def search_lines(response: pb.SearchResponse) -> Iterable[str]:
    mode = _MODES.get(response.mode, str(response.mode))
    fallback = f" (auto fell back: {response.fallback_reason})" if response.fallback_reason else ""
    yield f"mode {mode}{fallback}, {len(response.hits)} hit(s)"
    for rank, hit in enumerate(response.hits, 1):
        channels = "+".join(_CHANNELS.get(c, str(c)) for c in hit.matched_by)
        cite = format_citation(hit.memory_ref, hit.entry_id, hit.entry_version_id)
        yield f"{rank}. {hit.score:.4f}  {channels:<10} {hit.kind:<12} {cite}{_tags(hit.tags)}"
        yield f"   {hit.text}"


def _tags(tags: Iterable[str]) -> str:
    listed = ", ".join(tags)
    return f"  [{listed}]" if listed else ""


def listed_lines(entries: Iterable[types.ListedEntry]) -> Iterable[str]:
    """Recall manifest items: citation, status, kind, tags, then the description."""
    for entry in entries:
        cited = entry.citation
        status = _STATUS_NAMES.get(entry.status, str(entry.status))
        merged = f" into {entry.merged_into_entry_id}" if entry.merged_into_entry_id else ""
        cite = format_citation(cited.memory_ref, cited.entry_id, cited.entry_version_id)
        yield f"{cite}  {status}{merged}  {entry.kind}{_tags(entry.tags)}"
        yield f"   {entry.description}"


def next_page_line(token: str) -> Iterable[str]:
    if token:
        yield f"next page: --page-token {token}"


def merge_lines(response: pb.MergeResponse) -> Iterable[str]:
    yield f"{format_memory(response.memory)}  new revision  {response.content_hash}"
    result = response.result
    for change in response.changes:
        if change.entry_id != result.entry_id:  # the result's ADD is the line below
            yield change_line(change)
    yield f"  result     {result.entry_id}  {result.entry_version_id}"


def outcome_lines(
    outcome: types.RestoreOutcome, reasons: dict[str, str] | None = None
) -> Iterable[str]:
    """Restored and retired entries, each with the reason of its change (`reasons`)."""
    reasons = reasons or {}

    def why(entry_id: str) -> str:
        return f"  ({reasons[entry_id]})" if entry_id in reasons else ""

    for entry in outcome.restored:
        yield f"  restored   {entry.entry_id}  {entry.entry_version_id}{why(entry.entry_id)}"
    for entry in outcome.retired:
        yield f"  retired    {entry.entry_id}  {entry.entry_version_id}{why(entry.entry_id)}"
    if outcome.undone_merge_results:
        yield f"  undone merges (outermost first): {', '.join(outcome.undone_merge_results)}"


def restore_lines(response: pb.RestoreResponse | pb.UndoMergeResponse) -> Iterable[str]:
    state = "new revision" if response.changed else "unchanged"
    yield f"{format_memory(response.memory)}  {state}  {response.content_hash}"
    outcome = response.outcome
    named = {entry.entry_id for entry in [*outcome.restored, *outcome.retired]}
    for change in response.changes:
        if change.entry_id not in named:  # a restored or retired entry is listed below
            yield change_line(change)
    reasons = {c.entry_id: c.reason for c in response.changes if c.HasField("reason")}
    yield from outcome_lines(outcome, reasons)


def preview_lines(response: pb.PreviewRestoreResponse) -> Iterable[str]:
    would = "would change" if response.would_change else "would change nothing"
    yield f"{format_memory(response.memory)}  {would}"
    yield from outcome_lines(response.outcome)
    expires = response.expires_at.ToDatetime().strftime("%Y-%m-%dT%H:%M:%SZ")
    yield f"token      {response.preview_token}"
    yield f"expires    {expires}"


def source_lines(source: types.Source, created: bool | None = None) -> Iterable[str]:
    status = "" if created is None else ("  created" if created else "  already stored")
    yield f"{source.source_id}:{source.content_hash}{status}"
    yield f"  kind {source.kind}, {len(source.content)} bytes" + (
        f", {source.media_type}" if source.media_type else ""
    )
    if source.uri:
        yield f"  uri {source.uri}"
    for key, value in sorted(source.metadata.items()):
        yield f"  {key} = {value}"


def capability_lines(caps: types.Capabilities) -> Iterable[str]:
    yield f"backend     {caps.backend} {caps.engine_version}".rstrip()
    yield f"fts         {_yes(caps.fts, caps.fts_unavailable_reason)}"
    yield f"vector      {_yes(caps.vector, caps.vector_unavailable_reason)}"
    yield f"hybrid      {_yes(caps.hybrid, caps.vector_unavailable_reason)}"
    if caps.HasField("embedding_profile"):
        profile = caps.embedding_profile
        yield f"profile     {profile.profile_id} ({profile.dimension} dimensions)"
    yield f"follow      {_yes(caps.change_follow, '')}"
    yield f"extraction  {_yes(caps.candidate_extraction, '')}"
    if caps.candidate_adapters:
        yield f"adapters    {', '.join(caps.candidate_adapters)}"
    if caps.candidate_extractors:
        yield f"extractors  {', '.join(caps.candidate_extractors)}"
    yield f"analyzer    {caps.analyzer}"


def _yes(value: bool, why_not: str) -> str:
    return "yes" if value else ("no" + (f" ({why_not})" if why_not else ""))
