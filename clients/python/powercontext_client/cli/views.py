"""What `get`, `list` and `changes` print for people: what was remembered, text first.

An entry is a heading — its kind, its state when not active, its tags, and its description when
that says more than the text — followed by its text, indented. A change names its operation,
the entry's heading, the reason, and the text: a revised text as the old lines, then the new
ones after "→". Entry and version ids, hashes and citations are added only when asked for
(`ids`); without them nothing is printed twice (a description derived from the text would
repeat it, an unchanged text would appear before and after the arrow).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence

from google.protobuf.timestamp_pb2 import Timestamp

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types

from .refs import format_citation, format_memory

INDENT = "  "
ARROW = "→ "  # marks the new text of a revised entry; as wide as INDENT in a terminal
# The server's rule for a derived description (a line of at most 200 code points).
MAX_DESCRIPTION = 200
ELLIPSIS = "…"
_LINE_BREAKING = frozenset({"Cc", "Zl", "Zp"})
# The key of an entry version's text: the revision it is cited at, and the version id.
VersionKey = tuple[int, str]


def derived_description(text: str) -> str:
    """The description the server derives from a text when none is given: line breaks and
    whitespace runs become one space, and a longer line is cut to 199 code points and "…"."""
    visible = "".join(" " if unicodedata.category(c) in _LINE_BREAKING else c for c in text)
    collapsed = " ".join(visible.split())
    if len(collapsed) <= MAX_DESCRIPTION:
        return collapsed
    return collapsed[: MAX_DESCRIPTION - 1] + ELLIPSIS


def says_more(description: str, text: str) -> bool:
    """Whether a description is worth showing next to its text: a derived one repeats it."""
    return bool(description) and description != derived_description(text)


def timestamp(value: Timestamp) -> str:
    if not (value.seconds or value.nanos):
        return ""
    return value.ToDatetime().strftime("%Y-%m-%d %H:%M:%S UTC")


def text_lines(text: str, indent: str = INDENT * 2, first: str | None = None) -> Iterator[str]:
    """The text's lines under `indent` (the first one under `first`, when given)."""
    for number, line in enumerate(text.splitlines() or [""]):
        lead = first if number == 0 and first is not None else indent
        yield (lead + line).rstrip()


def tags_part(tags: Iterable[str]) -> str:
    listed = ", ".join(tags)
    return f"  [{listed}]" if listed else ""


def about_part(description: str, text: str) -> str:
    return f"  — {description}" if says_more(description, text) else ""


def _cite(cited: types.Citation) -> str:
    return format_citation(cited.memory_ref, cited.entry_id, cited.entry_version_id)


# -- entries (get, list) ------------------------------------------------------------------------


def listed_entry_lines(entry: types.ListedEntry, ids: bool, indent: str = "") -> Iterator[str]:
    """One listed entry: its heading, its text (its description when the text was not sent),
    and with `ids` its citation."""
    state = ""
    if entry.status == types.ENTRY_STATUS_INACTIVE:
        state = " (inactive)"
    elif entry.status == types.ENTRY_STATUS_MERGED:
        into = f" into {entry.merged_into_entry_id}" if ids and entry.merged_into_entry_id else ""
        state = f" (merged{into})"
    about = about_part(entry.description, entry.text) if entry.text else ""
    yield f"{indent}{entry.kind}{state}{tags_part(entry.tags)}{about}"
    yield from text_lines(entry.text or entry.description, indent + INDENT)
    if ids:
        yield f"{indent}{INDENT}{_cite(entry.citation)}"


def memory_view_lines(
    view: pb.GetMemoryResponse, entries: Sequence[types.ListedEntry], ids: bool
) -> Iterator[str]:
    """`get MEMORY`: the revision read, then its entries (active first), each with its text."""
    head = "head" if view.memory.revision == view.head_revision else f"head is {view.head_revision}"
    yield f"memory    {format_memory(view.memory)} ({head})"
    when = timestamp(view.committed_at)
    if when:
        yield f"committed {when}"
    if ids:
        yield f"hash      {view.content_hash}"
    sources = len(view.lineage.sources) + len(view.lineage.artifacts)
    yield f"lineage   {view.lineage.operation}, {sources} evidence reference(s)"
    yield f"entries   {view.active_entries} active, {view.inactive_entries} inactive"
    if view.content_omitted:
        yield "manifest  omitted (page the entries with `powercontext list`)"
        return
    ordered = sorted(entries, key=lambda entry: entry.status != types.ENTRY_STATUS_ACTIVE)
    for entry in ordered:
        yield from listed_entry_lines(entry, ids, INDENT)


def expanded_entry_lines(item: pb.ExpandedEntry, ids: bool) -> Iterator[str]:
    """`get MEMORY ENTRY`: the entry's version there, its text, and with `ids` its citation,
    hash, previous version and evidence."""
    version = item.version
    state = "" if item.state == types.ENTRY_STATE_ACTIVE else " (inactive)"
    about = about_part(version.description, version.text)
    yield f"{version.kind}  version {version.version}{state}{tags_part(version.tags)}{about}"
    yield from text_lines(version.text, INDENT)
    if not ids:
        return
    yield f"{INDENT}cited    {_cite(item.citation)}"
    yield f"{INDENT}hash     {version.entry_content_hash}"
    if version.HasField("previous_version_id"):
        yield f"{INDENT}previous {version.previous_version_id}"
    for source in version.source_refs:
        yield f"{INDENT}source   {source.source_id}"
    for artifact in version.artifact_refs:
        yield f"{INDENT}artifact {format_memory(artifact)}"


# -- changes ------------------------------------------------------------------------------------


def cited_versions(revision: pb.RevisionChanges) -> Iterator[tuple[int, str, str]]:
    """(revision, entry id, version id) of each version a revision's changes name: a change
    turns revision N-1 into N, so the version it starts from is in N-1, the one it makes in N."""
    number = revision.memory_ref.revision
    for change in revision.changes:
        if change.HasField("from_entry_version_id"):
            yield number - 1, change.entry_id, change.from_entry_version_id
        if change.HasField("to_entry_version_id"):
            yield number, change.entry_id, change.to_entry_version_id


def revision_text_lines(
    revision: pb.RevisionChanges, versions: Mapping[VersionKey, types.EntryVersion], ids: bool
) -> Iterator[str]:
    number = revision.memory_ref.revision
    heading = f"revision {number}"
    when = timestamp(revision.committed_at)
    if when:
        heading += f"  {when}"
    if ids:
        heading += f"  {format_memory(revision.memory_ref)}  {revision.content_hash}"
    yield heading
    for change in revision.changes:
        before = after = None
        if change.HasField("from_entry_version_id"):
            before = versions.get((number - 1, change.from_entry_version_id))
        if change.HasField("to_entry_version_id"):
            after = versions.get((number, change.to_entry_version_id))
        yield from change_text_lines(change, before, after, ids)


def change_text_lines(
    change: types.MemoryChange,
    before: types.EntryVersion | None,
    after: types.EntryVersion | None,
    ids: bool,
) -> Iterator[str]:
    op = _op_name(change.op)
    merged = ""
    if change.HasField("merged_into_entry_id"):
        merged = f"  merged into {change.merged_into_entry_id}" if ids else "  merged"
    reason = f"  ({change.reason})" if change.HasField("reason") else ""
    yield f"{INDENT}{op:<10}  {_heading(before, after)}{merged}{reason}".rstrip()
    if before is not None and after is not None and before.text != after.text:
        yield from text_lines(before.text)
        yield from text_lines(after.text, first=INDENT + ARROW)
    elif after is not None or before is not None:
        yield from text_lines((after or before).text)  # type: ignore[union-attr]
    if ids:
        old = change.from_entry_version_id if change.HasField("from_entry_version_id") else ""
        new = change.to_entry_version_id if change.HasField("to_entry_version_id") else ""
        shown = f"{old} -> {new}" if old and new else old or new
        yield f"{INDENT * 2}{change.entry_id}  {shown}"


def _op_name(op: int) -> str:
    """CHANGE_OP_REVISE -> "revise" (the number, for an op this client does not know)."""
    name = types.ChangeOp.Name(op) if op in types.ChangeOp.values() else str(op)
    return name.removeprefix("CHANGE_OP_").lower()


def _heading(before: types.EntryVersion | None, after: types.EntryVersion | None) -> str:
    """Kind, tags and description of the version a change shows; what a revision changed of
    the kind and the tags as old → new."""
    shown = after or before
    if shown is None:  # not read (should not happen): the ids line still names it
        return ""
    kind, tags = shown.kind, tags_part(shown.tags)
    if before is not None and after is not None:
        if before.kind != after.kind:
            kind = f"{before.kind} → {after.kind}"
        if list(before.tags) != list(after.tags):
            tags = f"  [{', '.join(before.tags)}] → [{', '.join(after.tags)}]"
    return f"{kind}{tags}{about_part(shown.description, shown.text)}"
