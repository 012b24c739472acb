"""docs/performance.md's targets table: every figure it names, per backend, next to its target.

The figures come from the scenarios `make bench` ran (bench/storage.py, the size scenarios,
bench/throughput.py, bench/hybrid.py, bench/conversations.py, bench/follow.py, bench/history.py);
a row whose scenario did not run (the 100,000-entry ones
are optional: `--large`) prints "-".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .report import Figure

Results = dict[str, list[Figure]]


def _find(figures: list[Figure], name: str) -> Figure | None:
    return next((f for f in figures if f.name.strip() == name), None)


def _p50(name: str) -> Callable[[list[Figure]], float | None]:
    def pick(figures: list[Figure]) -> float | None:
        found = _find(figures, name)
        return None if found is None else found.median_ms

    return pick


def _commit(size: int) -> Callable[[list[Figure]], float | None]:
    return _p50(f"commit 1 entry into {size:,} entries (storage)")


def _growth(figures: list[Figure]) -> str | None:
    """Commit p50 at 100 entries against the largest size measured."""
    small = _commit(100)(figures)
    for size in (100_000, 10_000):
        large = _commit(size)(figures)
        if small and large:
            return f"{small:.1f} -> {large:.1f} ms @{size:,} ({large / small:.1f}x)"
    return None


def _best_rate(size: int, asked: str) -> Callable[[list[Figure]], float | None]:
    def pick(figures: list[Figure]) -> float | None:
        rates = [
            f.rate
            for f in figures
            if f.rate is not None
            and f.name.startswith(f"fts at concurrency 16, {size:,} entries")
            and f.name.endswith(asked)
        ]
        return max(rates) if rates else None

    return pick


def _starting(prefix: str, p99: bool = False) -> Callable[[list[Figure]], float | None]:
    """The p50 (or p99) of the first figure whose name starts with `prefix`."""

    def pick(figures: list[Figure]) -> float | None:
        found = next((f for f in figures if f.name.strip().startswith(prefix)), None)
        if found is None:
            return None
        return found.p99_ms if p99 else found.median_ms

    return pick


@dataclass(frozen=True)
class Row:
    label: str
    pick: Callable[[list[Figure]], float | str | None]
    unit: str
    targets: dict[str, str]  # backend -> target text
    limit: dict[str, float]  # backend -> bound the value must meet (max, or min when `at_least`)
    at_least: bool = False


ROWS = [
    Row("commit 1 entry @100 -> largest measured", _growth, "", {"sqlite": "@100k <= 3x @100"}, {}),
    Row(
        "commit 1 entry @100,000",
        _commit(100_000),
        "ms",
        {"sqlite": "<= 30", "oceanbase": "<= 150"},
        {"sqlite": 30, "oceanbase": 150},
    ),
    Row(
        "commit 1 entry @10,000",
        _commit(10_000),
        "ms",
        {"oceanbase": "<= 40"},
        {"oceanbase": 40},
    ),
    Row(
        "KB stored per 1-entry commit @10,000",
        _p50("KB stored per 1-entry commit at 10,000"),
        "KB",
        {"sqlite": "<= 64", "oceanbase": "<= 64"},
        {"sqlite": 64, "oceanbase": 64},
    ),
    Row(
        "KB stored per 1-entry commit @100,000",
        _p50("KB stored per 1-entry commit at 100,000"),
        "KB",
        {"sqlite": "<= 64", "oceanbase": "<= 64"},
        {"sqlite": 64, "oceanbase": 64},
    ),
    Row(
        "FTS searches/s, c=16, 10,000, distinct queries",
        _best_rate(10_000, "distinct queries"),
        "/s",
        {"sqlite": ">= 2,500 (--workers 2)", "oceanbase": ">= 1,500"},
        {"sqlite": 2500, "oceanbase": 1500},
        at_least=True,
    ),
    Row(
        "FTS searches/s, c=16, 10,000, repeated queries",
        _best_rate(10_000, "(answer cache)"),
        "/s",
        {},
        {},
    ),
    Row(
        "FTS p50 @10,000",
        _p50("FTS search over gRPC at 10,000 entries"),
        "ms",
        {"sqlite": "<= 1", "oceanbase": "<= 20"},
        {"sqlite": 1, "oceanbase": 20},
    ),
    Row(
        "FTS p50 @100,000",
        _p50("FTS search over gRPC at 100,000 entries"),
        "ms",
        {"sqlite": "<= 2"},
        {"sqlite": 2},
    ),
    Row(
        "hybrid p50 @100,000 excl. query embedding",
        _p50("hybrid search over gRPC at 100,000 entries"),
        "ms",
        {"sqlite": "<= 40", "oceanbase": "<= 100"},
        {"sqlite": 40, "oceanbase": 100},
    ),
    Row(
        "hybrid p50 @10,000 excl. query embedding",
        _p50("hybrid search over gRPC at 10,000 entries"),
        "ms",
        {},
        {},
    ),
    Row(
        "hybrid p50 incl. embedding, conversations",
        _starting("conversations multilingual hybrid search"),
        "ms",
        {"sqlite": "<= 5"},
        {"sqlite": 5},
    ),
    Row(
        "follow delivery p50, commit via the other worker",
        _p50("follow: commit via other worker"),
        "ms",
        {"sqlite": "<= 20", "oceanbase": "<= 20"},
        {"sqlite": 20, "oceanbase": 20},
    ),
    Row(
        "follow delivery p50, commit via another server",
        _p50("follow: commit via other server"),
        "ms",
        {"sqlite": "<= 20", "oceanbase": "<= 20"},
        {"sqlite": 20, "oceanbase": 20},
    ),
    Row(
        "GetMemory p99 during history replays",
        _starting("GetMemory during", p99=True),
        "ms",
        {"sqlite": "<= 100"},
        {"sqlite": 100},
    ),
    Row(
        "server RSS @100,000 with the model (SQLite)",
        _p50("server RSS in MB with the model, 100,000 entries"),
        "MB",
        {"sqlite": "<= 600"},
        {"sqlite": 600},
    ),
]


def _cell(row: Row, backend: str, figures: list[Figure]) -> str:
    value = row.pick(figures)
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    bound = row.limit.get(backend)
    missed = bound is not None and (value < bound if row.at_least else value > bound)
    return f"{value:,.1f} {row.unit}" + (" !" if missed else "")


def print_targets(results: Results) -> None:
    names = list(results)
    print("\nTargets (2-core machine; '-' = scenario not run; ! = target missed)")
    print(f"{'figure':<48}" + "".join(f" {n:>32}" for n in names) + "  target")
    for row in ROWS:
        cells = "".join(f" {_cell(row, n, results[n]):>32}" for n in names)
        shown = " / ".join(f"{n} {t}" for n, t in row.targets.items() if n in names)
        print(f"{row.label:<48}{cells}  {shown}")
