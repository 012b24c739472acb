"""The fail-open measurement both hosts get: one-turn sessions with OUR server up (after a
warm-up turn), stopped, and replaced by a hung listener on its port; then what is wrong with
the figures. Bounds: README "Fail open" (a hook gives up within 2 s; no server costs the
session at most ~1 s), widened so a loaded 2-core machine does not flake."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from .hook_runs import HookRun, counts, latency_table
from .our_server import OurServer, hung_server

HOOK_GIVE_UP_SECONDS = 3.0
EXTRA_SECONDS = 2.5


class Timed(Protocol):
    seconds: float
    hook_runs: list[HookRun]


@dataclass(frozen=True)
class FailOpen:
    up: Timed
    stopped: Timed
    hung: Timed

    def report(self, label: str) -> str:
        lines = [
            f"{label} one turn: server up {self.up.seconds:.2f} s, stopped "
            f"{self.stopped.seconds:.2f} s, hung {self.hung.seconds:.2f} s"
        ]
        for name, run in (("up", self.up), ("stopped", self.stopped), ("hung", self.hung)):
            table = latency_table(run.hook_runs)
            lines.append(f"  {name}: " + ", ".join(f"{e} {v}" for e, v in table.items()))
        return "\n".join(lines)

    def problems(self) -> list[str]:
        found = []
        if not counts(self.up.hook_runs):
            found.append("no hook ran: the figures would mean nothing")
        if (
            not counts(self.stopped.hook_runs)
            == counts(self.up.hook_runs)
            == counts(self.hung.hook_runs)
        ):
            found.append("not the same hooks ran in the three sessions")
        if self.stopped.seconds - self.up.seconds > EXTRA_SECONDS:
            found.append(f"a stopped server cost {self.stopped.seconds - self.up.seconds:.2f} s")
        for run in (self.stopped, self.hung):
            found += [
                f"{hook.event} took {hook.seconds:.2f} s ({hook.stderr.strip()!r})"
                for hook in run.hook_runs
                if hook.seconds > HOOK_GIVE_UP_SECONDS
            ]
        return found


def measure(server: OurServer, one_turn: Callable[[], Timed]) -> FailOpen:
    """`one_turn` runs a session and checks that the user got the model's answer."""
    try:
        one_turn()  # warm-up: the first start of a host costs more than the others
        up = one_turn()
    finally:
        server.stop()
    stopped = one_turn()
    with hung_server(server.port):
        hung = one_turn()
    return FailOpen(up, stopped, hung)
