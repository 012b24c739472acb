"""Labels on the export/import source (transfer_data.py), and how a database shows them."""

from __future__ import annotations

from pathlib import Path

from powercontext_memory.app import open_service
from powercontext_memory.backends.port import MemoryLabelRow
from powercontext_memory.memory import MemoryService

from .transfer_data import CITED, CITING

# CITED: set, cleared, set again (three versions); CITING: one label.
LABELS = {
    CITED: ["Release rules", "", "Release and validation rules"],
    CITING: ["团队的 validation"],
}
LABEL_COUNT = sum(len(labels) for labels in LABELS.values())


async def set_labels(path: Path | str) -> None:
    """Set LABELS on the database at `path`, each naming the version it replaces."""
    service = await open_service(path)
    try:
        for memory, labels in LABELS.items():
            for replaces, label in enumerate(labels):
                stored = await service.set_memory_label(memory, label, replaces)
                assert (stored.label, stored.label_version) == (label, replaces + 1)
    finally:
        await service.close()


async def label_histories(service: MemoryService) -> dict[str, list[MemoryLabelRow]]:
    """Every label version of every memory that has one."""
    async with service.backend.read() as session:
        histories = {
            memory: await session.tx.memory_label_history(memory)
            for memory in await session.tx.artifact_ids()
        }
    return {memory: rows for memory, rows in histories.items() if rows}


async def histories_of(path: Path | str) -> dict[str, list[MemoryLabelRow]]:
    service = await open_service(path)
    try:
        return await label_histories(service)
    finally:
        await service.close()


async def listed_labels(service: MemoryService) -> dict[str, tuple[str, int]]:
    """(label, label_version) of each memory as ListMemories shows it."""
    page = await service.list_memories(100, "")
    assert not page.next_page_token
    return {m.head.artifact_id: (m.label, m.label_version) for m in page.memories}
