"""A finding of `powercontext doctor`: a check, whether it passed, why, and its fix; the exit
code of each class of failure (doctor.py has the table)."""

from __future__ import annotations

from dataclasses import dataclass

SERVER, AUTH, MEMORY, HOOKS, TRUST, MCP = 10, 11, 12, 13, 14, 15


@dataclass(frozen=True)
class Finding:
    check: str
    ok: bool
    detail: str
    fix: str = ""
    klass: int = 0  # the exit code when it fails
    warning: bool = False

    def lines(self) -> list[str]:
        mark = "warn" if self.warning else ("ok  " if self.ok else "FAIL")
        out = [f"{mark} {self.check}: {self.detail}"]
        if self.fix and not self.ok:
            out.append(f"     fix: {self.fix}")
        return out


def exit_code(findings: list[Finding]) -> int:
    failed = [f.klass for f in findings if not f.ok and not f.warning]
    return min(failed) if failed else 0


def report(findings: list[Finding]) -> list[str]:
    return [line for finding in findings for line in finding.lines()]
