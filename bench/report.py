"""A benchmark figure: median, p95 and p99 of samples in milliseconds, against an optional target
(on the median unless `target_quantile` says p99)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass


@dataclass
class Figure:
    name: str
    median_ms: float
    p95_ms: float
    target_ms: float | None
    note: str = ""
    p99_ms: float = float("nan")
    target_quantile: str = "p50"  # or "p99"
    rate: float | None = None  # operations per second, for throughput figures

    @property
    def measured_ms(self) -> float:
        """The value the target is on."""
        return self.p99_ms if self.target_quantile == "p99" else self.median_ms


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def figure(
    name: str, samples: list[float], target: float | None, note: str = "", on: str = "p50"
) -> Figure:
    return Figure(
        name,
        statistics.median(samples),
        percentile(samples, 0.95),
        target,
        note,
        percentile(samples, 0.99),
        on,
    )
