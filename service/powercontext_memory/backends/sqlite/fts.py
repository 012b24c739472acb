"""FTS5 MATCH expressions built from analyzer tokens."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

MAX_PUSHDOWN_GROUPS = 64  # above this many term combinations, match any term and filter later


def _quote(token: str) -> str:
    return '"' + token.replace('"', '""') + '"'


def fts_match_expression(
    artifact_ids: Sequence[str], terms: Sequence[str], min_matches: int = 1
) -> str:
    """A MATCH expression from quoted analyzer tokens; user text never reaches MATCH syntax.

    The memory filter is a column filter, so FTS5 intersects posting lists instead of ranking
    every memory's rows. When few enough, "at least min_matches distinct terms" is pushed down
    as an OR of ANDs: rows the admission rule would refuse are never ranked, and the candidate
    pool holds only admissible rows (the shared code still applies admission itself).
    """
    memories = " OR ".join(_quote(a) for a in artifact_ids)
    quoted = [_quote(t) for t in terms]
    if (
        1 < min_matches <= len(quoted)
        and math.comb(len(quoted), min_matches) <= MAX_PUSHDOWN_GROUPS
    ):
        groups = itertools.combinations(quoted, min_matches)
        text = " OR ".join("(" + " AND ".join(g) + ")" for g in groups)
    else:
        text = " OR ".join(quoted)
    return f"memory_artifact_id : ({memories}) AND searchable_text : ({text})"
