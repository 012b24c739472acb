"""ListMemories and SetMemoryLabel: the memories a caller may see, and the labels people give
them.

A page lists memories in artifact id order after the token's id; a token limited to some
memories lists only those (the others are not counted, named or hinted at). Counts come from
each head revision as read and verified (the revision cache keeps this cheap on repeat).
Page tokens are signed and bound to the caller and its memory list, so one caller's token
neither works for another nor reveals where another's listing stands.
"""

from __future__ import annotations

import time

from .api import MemoryLabel, MemoryPage, MemorySummary
from .backends.database import DatabaseMemoryBackend
from .domain import validation
from .domain.canonical import canonical_json, nfc, sha256_hex
from .domain.descriptions import description_problem
from .domain.errors import InvalidArgumentError
from .domain.models import ArtifactRef
from .secret_refusal import refuse_secret
from .security.caller import current_caller
from .security.signing import PAGE, TokenSigner

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 100
LIST_MEMORIES = "memories"
PAGE_TOKEN_FIELD = "page_token"
LABEL_FIELD = "label"


def _page_size(value: int) -> int:
    size = value or DEFAULT_PAGE_SIZE
    if not 1 <= size <= MAX_PAGE_SIZE:
        raise InvalidArgumentError(
            "page_size", f"must be 1 to {MAX_PAGE_SIZE} (0: {DEFAULT_PAGE_SIZE})"
        )
    return size


def _fingerprint() -> str:
    caller = current_caller()
    return sha256_hex(canonical_json({"caller": caller.key, "memories": list(caller.memories)}))


def _after(signer: TokenSigner, token: str) -> str:
    if not token:
        return ""
    payload = signer.verify(PAGE, token, PAGE_TOKEN_FIELD)
    after = payload.get("after")
    if payload.get("op") != LIST_MEMORIES or not isinstance(after, str):
        raise InvalidArgumentError(
            PAGE_TOKEN_FIELD,
            "this token belongs to another listing: use it only with the request it came from",
            reason="PAGE_TOKEN_MISMATCH",
        )
    if payload.get("fp") != _fingerprint():
        raise InvalidArgumentError(
            PAGE_TOKEN_FIELD,
            "this token belongs to another caller's listing",
            reason="PAGE_TOKEN_MISMATCH",
        )
    return after


def normalize_label(value: str) -> str:
    """NFC and trimmed; empty clears; else one line of at most 200 code points."""
    label = nfc(value).strip()
    if label:
        problem = description_problem(label)
        if problem is not None:
            raise InvalidArgumentError(LABEL_FIELD, problem, reason="LABEL_INVALID")
        refuse_secret(LABEL_FIELD, label)
    return label


class MemoryCatalog:
    def __init__(self, backend: DatabaseMemoryBackend, signer: TokenSigner) -> None:
        self.backend = backend
        self.signer = signer

    async def list_memories(self, page_size: int, page_token: str) -> MemoryPage:
        size = _page_size(page_size)
        after = _after(self.signer, page_token)
        within = current_caller().memories or None
        async with self.backend.read() as session:
            # One more than the page: whether a next page exists without a token to nowhere.
            rows = await session.tx.memory_head_rows(after, size + 1, within)
            more = len(rows) > size
            rows = rows[:size]
            labels = {
                r.memory_artifact_id: r
                for r in await session.tx.memory_label_rows([r.artifact_id for r in rows])
            }
            summaries = []
            for row in rows:
                revision = await session.revision(ArtifactRef(row.artifact_id, row.revision))
                content = revision.content
                label = labels.get(row.artifact_id)
                summaries.append(
                    MemorySummary(
                        head=revision.ref,
                        active_entries=content.active_count,
                        inactive_entries=content.entry_count - content.active_count,
                        created_at_ms=row.created_at_ms,
                        changed_at_ms=revision.committed_at_ms,
                        last_operation=revision.lineage.operation,
                        label=label.label if label else "",
                        label_version=label.label_version if label else 0,
                    )
                )
        token = ""
        if more:
            token = self.signer.sign(
                PAGE, {"op": LIST_MEMORIES, "after": rows[-1].artifact_id, "fp": _fingerprint()}
            )
        return MemoryPage(summaries, token)

    async def set_memory_label(self, memory_id: str, label: str, label_version: int) -> MemoryLabel:
        validation.require_id("memory_id", memory_id)
        if label_version < 0:
            raise InvalidArgumentError("label_version", "must be 0 or more")
        text = normalize_label(label)
        row = await self.backend.set_memory_label(
            memory_id, text, label_version, time.time_ns() // 1_000_000
        )
        return MemoryLabel(row.memory_artifact_id, row.label, row.label_version, row.set_at_ms)
