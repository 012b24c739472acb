"""Words every engine must find: short ones, stopwords, very long ones, CJK, accents."""

from __future__ import annotations

import pytest

from powercontext_memory.api import SearchMode
from powercontext_memory.memory import MemoryService

from .helpers import create, ref

LONG = "supercalifragilistic" * 5  # 100 letters: past the SPACE parser's 84
ACCENTED = "é" * 41  # exactly at the parser's byte limit once prefixed

TEXTS = [
    "Go to the UI folder",
    f"The word {LONG} is long",
    "A db is a database",
    "配置文件在 config 目录",
    f"accents {ACCENTED} here",
]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("go", 0),
        ("ui", 0),
        ("the", 0),  # a stopword to MySQL full text, a word to us
        ("a", 2),
        ("db", 2),
        (LONG, 1),
        ("配置", 3),
        (ACCENTED, 4),
    ],
)
async def test_every_token_is_searchable(service: MemoryService, query: str, expected: int) -> None:
    memory = ref(await create(service, *TEXTS))
    hits = (await service.search(query, [memory], 8, SearchMode.FTS)).hits
    assert TEXTS[expected] in [h.text for h in hits]
    assert all(h.text in TEXTS for h in hits)


async def test_the_largest_cjk_entry_is_stored_and_found(service: MemoryService) -> None:
    """8 KiB of CJK is the longest analyzer text (unigrams + bigrams): it must fit the
    projection's text columns on every backend, and stay searchable."""
    from powercontext_memory.domain.validation import MAX_TEXT_BYTES

    text = ("数据库迁移在部署时运行" * 300).encode()[: MAX_TEXT_BYTES - MAX_TEXT_BYTES % 3].decode()
    memory = ref(await create(service, text, "unrelated english note"))
    hits = (await service.search("部署", [memory], 8, SearchMode.FTS)).hits
    assert [h.text for h in hits] == [text]
