"""The text the client CLI prints for people (cli/views.py, cli/output.py), from messages built
here: texts first, ids only when asked for, and no line printed twice."""

from __future__ import annotations

import argparse
import io
from collections import Counter
from collections.abc import Iterable

import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types
from powercontext_client.cli import memories, output, views
from powercontext_memory.domain.descriptions import derive_description

MEMORY = "mem_art_" + "a" * 32
ENTRY = "mem_ent_" + "b" * 32
OLD, NEW = "mem_ver_" + "1" * 32, "mem_ver_" + "2" * 32


def _version(
    version_id: str, text: str, kind: str = "fact", **fields: object
) -> types.EntryVersion:
    return types.EntryVersion(
        entry_id=ENTRY,
        entry_version_id=version_id,
        kind=kind,
        text=text,
        description=str(fields.pop("description", derive_description(text))),
        **fields,  # type: ignore[arg-type]
    )


def _unique(lines: Iterable[str]) -> list[str]:
    shown = list(lines)
    repeated = [line for line, count in Counter(shown).items() if count > 1]
    assert not repeated, f"printed more than once: {repeated}\n" + "\n".join(shown)
    return shown


@pytest.mark.parametrize(
    "text",
    [
        "Run make test.",
        "  two\nlines\tand  runs of   space ",
        "x" * 199,
        "y" * 200,
        "z " * 150,
        "第一行\u2028第二行\x0b第三行",
        "docs/\r\nsite/",
    ],
)
def test_the_derived_description_is_the_servers(text: str) -> None:
    assert views.derived_description(text) == derive_description(text)
    assert not views.says_more(derive_description(text), text)


def test_a_given_description_is_shown_a_derived_one_is_not() -> None:
    entry = types.ListedEntry(
        kind="preference",
        description="review rule",
        status=types.ENTRY_STATUS_ACTIVE,
        tags=["review"],
        text="Reviews need make check.",
    )
    assert list(views.listed_entry_lines(entry, ids=False)) == [
        "preference  [review]  — review rule",
        "  Reviews need make check.",
    ]
    entry.description = derive_description(entry.text)
    shown = _unique(views.listed_entry_lines(entry, ids=False))
    assert shown == ["preference  [review]", "  Reviews need make check."]


def test_listed_entries_show_their_state_and_a_citation_only_with_ids() -> None:
    entry = types.ListedEntry(
        citation=types.Citation(
            memory_ref=types.ArtifactRef(artifact_id=MEMORY, revision=4),
            entry_id=ENTRY,
            entry_version_id=OLD,
        ),
        kind="fact",
        description="one",
        status=types.ENTRY_STATUS_MERGED,
        merged_into_entry_id="mem_ent_" + "c" * 32,
        text="one\n\ntwo",
    )
    plain = list(views.listed_entry_lines(entry, ids=False, indent="  "))
    assert plain == ["  fact (merged)  — one", "    one", "", "    two"]
    assert not any("mem_" in line for line in plain)
    with_ids = list(views.listed_entry_lines(entry, ids=True))
    assert with_ids[0] == f"fact (merged into mem_ent_{'c' * 32})  — one"
    assert with_ids[-1] == f"  {MEMORY}@4/{ENTRY}/{OLD}"


def _revision(*changes: types.MemoryChange, number: int = 3) -> pb.RevisionChanges:
    return pb.RevisionChanges(
        memory_ref=types.ArtifactRef(artifact_id=MEMORY, revision=number),
        content_hash="f" * 64,
        changes=changes,
        committed_at=Timestamp(seconds=1_800_000_000),
    )


def test_a_revised_text_shows_old_then_new_after_the_arrow() -> None:
    change = types.MemoryChange(
        op=types.CHANGE_OP_REVISE,
        entry_id=ENTRY,
        from_entry_version_id=OLD,
        to_entry_version_id=NEW,
        reason="user_correction",
    )
    revision = _revision(change)
    assert list(views.cited_versions(revision)) == [(2, ENTRY, OLD), (3, ENTRY, NEW)]
    versions = {
        (2, OLD): _version(OLD, "Run make test\nbefore a commit.", tags=["ci"]),
        (3, NEW): _version(NEW, "Run make test\nbefore a push.", kind="decision", tags=["ci"]),
    }
    shown = _unique(views.revision_text_lines(revision, versions, ids=False))
    assert shown == [
        "revision 3  2027-01-15 08:00:00 UTC",
        "  revise      fact → decision  [ci]  (user_correction)",
        "    Run make test",
        "    before a commit.",
        "  → Run make test",
        "    before a push.",
    ]
    with_ids = list(views.revision_text_lines(revision, versions, ids=True))
    assert with_ids[0].endswith(f"{MEMORY}@3  {'f' * 64}")
    assert with_ids[-1] == f"    {ENTRY}  {OLD} -> {NEW}"


def test_an_unchanged_text_is_shown_once() -> None:
    change = types.MemoryChange(
        op=types.CHANGE_OP_REVISE,
        entry_id=ENTRY,
        from_entry_version_id=OLD,
        to_entry_version_id=NEW,
    )
    versions = {
        (2, OLD): _version(OLD, "Same text.", tags=["a"]),
        (3, NEW): _version(NEW, "Same text.", tags=["b"]),
    }
    shown = _unique(views.revision_text_lines(_revision(change), versions, ids=False))
    assert shown[1:] == ["  revise      fact  [a] → [b]", "    Same text."]


def test_a_merged_input_says_so_and_where_only_with_ids() -> None:
    result = "mem_ent_" + "c" * 32
    change = types.MemoryChange(
        op=types.CHANGE_OP_DEACTIVATE,
        entry_id=ENTRY,
        from_entry_version_id=OLD,
        merged_into_entry_id=result,
        reason="same topic",
    )
    versions = {(2, OLD): _version(OLD, "An input.")}
    plain = list(views.change_text_lines(change, versions[2, OLD], None, ids=False))
    assert plain == ["  deactivate  fact  merged  (same topic)", "    An input."]
    with_ids = list(views.change_text_lines(change, versions[2, OLD], None, ids=True))
    assert with_ids[0] == f"  deactivate  fact  merged into {result}  (same topic)"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_ids_are_shown_in_pipes_and_on_request() -> None:
    assert output.Printer("text", _Terminal()).ids(None) is False
    assert output.Printer("text", io.StringIO()).ids(None) is True
    assert output.Printer("text", _Terminal()).ids(True) is True
    assert output.Printer("text", io.StringIO()).ids(False) is False


def _write(
    results: list[tuple[pb.EntryOutcome, str, str]], *changes: types.MemoryChange
) -> pb.RememberResponse:
    return pb.RememberResponse(
        memory=types.ArtifactRef(artifact_id=MEMORY, revision=2),
        changed=bool(changes),
        content_hash="e" * 64,
        changes=changes,
        results=[
            pb.EntryResult(outcome=outcome, entry_id=entry, entry_version_id=version)
            for outcome, entry, version in results
        ],
    )


def test_a_write_names_each_entry_once() -> None:
    other = "mem_ent_" + "d" * 32
    added = types.MemoryChange(op=types.CHANGE_OP_ADD, entry_id=ENTRY, to_entry_version_id=NEW)
    response = _write(
        [(pb.ENTRY_OUTCOME_ADDED, ENTRY, NEW), (pb.ENTRY_OUTCOME_DUPLICATE, other, OLD)], added
    )
    shown = list(output.write_lines(response))
    assert shown == [
        f"{MEMORY}@2  new revision  {'e' * 64}",
        f"  add        {ENTRY}  {NEW}",
        f"  [1] duplicate {other}  {OLD}",
    ]


def test_a_merge_and_a_restore_name_each_entry_once() -> None:
    result = "mem_ent_" + "c" * 32
    merged = pb.MergeResponse(
        memory=types.ArtifactRef(artifact_id=MEMORY, revision=5),
        content_hash="e" * 64,
        changes=[
            types.MemoryChange(
                op=types.CHANGE_OP_DEACTIVATE,
                entry_id=ENTRY,
                from_entry_version_id=OLD,
                merged_into_entry_id=result,
            ),
            types.MemoryChange(op=types.CHANGE_OP_ADD, entry_id=result, to_entry_version_id=NEW),
        ],
        result=types.EntryRef(entry_id=result, entry_version_id=NEW),
    )
    shown = _unique(output.merge_lines(merged))
    assert sum(result in line for line in shown) == 1 and shown[-1].startswith("  result ")

    restored = pb.RestoreResponse(
        memory=types.ArtifactRef(artifact_id=MEMORY, revision=6),
        changed=True,
        content_hash="e" * 64,
        changes=[
            types.MemoryChange(
                op=types.CHANGE_OP_REACTIVATE,
                entry_id=ENTRY,
                to_entry_version_id=OLD,
                reason="need it",
            ),
            types.MemoryChange(
                op=types.CHANGE_OP_DEACTIVATE,
                entry_id=result,
                from_entry_version_id=NEW,
                reason="need it",
            ),
        ],
        outcome=types.RestoreOutcome(
            restored=[types.EntryRef(entry_id=ENTRY, entry_version_id=OLD)],
            retired=[types.EntryRef(entry_id=result, entry_version_id=NEW)],
            undone_merge_results=[result],
        ),
    )
    shown = list(output.restore_lines(restored))
    assert shown[1:3] == [
        f"  restored   {ENTRY}  {OLD}  (need it)",
        f"  retired    {result}  {NEW}  (need it)",
    ]
    assert sum(ENTRY in line for line in shown) == 1


class _Memories:
    """A client whose ListMemories serves `count` memories in pages, and whose SetMemoryLabel
    records what it was sent."""

    def __init__(self, count: int, label_version: int = 0) -> None:
        self.summaries = [
            pb.MemorySummary(
                head=types.ArtifactRef(artifact_id=f"mem_art_{n:032d}", revision=n + 1),
                active_entries=n,
                label=f"memory {n}" if n % 2 else "",
                label_version=label_version if n % 2 else 0,
                last_operation="remember",
                changed_at=Timestamp(seconds=1_800_000_000),
            )
            for n in range(count)
        ]
        self.pages: list[int] = []
        self.sent: list[tuple[str, str, int]] = []

    async def list_memories(
        self, *, page_size: int = 0, page_token: str = ""
    ) -> pb.ListMemoriesResponse:
        start = int(page_token or 0)
        size = page_size or 50
        self.pages.append(size)
        end = start + size
        token = str(end) if end < len(self.summaries) else ""
        return pb.ListMemoriesResponse(memories=self.summaries[start:end], next_page_token=token)

    async def set_memory_label(
        self, memory_id: str, label: str, label_version: int
    ) -> pb.SetMemoryLabelResponse:
        self.sent.append((memory_id, label, label_version))
        return pb.SetMemoryLabelResponse(
            memory_id=memory_id, label=label, label_version=label_version + 1
        )


def _args(**values: object) -> argparse.Namespace:
    return argparse.Namespace(**values)


async def test_memories_pages_through_every_memory_or_stops_at_the_limit() -> None:
    client = _Memories(230)
    stream = io.StringIO()
    await memories.memories(client, _args(limit=0), output.Printer("text", stream))  # type: ignore[arg-type]
    lines = _unique(stream.getvalue().splitlines())
    assert client.pages == [100, 100, 100] and len(lines) == 230
    when = "2027-01-15 08:00:00 UTC"
    assert lines[:2] == [
        f"mem_art_{0:032d}  revision 1  0 active  0 inactive  remember {when}",
        f"mem_art_{1:032d}  revision 2  1 active  0 inactive  remember {when}  — memory 1",
    ]

    client, stream = _Memories(230), io.StringIO()
    await memories.memories(client, _args(limit=150), output.Printer("text", stream))  # type: ignore[arg-type]
    lines = stream.getvalue().splitlines()
    assert client.pages == [100, 50] and len(lines) == 150 + 1
    assert lines[-1] == "more memories: --limit 150 stopped the listing (0: all)"

    client, stream = _Memories(0), io.StringIO()
    await memories.memories(client, _args(limit=0), output.Printer("text", stream))  # type: ignore[arg-type]
    assert stream.getvalue() == "no memories\n"


async def test_label_sets_the_version_listed_now_unless_one_is_given() -> None:
    client = _Memories(230, label_version=4)
    printer = output.Printer("text", io.StringIO())
    wanted = f"mem_art_{151:032d}"
    await memories.label(client, _args(memory_id=wanted, label="x", label_version=None), printer)  # type: ignore[arg-type]
    assert client.sent == [(wanted, "x", 4)] and len(client.pages) == 2
    missing = "mem_art_" + "0" * 31 + "a"  # sorts between two listed ids: not on later pages
    await memories.label(client, _args(memory_id=missing, label="", label_version=None), printer)  # type: ignore[arg-type]
    assert client.sent[-1] == (missing, "", 0) and len(client.pages) == 3
    await memories.label(client, _args(memory_id=wanted, label="y", label_version=9), printer)  # type: ignore[arg-type]
    assert client.sent[-1] == (wanted, "y", 9) and len(client.pages) == 3
    assert list(memories.label_lines(pb.SetMemoryLabelResponse(memory_id=wanted))) == [
        f"{wanted}  label cleared  (version 0)"
    ]
