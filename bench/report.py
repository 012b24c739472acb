"""A benchmark figure: median and p95 of samples in milliseconds, against an optional target."""

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


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def figure(name: str, samples: list[float], target: float | None, note: str = "") -> Figure:
    return Figure(name, statistics.median(samples), percentile(samples, 0.95), target, note)
