"""Small builders shared by the conformance tests."""

from __future__ import annotations

import asyncio
from pathlib import Path

from powercontext_memory.api import EntryInput, WriteResult
from powercontext_memory.app import open_service
from powercontext_memory.domain.lifecycle import EntryRef
from powercontext_memory.domain.models import ArtifactRef, Citation, EntryVersion, SourceRef
from powercontext_memory.memory import MemoryService


async def put_source(service: MemoryService, name: str, text: str | None = None) -> SourceRef:
    source, _ = await service.put_source(
        "file", f"repo://{name}", "text/plain", (text or f"contents of {name}").encode(), {}
    )
    return source.ref


def add(
    text: str, kind: str = "fact", sources: tuple[SourceRef, ...] = (), reason: str | None = None
) -> EntryInput:
    return EntryInput(None, kind, text, sources, (), reason)


def revise(
    ref: EntryRef,
    text: str,
    kind: str = "fact",
    sources: tuple[SourceRef, ...] = (),
    reason: str | None = None,
) -> EntryInput:
    return EntryInput(ref, kind, text, sources, (), reason)


def entry_ref(result: WriteResult, index: int) -> EntryRef:
    r = result.results[index]
    return EntryRef(r.entry_id, r.entry_version_id)


async def create(service: MemoryService, *texts: str) -> WriteResult:
    src = await put_source(service, "notes.md")
    result = await service.remember(None, [src], [], [add(t, sources=(src,)) for t in texts])
    assert result.memory is not None
    return result


def ref(result: WriteResult) -> ArtifactRef:
    assert result.memory is not None
    return result.memory


class WorkedExample:
    """docs/walkthrough.md's example: three entries (r1), revise validation (r2), deactivate
    site/ (r3)."""

    def __init__(self) -> None:
        self.r1: WriteResult
        self.r2: WriteResult
        self.r3: WriteResult
        self.build = EntryRef("", "")
        self.validation = EntryRef("", "")
        self.site = EntryRef("", "")
        self.validation_v2 = EntryRef("", "")

    async def run(self, service: MemoryService) -> WorkedExample:
        outcome = await put_source(service, "task_outcome_001", "task: confirm repo conventions")
        agents = await put_source(service, "AGENTS.md", "uv, hatchling, make test, make check")
        pyproject = await put_source(service, "pyproject.toml", "[build-system] hatchling")
        makefile = await put_source(service, "Makefile", "test:\ncheck:\ndocs-test:")
        note = await put_source(
            service, "user_note", "改文档时不用跑完整 make test，优先跑 make docs-test。"
        )
        self.r1 = await service.remember(
            None,
            [outcome, agents, pyproject, makefile],
            [],
            [
                add(
                    "powercontext 使用 uv 管理依赖并使用 Hatchling 构建。",
                    "fact",
                    (agents, pyproject),
                ),
                add(
                    "验证约定：常规代码变更运行 make test；评审前运行 make check。",
                    "preference",
                    (agents, makefile),
                ),
                add("site/ 是生成输出，不作为源材料修改。", "constraint", (agents,)),
            ],
        )
        self.build, self.validation, self.site = (entry_ref(self.r1, i) for i in range(3))
        self.r2 = await service.remember(
            ref(self.r1),
            [note],
            [],
            [
                revise(
                    self.validation,
                    "验证约定：常规代码变更运行 make test；仅文档变更优先运行 make docs-test；"
                    "评审前运行 make check。",
                    "preference",
                    (note,),
                    reason="user_correction",
                )
            ],
        )
        self.validation_v2 = entry_ref(self.r2, 0)
        self.r3 = await service.forget(ref(self.r2), [self.site], "user_requested")
        return self


async def expand_version(
    service: MemoryService, memory: ArtifactRef, entry: EntryRef
) -> EntryVersion:
    [expanded] = await service.expand([Citation(memory, entry.entry_id, entry.entry_version_id)])
    return expanded.version


def write_worked_example(path: Path) -> None:
    """A SQLite file holding the worked example (docs/walkthrough.md), for offline commands."""

    async def build() -> None:
        service = await open_service(path)
        try:
            await WorkedExample().run(service)
        finally:
            await service.close()

    asyncio.run(build())
