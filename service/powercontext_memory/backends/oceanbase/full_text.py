"""Full-text search on OceanBase: MATCH ... AGAINST in boolean mode over the rows' tokens
(fts_tokens.py), and the text each row's tokens stand for."""

from __future__ import annotations

from collections.abc import Sequence

from ..port import HeadCondition, HeadProjectionRow
from ..sql_reads import HEAD_COLUMNS, condition_sql
from . import fts_tokens
from .statements import OceanBaseStatements

FTS_OVERFETCH = 2  # rows ranked per wanted candidate when admission needs several terms


class FullTextStatements(OceanBaseStatements):
    async def fts_candidates(
        self,
        artifact_ids: Sequence[str],
        terms: Sequence[str],
        min_matches: int,
        limit: int,
        condition: HeadCondition | None = None,
    ) -> list[HeadProjectionRow]:
        """MATCH ... AGAINST in boolean mode, best first by the engine's relevance.

        The memory filter is the memories' tokens inside the indexed text (fts_tokens), never
        a column condition: with one, the engine reads back and sorts every matching row
        before its top-k; without, the top-k runs inside the full-text index. "At least k
        distinct terms" is pushed down as an OR of ANDs when few enough combinations spell
        it; otherwise the engine ranks FTS_OVERFETCH times more rows and those admission would
        refuse are dropped before the cut (rows matching more terms rank higher).
        """
        memories = set(artifact_ids)
        if not memories or not terms:
            return []
        query, exact = fts_tokens.boolean_query(sorted(memories), terms, min_matches)
        # Kind and tag filters are column conditions: the engine then reads back the matches
        # before its top-k (the cost of a filtered search), but the window holds only
        # eligible rows.
        where, params = condition_sql(condition, "")
        rows = await self._all(
            f"SELECT {HEAD_COLUMNS}, MATCH (fulltext_tokens) AGAINST (? IN BOOLEAN MODE) "
            "AS relevance FROM memory_entry_heads "
            f"WHERE MATCH (fulltext_tokens) AGAINST (? IN BOOLEAN MODE){where} "
            "ORDER BY relevance DESC LIMIT ?",
            (query, query, *params, limit if exact else limit * FTS_OVERFETCH),
        )
        wanted = set(terms)
        return [
            HeadProjectionRow(*r[:5])
            for r in rows
            # the memory check is a guard: the index already filtered by memory token
            if r[0] in memories and len(wanted.intersection(str(r[4]).split(" "))) >= min_matches
        ][:limit]

    async def fts_rows(self, artifact_id: str) -> list[tuple[str, str]]:
        """The analyzer text each row's index tokens stand for (its own tokens if they do not)."""
        rows = await self._all(
            f"SELECT {self._heads_hint('memory_entry_heads')}entry_id, searchable_text, "
            "fulltext_tokens FROM memory_entry_heads WHERE memory_artifact_id = ? "
            "ORDER BY entry_id",
            (artifact_id,),
        )
        return [
            (e, text if fts_tokens.encode_row(artifact_id, text) == tokens else tokens)
            for e, text, tokens in rows
        ]
