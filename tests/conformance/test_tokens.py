"""Words every engine must find: short ones, stopwords, very long ones, CJK, accents."""

from __future__ import annotations

import pytest

from powercontext_memory.memory import MemoryService, SearchMode

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
