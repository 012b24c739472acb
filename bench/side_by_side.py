"""The table that prints each scenario's figures for every backend next to each other, shared by
the whole run and the scenarios that run on their own."""

from __future__ import annotations

import os

from .report import Figure


def print_side_by_side(results: dict[str, list[Figure]]) -> None:
    names = list(results)
    print(f"\nPowerContext Memory bench — {', '.join(names)}; {os.cpu_count()} cores")
    header = f"{'scenario':<46}" + "".join(f" {n + ' p50':>16} {'p95':>8}" for n in names)
    print(header + f" {'target':>9}  notes")
    rows: dict[str, dict[str, Figure]] = {}
    for name, figures in results.items():
        for item in figures:
            rows.setdefault(item.name, {})[name] = item
    for scenario, by_backend in rows.items():
        cells = []
        targets = sorted({f"{f.target_ms:.3g}" for f in by_backend.values() if f.target_ms})
        for name in names:
            f = by_backend.get(name)
            if f is None:
                cells.append(f" {'-':>16} {'-':>8}")
                continue
            mark = "" if f.target_ms is None or f.measured_ms <= f.target_ms else "!"
            cells.append(f" {f.median_ms:>15.2f}{mark or ' '} {f.p95_ms:>8.2f}")
        notes = "; ".join(f"{n}: {f.note}" for n, f in by_backend.items() if f.note)
        shown = f"<= {' / '.join(targets)}" if targets else ""
        print(f"{scenario:<46}" + "".join(cells) + f" {shown:>9}  {notes}")
    print(
        "! = over target (on p50, or on p99 where the note says so). Upstream: 798 ms to commit "
        "one entry at 1,000 entries; FTS p50 42-57 ms."
    )
