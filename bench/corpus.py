"""Deterministic synthetic memory text: Zipf-distributed words, some Chinese, like real notes."""

from __future__ import annotations

import random

_SYLLABLES = [
    "ba",
    "ko",
    "ri",
    "tes",
    "mon",
    "dal",
    "ver",
    "pix",
    "lu",
    "gra",
    "sen",
    "tor",
    "nel",
    "qua",
    "fi",
    "zon",
    "mer",
    "cat",
    "hul",
    "den",
]
_TECH = [
    "make",
    "test",
    "build",
    "deploy",
    "docs",
    "lint",
    "cache",
    "schema",
    "migrate",
    "python",
    "grpc",
    "sqlite",
    "index",
    "release",
    "branch",
    "review",
    "config",
    "token",
]
_CHINESE = [
    "验证约定",
    "构建",
    "文档",
    "发布流程",
    "依赖管理",
    "数据库迁移",
    "代码评审",
    "缓存策略",
]


class Corpus:
    def __init__(self, rng: random.Random, vocabulary: int = 4000) -> None:
        self._rng = rng
        words = set(_TECH)
        while len(words) < vocabulary:
            words.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))))
        self._words = sorted(words)
        rng.shuffle(self._words)
        # Zipf weights: a few words are common, most are rare (as in real text).
        self._weights = [1.0 / (rank + 1) for rank in range(len(self._words))]
        self._serial = 0

    def _pick(self, n: int) -> list[str]:
        return self._rng.choices(self._words, self._weights, k=n)

    def sentence(self) -> str:
        self._serial += 1
        words = self._pick(self._rng.randint(8, 18))
        if self._rng.random() < 0.2:
            words.insert(self._rng.randrange(len(words)), self._rng.choice(_CHINESE))
        return " ".join(words) + f" (note {self._serial})."

    def queries(self, n: int) -> list[str]:
        out = []
        for i in range(n):
            if i % 10 == 9:
                out.append(self._rng.choice(_CHINESE) + "需要注意什么？")
            else:
                out.append(" ".join(self._pick(self._rng.randint(2, 4))))
        return out
