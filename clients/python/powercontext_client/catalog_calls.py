"""ListMemories and SetMemoryLabel: the memories this client may see, and their labels."""

from __future__ import annotations

from collections.abc import AsyncIterator

from powercontext.memory.v1 import memory_service_pb2 as pb

from .call_core import _UNSET, CallCore


class CatalogCalls(CallCore):
    async def list_memories(
        self, *, page_size: int = 0, page_token: str = "", timeout: float | None = _UNSET
    ) -> pb.ListMemoriesResponse:
        """One page of the memories this client's token may see, in artifact id order: each
        with its head, entry counts, newest change and label."""
        request = pb.ListMemoriesRequest(page_size=page_size, page_token=page_token)
        return await self._call(self.stub.ListMemories, request, timeout=timeout, read=True)

    async def list_memories_items(
        self, *, page_size: int = 0, timeout: float | None = _UNSET
    ) -> AsyncIterator[pb.MemorySummary]:
        """Every memory list_memories() shows, page after page."""
        token = ""
        while True:
            page = await self.list_memories(page_size=page_size, page_token=token, timeout=timeout)
            for memory in page.memories:
                yield memory
            token = page.next_page_token
            if not token:
                return

    async def set_memory_label(
        self,
        memory_id: str,
        label: str,
        label_version: int,
        *,
        timeout: float | None = _UNSET,
    ) -> pb.SetMemoryLabelResponse:
        """Set (empty: clear) the memory's label, replacing `label_version` (0: none yet;
        the current one is in list_memories()). A stale version raises Aborted
        (LABEL_CONFLICT) and changes nothing; the same text again changes nothing."""
        request = pb.SetMemoryLabelRequest(
            memory_id=memory_id, label=label, label_version=label_version
        )
        return await self._call(self.stub.SetMemoryLabel, request, timeout=timeout, read=False)
