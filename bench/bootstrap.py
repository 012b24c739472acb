"""Bootstrap quality: the candidate pipeline on real repositories' contract files, scored
against truth sets a maintainer would sign (tests/data/bootstrap/README.md).

For each repository the evidence files are turned into file Sources exactly as the runtime
sends them and the deterministic adapters run in process (no server, no model). Every entry
is then classed against the repository's truth.json:

- false: it matches a `must_not` pattern of kind `false` (a statement the files contradict);
- noise: it matches a `noise` pattern, is a lead-in fragment ending with ":", or matches no
  truth item at all (not memory-worthy);
- worthy: anything else, i.e. it matches a `core` or `also` item.

Core recall is the share of `core` items some worthy entry matches; precision is worthy
entries over all entries. Tuning and held-out repositories are reported separately.

    python -m bench.bootstrap                 # or as part of `make bench` (skip: --no-bootstrap)
    python -m bench.bootstrap --show simonw__llm   # every entry of one repository, classed
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from powercontext_memory.api import Hit
from powercontext_memory.candidates import CandidatePipeline, ExtractionInput
from powercontext_memory.candidates.port import Candidate
from powercontext_memory.candidates.sources import file_format
from powercontext_memory.domain.models import Source

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "bootstrap"
SETS = ("tuning", "held_out")
_CONTINUED = re.compile(r"[A-Za-z0-9_\-]|:\w")


def repo_sources(folder: Path) -> list[Source]:
    """The folder's evidence files as the runtime stores them (uri repo://<name>)."""
    out = []
    for path in sorted(p for p in folder.iterdir() if p.is_file()):
        content = path.read_bytes()
        digest = hashlib.sha256(content).hexdigest()
        source = Source(
            f"src_{digest[:16]}",
            "file",
            f"repo://{path.name}",
            "text/plain",
            content,
            (),
            digest,
            0,
        )
        if file_format(source) is not None:
            out.append(source)
    return out


async def _no_search(_query: str) -> list[Hit]:
    return []


async def _no_read(source_id: str) -> Source:
    raise LookupError(source_id)


def derive(sources: Sequence[Source]) -> list[Candidate]:
    """What EXTRACT proposes for these sources on a new memory, in order."""
    pipeline = CandidatePipeline()
    request = ExtractionInput(sources, [], _no_search, _no_read)
    return asyncio.run(pipeline.run(request, pipeline.adapters)).candidates


def mentions(text: str, needle: str) -> bool:
    """`needle` occurs in `text` (any case) and is not the start of a longer command word."""
    lowered, wanted = text.lower(), needle.lower()
    start = lowered.find(wanted)
    while start >= 0:
        end = start + len(wanted)
        if not (wanted[-1:].isalnum() and _CONTINUED.match(text, end)):
            return True
        start = lowered.find(wanted, start + 1)
    return False


def matches(text: str, item: dict[str, Any]) -> bool:
    every = all(mentions(text, m) for m in item.get("must_mention", []))
    some = item.get("any_of")
    return every and (not some or any(mentions(text, m) for m in some))


@dataclass
class Score:
    name: str
    entries: int = 0
    false: int = 0
    noise: int = 0
    core_total: int = 0
    core_found: int = 0
    classed: list[tuple[str, str, str]] = field(default_factory=list)  # (class, why, text)
    missed: list[str] = field(default_factory=list)

    @property
    def worthy(self) -> int:
        return self.entries - self.false - self.noise

    @property
    def recall(self) -> float:
        return self.core_found / self.core_total if self.core_total else 1.0

    @property
    def precision(self) -> float:
        return self.worthy / self.entries if self.entries else 1.0

    @property
    def noise_share(self) -> float:
        return self.noise / self.entries if self.entries else 0.0

    def add(self, other: Score) -> None:
        self.entries += other.entries
        self.false += other.false
        self.noise += other.noise
        self.core_total += other.core_total
        self.core_found += other.core_found


def classify(text: str, truth: dict[str, Any]) -> tuple[str, str]:
    """("false" | "noise" | "worthy", the truth item or pattern that decided it)."""
    for rule in truth.get("must_not", []):
        if re.search(rule["pattern"], text, re.IGNORECASE):
            return rule["kind"], rule["id"]
    if text.rstrip().endswith(":"):
        return "noise", "lead-in fragment"
    for item in [*truth.get("core", []), *truth.get("also", [])]:
        if matches(text, item):
            return "worthy", item["id"]
    return "noise", "matches no truth item"


def score(folder: Path) -> Score:
    truth = json.loads((folder / "truth.json").read_text())
    result = Score(folder.name)
    candidates = derive(repo_sources(folder))
    worthy_texts = []
    for candidate in candidates:
        kind, why = classify(candidate.text, truth)
        result.entries += 1
        result.false += kind == "false"
        result.noise += kind == "noise"
        result.classed.append((kind, why, candidate.text))
        if kind == "worthy":
            worthy_texts.append(candidate.text)
    for item in truth["core"]:
        result.core_total += 1
        if any(matches(text, item) for text in worthy_texts):
            result.core_found += 1
        else:
            result.missed.append(item["id"])
    return result


def split() -> dict[str, list[str]]:
    """The repositories of each set (split.json also keeps the history of earlier rounds)."""
    data = json.loads((DATA / "split.json").read_text())
    return {name: [str(repo) for repo in data.get(name, [])] for name in SETS}


def run(sets: Sequence[str] = SETS) -> dict[str, Score]:
    """Score every repository of `sets`; returns the totals per set (and prints the table)."""
    totals: dict[str, Score] = {}
    print("\nBootstrap quality — entries derived from real repositories' contract files")
    header = f"{'repository':<36} {'entries':>7} {'recall':>8} {'false':>6} {'noise':>6}"
    print(header + f" {'precision':>9}  missed core")
    for name in sets:
        total = Score(f"total ({name.replace('_', '-')})")
        for repo in split()[name]:
            one = score(DATA / repo)
            total.add(one)
            _row(one, ", ".join(one.missed))
        _row(total, f"noise share {total.noise_share:.1%}")
        totals[name] = total
    print("goal on unseen repositories: no false entry, core recall >= 90%, noise <= 5%")
    return totals


def _row(s: Score, note: str) -> None:
    recall = f"{s.core_found}/{s.core_total}"
    print(
        f"{s.name:<36} {s.entries:>7} {recall:>8} {s.false:>6} {s.noise:>6} "
        f"{s.precision:>9.1%}  {note}"
    )


def show(repo: str) -> None:
    one = score(DATA / repo)
    for kind, why, text in one.classed:
        print(f"{kind:<6} {why:<24} {text}")
    print(f"missed core: {', '.join(one.missed) or '-'}")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bootstrap", description=__doc__)
    parser.add_argument("--set", choices=SETS, help="one set only (default: both)")
    parser.add_argument("--show", metavar="REPO", help="list one repository's entries, classed")
    args = parser.parse_args()
    if args.show:
        show(args.show)
        return
    run([args.set] if args.set else SETS)


if __name__ == "__main__":
    main()
