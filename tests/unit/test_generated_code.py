"""generated/ must be exactly what `make proto` produces from proto/ (never edited by hand)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import gen_proto  # noqa: E402


def test_generated_code_is_up_to_date(tmp_path: Path) -> None:
    gen_proto.generate(tmp_path)
    fresh = {p.relative_to(tmp_path): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    committed_root = ROOT / "generated"
    committed = {
        p.relative_to(committed_root): p.read_bytes()
        for p in committed_root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert sorted(fresh) == sorted(committed), "run `make proto` and commit generated/"
    stale = [str(name) for name, data in fresh.items() if committed[name] != data]
    assert not stale, f"stale generated files (run `make proto`): {stale}"
