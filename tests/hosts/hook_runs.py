"""What the hook probe (probe/sitecustomize.py) recorded: every `powercontext hook …` process a
host started, with its event, payload, output and timing."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class HookRun:
    event: str
    payload: Any
    stdout: str
    stderr: str
    started: float  # wall clock, from the process's own start
    ended: float

    @property
    def seconds(self) -> float:
        return self.ended - self.started

    @property
    def context(self) -> str:
        """The additionalContext the hook answered with ("" when none)."""
        if not self.stdout.strip():
            return ""
        answer = json.loads(self.stdout)
        return str(answer.get("hookSpecificOutput", {}).get("additionalContext", ""))


def read_runs(log: Path) -> list[HookRun]:
    """The runs recorded in `log`, in the order they started."""
    if not log.exists():
        return []
    runs = []
    for line in log.read_text().splitlines():
        record = json.loads(line)
        runs.append(
            HookRun(
                record["event"],
                record["payload"],
                record["stdout"],
                record["stderr"],
                record["started"],
                record["ended"],
            )
        )
    return sorted(runs, key=lambda run: run.started)


def counts(runs: list[HookRun]) -> Counter[str]:
    return Counter(run.event for run in runs)


def latency_table(runs: list[HookRun]) -> dict[str, str]:
    """Per event: how many runs, and their median and longest duration (for the report)."""
    table = {}
    for event in sorted({run.event for run in runs}):
        seconds = sorted(run.seconds for run in runs if run.event == event)
        median = seconds[len(seconds) // 2]
        table[event] = (
            f"n={len(seconds)} median {median * 1000:.0f} ms max {seconds[-1] * 1000:.0f} ms"
        )
    return table
