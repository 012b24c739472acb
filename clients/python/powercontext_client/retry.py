"""Jittered exponential backoff, shared by read retries, update() and follow()."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Backoff:
    """Delays of initial, initial*multiplier, ... capped at `maximum`, each drawn uniformly
    from [0, cap] ("full jitter") so that writers who lost the same race spread out."""

    initial: float = 0.05
    maximum: float = 2.0
    multiplier: float = 2.0

    def delays(self) -> Iterator[float]:
        cap = self.initial
        while True:
            yield random.uniform(0, cap)
            cap = min(self.maximum, cap * self.multiplier)
