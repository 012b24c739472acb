"""The listing tools: recall_manifest (what the memory holds, as citations with kind,
description and tags — never the text: pick what to read, then expand_citation) and
list_entries (the same filtered by status, with the text on request). One page per call; the
next page is asked with `page_token`, the same memory and the same filters (the server refuses
a token used with other filters: PAGE_TOKEN_MISMATCH)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from mcp_types import CallToolResult
from pydantic import BaseModel, Field

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types

from ..cli.commands import TAG_MATCHES
from ..cli.output import STATUSES
from ..cli.refs import format_memory
from . import results
from .tools import MemoryArg, guarded

if TYPE_CHECKING:
    from .tools import Tools

_STATUS_NAMES = {number: name for name, number in STATUSES.items()}

Kinds = Annotated[
    list[str] | None, Field(description="only entries of these kinds (fact, decision, ...)")
]
Tags = Annotated[list[str] | None, Field(description="only entries carrying these tags")]
TagMatchArg = Annotated[
    Literal["all", "any"], Field(description="all: every tag named; any: at least one")
]
PageSize = Annotated[int, Field(ge=1, le=100, description="entries per page")]
PageToken = Annotated[
    str | None,
    Field(description="next_page_token of the previous page (same memory and filters)"),
]


class Listed(BaseModel):
    citation: str = Field(description="MEMORY@REVISION/ENTRY_ID/VERSION_ID, for expand_citation")
    entry_id: str
    entry_version_id: str
    kind: str
    description: str = Field(description="one line about the entry")
    tags: list[str]
    status: str = Field(description="active, inactive or merged")
    merged_into: str | None = Field(description="merged: the entry it was merged into")
    text: str | None = Field(default=None, description="list_entries with include_text only")


class ManifestResult(BaseModel):
    memory: str = Field(description="the memory read, at the revision read")
    empty_memory: bool = Field(description="true when the memory has no active entries at all")
    items: list[Listed]
    next_page_token: str = Field(description="empty on the last page")


class ListResult(BaseModel):
    memory: str = Field(description="the memory read, at the revision read")
    entries: list[Listed]
    next_page_token: str = Field(description="empty on the last page")


def listed(entry: types.ListedEntry, *, with_text: bool = False) -> Listed:
    cited = entry.citation
    return Listed(
        citation=results.cite(cited),
        entry_id=cited.entry_id,
        entry_version_id=cited.entry_version_id,
        kind=entry.kind,
        description=entry.description,
        tags=list(entry.tags),
        status=_STATUS_NAMES.get(entry.status, "unspecified"),
        merged_into=entry.merged_into_entry_id or None,
        text=entry.text if with_text else None,
    )


def _entries(count: int) -> str:
    return f"{count} entr{'y' if count == 1 else 'ies'}"


def listed_text(head: str, entries: list[Listed], next_page_token: str) -> str:
    lines = [head]
    for e in entries:
        tags = f" [{', '.join(e.tags)}]" if e.tags else ""
        merged = f" into {e.merged_into}" if e.merged_into else ""
        lines.append(f"- ({e.status}{merged}) [{e.kind}]{tags} {e.description}")
        if e.text is not None:
            lines.append(f"  text: {e.text}")
        lines.append(f"  cite {e.citation}")
    if next_page_token:
        lines.append(f"more: call again with page_token={next_page_token}")
    return "\n".join(lines)


class Listing:
    def __init__(self, tools: Tools) -> None:
        self.tools = tools

    @guarded
    async def recall_manifest(
        self,
        memory: MemoryArg = None,
        kinds: Kinds = None,
        tags: Tags = None,
        tag_match: TagMatchArg = "all",
        page_size: PageSize = 50,
        page_token: PageToken = None,
    ) -> Annotated[CallToolResult, ManifestResult]:
        """What the memory holds, without the texts: each active entry's citation, kind,
        one-line description and tags, a page at a time by entry id. Choose what is relevant,
        then read it with expand_citation."""
        page = await self.tools.client.get_recall_manifest(
            self.tools._memory(memory),
            page_size=page_size,
            page_token=page_token or "",
            kinds=kinds or (),
            tags=tags or (),
            tag_match=TAG_MATCHES[tag_match],
        )
        found = ManifestResult(
            memory=format_memory(page.memory),
            empty_memory=page.code == pb.RECALL_MANIFEST_CODE_EMPTY_MEMORY,
            items=[listed(item) for item in page.items],
            next_page_token=page.next_page_token,
        )
        head = (
            f"{found.memory} has no active entries"
            if found.empty_memory
            else f"{_entries(len(found.items))} of {found.memory}"
        )
        return results.tool_result(found, listed_text(head, found.items, found.next_page_token))

    @guarded
    async def list_entries(
        self,
        memory: MemoryArg = None,
        statuses: Annotated[
            list[Literal["active", "inactive", "merged"]] | None,
            Field(description="which entries (default: active only)"),
        ] = None,
        kinds: Kinds = None,
        tags: Tags = None,
        tag_match: TagMatchArg = "all",
        include_text: Annotated[bool, Field(description="also return each entry's text")] = False,
        page_size: PageSize = 50,
        page_token: PageToken = None,
    ) -> Annotated[CallToolResult, ListResult]:
        """The memory's entries filtered by status (active, inactive = forgotten, merged =
        folded into another entry), kind and tags, a page at a time by entry id."""
        page = await self.tools.client.list_entries(
            self.tools._memory(memory),
            page_size=page_size,
            page_token=page_token or "",
            statuses=[STATUSES[status] for status in statuses or ()],
            kinds=kinds or (),
            tags=tags or (),
            tag_match=TAG_MATCHES[tag_match],
            include_text=include_text,
        )
        found = ListResult(
            memory=format_memory(page.memory),
            entries=[listed(entry, with_text=include_text) for entry in page.entries],
            next_page_token=page.next_page_token,
        )
        head = f"{_entries(len(found.entries))} of {found.memory}"
        return results.tool_result(found, listed_text(head, found.entries, found.next_page_token))
