"""The secret guard: our rules (security/secrets.py) against detect-secrets 1.5.0, measured.

Both detectors see the same texts: the positive corpus (secrets built from parts, every rule)
and the look-alike corpus (placeholders, references, hashes, UUIDs, base64, prose, CJK), both
from tests/secret_corpus.py over several seeds, plus this repository's own tracked text files,
which hold no live secret (a held-out check for false positives). detect-secrets runs its
default plugins and filters through the line pipeline its `scan` command uses for a file
(`_process_line_based_plugins`) under two file names, `memory.txt` and `memory.yaml`, without
the file I/O; its ad-hoc `scan_line` is not used because it reports low-entropy candidates by
design (it flagged every ordinary sentence tried).

Cost is the best of several runs over each workload, in CPU microseconds per KB of UTF-8 text,
scanning text by text as the write path does (one entry at a time; one file per source).

    python -m bench.secrets            # or as part of `make bench` (skip: --no-secrets)
"""

from __future__ import annotations

import argparse
import contextlib
import random
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from powercontext_memory.security.guard import source_secret
from powercontext_memory.security.secrets import find_secret
from tests.secret_corpus import (
    ENCODINGS,
    Encoded,
    Sample,
    hand_written_lookalikes,
    lookalike_samples,
    positive_samples,
)

from .corpus import Corpus

Detector = Callable[[str], bool]
ROOT = Path(__file__).resolve().parent.parent


def own_rules(text: str) -> bool:
    return find_secret(text) is not None


# detect-secrets reads `key: value` without quotes only in config-like files (.yaml, .ini,
# .conf, .toml); elsewhere (.txt, .py) its keyword rule needs a quoted value. Both are measured.
LIBRARY_FILE_NAMES = {
    "memory.txt": "detect-secrets (.txt)",
    "memory.yaml": "detect-secrets (.yaml)",
}


@contextlib.contextmanager
def detect_secrets() -> Iterator[dict[str, Detector]]:
    """detect-secrets 1.5.0 with its default settings, per file name; {} if not installed."""
    try:
        from detect_secrets.core.scan import _process_line_based_plugins
        from detect_secrets.settings import default_settings
    except ImportError:
        yield {}
        return

    def detector(file_name: str) -> Detector:
        def detect(text: str) -> bool:
            lines = list(enumerate(text.splitlines(), 1))
            return any(True for _ in _process_line_based_plugins(lines, file_name))

        return detect

    with default_settings():
        yield {name: detector(file_name) for file_name, name in LIBRARY_FILE_NAMES.items()}


@dataclass
class Accuracy:
    positives: int = 0
    found: int = 0
    lookalikes: int = 0
    flagged: int = 0
    misses: Counter[str] = field(default_factory=Counter)
    false_positives: Counter[str] = field(default_factory=Counter)

    @property
    def recall(self) -> float:
        return self.found / self.positives

    @property
    def precision(self) -> float:
        return self.found / (self.found + self.flagged) if self.found + self.flagged else 1.0

    @property
    def false_positive_rate(self) -> float:
        return self.flagged / self.lookalikes


def accuracy(detect: Detector, positives: list[Sample], lookalikes: list[Sample]) -> Accuracy:
    result = Accuracy(positives=len(positives), lookalikes=len(lookalikes))
    for sample in positives:
        if detect(sample.text):
            result.found += 1
        else:
            result.misses[sample.category] += 1
    for sample in lookalikes:
        if detect(sample.text):
            result.flagged += 1
            result.false_positives[sample.category] += 1
    return result


def cost_us_per_kb(detect: Detector, texts: list[str], runs: int = 3) -> float:
    size_kb = sum(len(t.encode("utf-8")) for t in texts) / 1024
    best = float("inf")
    for _ in range(runs):
        started = time.process_time()  # CPU time: other processes on the machine do not count
        for text in texts:
            detect(text)
        best = min(best, time.process_time() - started)
    return best * 1e6 / size_kb


def repository_texts(limit_bytes: int = 2_000_000) -> list[tuple[str, str]]:
    """(path, text) of this repository's tracked text files, up to `limit_bytes` in all."""
    listed = subprocess.run(
        ["git", "ls-files", "*.py", "*.md", "*.toml", "*.txt", "*.sql", "*.ts", "Makefile"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    out, total = [], 0
    for name in listed:
        try:
            text = (ROOT / name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if total + len(text) > limit_bytes:
            continue
        out.append((name, text))
        total += len(text)
    return out


@dataclass
class Report:
    name: str
    accuracy: Accuracy
    repository_flags: list[str]
    cost: dict[str, float]


def measure(seeds: int = 10, runs: int = 3) -> tuple[list[Report], dict[str, str]]:
    positives = [s for seed in range(1, seeds + 1) for s in positive_samples(seed)]
    # The hand-written look-alikes once, the generated ones (hashes, UUIDs, ...) per seed.
    hand_written = hand_written_lookalikes()
    lookalikes = list(hand_written)
    for seed in range(1, seeds + 1):
        lookalikes += lookalike_samples(seed)[len(hand_written) :]
    corpus = Corpus(random.Random(20261130))
    prose = [corpus.sentence() for _ in range(600)]
    repository = repository_texts()
    with detect_secrets() as library:
        detectors: dict[str, Detector] = {"own rules": own_rules, **library}
        flags = {
            name: [path for path, text in repository if detect(text)]
            for name, detect in detectors.items()
        }
        # A large source that neither flags, so both scan all of it (a finding stops a scan).
        flagged = {path for paths in flags.values() for path in paths}
        clean = "\n".join(text for path, text in repository if path not in flagged)
        workloads = {
            "prose entries": prose,
            "look-alikes": [s.text for s in lookalikes],
            "positives": [s.text for s in positives],
            "repository files": [text for _, text in repository],
            "one 1 MB source": [clean[:1_000_000]],
        }
        reports = [
            Report(
                name,
                accuracy(detect, positives, lookalikes),
                flags[name],
                {w: cost_us_per_kb(detect, texts, runs) for w, texts in workloads.items()},
            )
            for name, detect in detectors.items()
        ]
    sizes = {
        name: f"{len(texts)} texts, {sum(len(t.encode()) for t in texts) / 1024:,.0f} KB"
        for name, texts in workloads.items()
    }
    sizes["corpora"] = f"{len(positives)} positives, {len(lookalikes)} look-alikes"
    return reports, sizes


# Hostile input for the own rules: one anchor after another, each tried and rejected (the
# worst case is linear: every rule bounds how far a match can reach).
ADVERSARIAL = ("eyJ-", "token=", "pass", "sk-x", "://a:", "bearer ", "api_key=x ", "xoxb-1-")


def adversarial_ms_per_mb(runs: int = 3) -> dict[str, float]:
    out = {}
    for unit in ADVERSARIAL:
        text = unit * (1_000_000 // len(unit))
        out[unit] = cost_us_per_kb(own_rules, [text], runs) * 1024 / 1000
    return out


def print_reports(reports: list[Report], sizes: dict[str, str]) -> None:
    print(f"\nSecret guard — {sizes['corpora']}")
    print(f"{'detector':<22} {'recall':>7} {'FP rate':>8} {'precision':>9}  repository flags")
    for r in reports:
        a = r.accuracy
        print(
            f"{r.name:<22} {a.recall:>7.1%} {a.false_positive_rate:>8.1%} {a.precision:>9.1%}"
            f"  {len(r.repository_flags)} of {sizes['repository files']}"
        )
    for r in reports:
        a = r.accuracy
        print(f"  {r.name}: missed {a.positives - a.found}/{a.positives} {dict(a.misses)}")
        print(f"  {r.name}: flagged {a.flagged}/{a.lookalikes} {dict(a.false_positives)}")
        print(f"  {r.name}: repository files flagged {r.repository_flags}")
    print(f"{'cost, µs per KB':<22}" + "".join(f" {r.name:>22}" for r in reports) + "  workload")
    for workload in reports[0].cost:
        cells = "".join(f" {r.cost[workload]:>22,.1f}" for r in reports)
        print(f"{workload:<22}{cells}  {sizes[workload]}")
    if len(reports) == 1:
        print("detect-secrets is not installed: `.venv/bin/pip install -r requirements-dev.txt`")


def _source_refused(encoded: Encoded) -> bool:
    content = encoded.content.encode()
    return source_secret(encoded.kind, encoded.uri, encoded.media_type, content, ()) is not None


def _source_cost_us_per_kb(sources: list[Encoded], runs: int = 3) -> tuple[float, float]:
    """(PutSource's whole guard, a scan of the raw content alone), CPU µs per KB."""
    size_kb = sum(len(e.content.encode()) for e in sources) / 1024

    def best(work: Callable[[Encoded], object]) -> float:
        fastest = float("inf")
        for _ in range(runs):
            started = time.process_time()
            for encoded in sources:
                work(encoded)
            fastest = min(fastest, time.process_time() - started)
        return fastest * 1e6 / size_kb

    return best(_source_refused), best(lambda e: find_secret(e.content))


def decoded_sources(seeds: int = 3) -> None:
    """The corpora written into sources of every format the server parses (escaped, split
    across a TOML line-ending backslash, across adjacent Python literals): what PutSource
    refuses, and what reading sources as decoded costs on top of the raw scan."""
    positives = [s for seed in range(1, seeds + 1) for s in positive_samples(seed)]
    lookalikes = lookalike_samples(9)
    print(
        f"\nSources as their readers decode them — {len(positives)} positives, "
        f"{len(lookalikes)} look-alikes per format"
    )
    for name, encode in ENCODINGS.items():
        refused = sum(_source_refused(encode(s.text)) for s in positives)
        passed = sum(not _source_refused(encode(s.text)) for s in lookalikes)
        print(f"  {name:<28} refused {refused}/{len(positives)}  stored {passed}/{len(lookalikes)}")
    files = [Encoded("file", f"repo://{path}", "", text) for path, text in repository_texts()]
    report = "; ".join(f"step {i}: `make test` passed" for i in range(400))
    escaped = [ENCODINGS["json escapes"](report[:16_000]) for _ in range(8)]
    python = [e for e in files if e.uri.endswith(".py")]
    others = [e for e in files if not e.uri.endswith(".py")]
    print(f"{'PutSource guard, µs per KB':<28} {'whole':>8} {'raw scan':>9}  workload")
    workloads = (
        ("repository .py files", python),
        ("other repository files", others),
        ("escaped task outcomes", escaped),
    )
    for label, workload in workloads:
        whole, raw = _source_cost_us_per_kb(workload)
        size = sum(len(e.content.encode()) for e in workload) / 1024
        print(f"  {label:<26} {whole:>8,.1f} {raw:>9,.1f}  {len(workload)} sources, {size:,.0f} KB")


def run(seeds: int = 10) -> None:
    print_reports(*measure(seeds))
    decoded_sources()
    worst = adversarial_ms_per_mb()
    print(
        "own rules on 1 MB of one repeated anchor, ms: "
        + ", ".join(f"{unit.strip()!r} {ms:,.0f}" for unit, ms in worst.items())
    )


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.secrets", description=__doc__)
    parser.add_argument("--seeds", type=int, default=10, help="corpus seeds (positives x seeds)")
    run(parser.parse_args().seeds)


if __name__ == "__main__":
    main()
