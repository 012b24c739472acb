"""search/text_index.py against the domain's own ranking (fts_rank.admit_and_order) over a
window holding every live document: the same keys in the same order, and the same score
bits, through additions, revisions, removals, compactions, filters and several memories."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from powercontext_memory.backends.port import HeadCondition, HeadProjectionRow
from powercontext_memory.domain import analyzer, fts_rank, fusion
from powercontext_memory.domain.descriptions import delimited_tags, tag_needle
from powercontext_memory.search import text_index
from powercontext_memory.search.text_index import MemoryText

WORDS = ["make", "test", "build", "docs", "lint", "cache", "schema", "grpc", "uv", "ci"]
KINDS = ["fact", "decision", "preference"]
TAGS = ["api", "ci", "é", "e\u0301"]  # composed and decomposed forms are different tags


class Docs:
    """Live documents of one memory, mirrored in a MemoryText."""

    def __init__(self, artifact_id: str, rng: random.Random) -> None:
        self.artifact_id = artifact_id
        self.rng = rng
        self.index = MemoryText(artifact_id, 1)
        self.rows: dict[str, HeadProjectionRow] = {}
        self.serial = 0

    def row(self, entry_id: str) -> HeadProjectionRow:
        self.serial += 1
        words = self.rng.choices(WORDS, k=self.rng.randint(0, 9))
        if self.rng.random() < 0.2:
            words.append("中文")
        text = analyzer.searchable_text(" ".join(words)) if words else ""
        tags = sorted(set(self.rng.sample(TAGS, self.rng.randint(0, 2))))
        return HeadProjectionRow(
            self.artifact_id,
            entry_id,
            f"mem_ver_{self.serial:032x}",
            f"{self.serial:064x}",
            text,
            kind=self.rng.choice(KINDS),
            tags=delimited_tags(tags),
        )

    def put(self, entry_id: str) -> None:
        row = self.rows[entry_id] = self.row(entry_id)
        self.index.put(row)

    def remove(self, entry_id: str) -> None:
        self.rows.pop(entry_id, None)
        self.index.remove(entry_id)

    def churn(self, steps: int) -> None:
        for _ in range(steps):
            entry_id = f"mem_ent_{self.rng.randrange(400):032x}"
            if entry_id in self.rows and self.rng.random() < 0.4:
                self.remove(entry_id)
            else:
                self.put(entry_id)  # add, or revise (a new version replaces the old)


def reference(
    memories: Sequence[Docs], terms: Sequence[str], pool: int, condition: HeadCondition | None
) -> list[fusion.HitKey]:
    window = []
    for docs in memories:
        for row in docs.rows.values():
            if condition is not None:
                if condition.kinds and row.kind not in condition.kinds:
                    continue
                found = [n in row.tags for n in condition.tag_needles]
                if found and not (all(found) if condition.all_tags else any(found)):
                    continue
            key = fusion.HitKey(row.memory_artifact_id, row.entry_id, row.entry_version_id)
            window.append((key, row.searchable_text))
    return fts_rank.admit_and_order(terms, window, pool)


def queries(rng: random.Random) -> list[list[str]]:
    out = [["zzz-absent"], ["中文"]]
    for _ in range(40):
        text = " ".join(rng.sample([*WORDS, "中文"], rng.randint(1, 5)))
        out.append(list(dict.fromkeys(analyzer.query_terms(text))))
    return out


CONDITIONS = [
    None,
    HeadCondition(kinds=("decision",)),
    HeadCondition(tag_needles=(tag_needle("api"), tag_needle("ci")), all_tags=True),
    HeadCondition(kinds=("fact", "preference"), tag_needles=(tag_needle("é"),), all_tags=False),
    HeadCondition(tag_needles=(tag_needle("e\u0301"),)),
]


def check(memories: Sequence[Docs], rng: random.Random) -> None:
    for terms in queries(rng):
        for condition in CONDITIONS:
            for pool in (1, 5, 32):
                expected = reference(memories, terms, pool, condition)
                got = text_index.rank([d.index for d in memories], terms, pool, condition)
                assert [h.key for h in got] == expected, (terms, condition, pool)
                for hit in got:
                    docs = next(d for d in memories if d.artifact_id == hit.key.memory_artifact_id)
                    assert hit.entry_content_hash == docs.rows[hit.key.entry_id].entry_content_hash


@pytest.mark.parametrize("seed", range(4))
def test_one_memory_ranks_like_the_domain_through_churn_and_compaction(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(text_index, "_MIN_DELTA_FOR_COMPACTION", 64)  # compact often
    rng = random.Random(seed)
    docs = Docs("mem_art_a", rng)
    docs.churn(300)
    check([docs], rng)
    docs.index.settle()
    for _ in range(3):
        docs.churn(150)
        check([docs], rng)  # delta and dead slots present
        docs.index.settle()
        check([docs], rng)
    assert docs.index.documents == len(docs.rows)


def test_several_memories_share_one_set_of_statistics() -> None:
    rng = random.Random(7)
    memories = [Docs(f"mem_art_{c}", rng) for c in "abc"]
    for docs in memories:
        docs.churn(rng.randint(20, 200))
        docs.index.settle()
    check(memories, rng)
    check(memories[1:], rng)


def test_scores_are_the_same_bits_as_the_domain_formula() -> None:
    rng = random.Random(3)
    docs = Docs("mem_art_a", rng)
    docs.churn(200)
    terms = ["make", "test", "docs"]
    hits = text_index.rank([docs.index], terms, 1000)
    admitted = []
    for row in docs.rows.values():
        tokens = row.searchable_text.split(" ")
        tf = [tokens.count(t) for t in terms]
        if sum(1 for c in tf if c) >= fusion.fts_required_matches(len(terms)):
            admitted.append((row.entry_id, tf, len(tokens)))
    n = len(admitted)
    average = fts_rank.average_length(sum(length for _, _, length in admitted), n)
    weights = [fts_rank.idf(n, sum(1 for _, tf, _ in admitted if tf[i])) for i in range(3)]
    expected = {
        entry: sum(
            fts_rank.term_score(weights[i], c, fts_rank.length_norm(length, average))
            for i, c in enumerate(tf)
            if c
        )
        for entry, tf, length in admitted
    }
    assert {h.key.entry_id: h.score for h in hits} == expected


def test_compaction_drops_dead_slots_and_unused_terms() -> None:
    docs = Docs("mem_art_a", random.Random(1))
    for i in range(50):
        docs.put(f"mem_ent_{i:032x}")
    docs.index.settle()
    for i in range(45):
        docs.remove(f"mem_ent_{i:032x}")
    docs.index._compact()
    assert len(docs.index.keys) == 5 and docs.index.dead == 0 and not docs.index.delta
    held = {t for row in docs.rows.values() for t in row.searchable_text.split(" ")}
    assert set(docs.index.vocabulary) == held
    check([docs], random.Random(2))


def test_a_memory_with_thousands_of_matches_ranks_like_the_domain() -> None:
    # More than 4 x 256 admitted documents: the pool's threshold comes from a sampled lower
    # bound, then the exact partition over the scores at or above it.
    rng = random.Random(11)
    docs = Docs("mem_art_a", rng)
    for i in range(2500):
        docs.put(f"mem_ent_{i:032x}")
    docs.index.settle()
    for terms in (["make"], ["make", "test"], ["make", "test", "docs", "lint"]):
        for pool in (1, 32, 200):
            got = text_index.rank([docs.index], terms, pool)
            assert [h.key for h in got] == reference([docs], terms, pool, None), (terms, pool)


def test_norms_without_the_table_are_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(5)
    docs = Docs("mem_art_a", rng)
    docs.churn(300)
    terms = ["make", "test", "docs"]
    with_table = text_index.rank([docs.index], terms, 1000)
    monkeypatch.setattr(text_index, "_NORM_TABLE_MAX", 0)  # every memory too long for it
    assert text_index.rank([docs.index], terms, 1000) == with_table
