"""The fail-open measurement every host gets: one-turn sessions with OUR server up (after a
warm-up turn), stopped, and replaced by a hung listener on its port; then what is wrong with
the figures. Every such session is one prompt, PROMPT, that the mock answers with ANSWER.
Bounds: docs/agents.md "Fail open" (a hook gives up within 2 s; no server costs the
session at most ~1 s), widened so a loaded 2-core machine does not flake."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar

from .hook_runs import HookRun, counts, latency_table
from .mock_models import MockModels, Text
from .our_server import OurServer, hung_server
from .pins import Pin
from .workspace import Workspace, prepared

HOOK_GIVE_UP_SECONDS = 3.0
EXTRA_SECONDS = 2.5
PROMPT = "Say hello."
ANSWER = "Done with this turn."
Host = TypeVar("Host")


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


def measure(server: OurServer, models: MockModels, host_turn: Callable[[], Timed]) -> FailOpen:
    """`host_turn` runs a session of PROMPT and checks that the user got ANSWER."""

    def one_turn() -> Timed:
        models.reset()
        models.script(Text(ANSWER))
        return host_turn()

    try:
        one_turn()  # warm-up: the first start of a host costs more than the others
        up = one_turn()
    finally:
        server.stop()
    stopped = one_turn()
    with hung_server(server.port):
        hung = one_turn()
    return FailOpen(up, stopped, hung)


def assert_fails_open_apart(
    directory: Path,
    pin: Pin,
    start: Callable[[Pin, Workspace, MockModels], Host],
    one_turn: Callable[[Host], Timed],
) -> None:
    """`measure` and `assert_fails_open` with a mock, a server and a workspace of their own
    (the host started there by `start`): stopping the module's server would leave the other
    pinned versions' tests without one."""
    server = OurServer(directory / "server")
    try:
        with (
            MockModels() as models,
            prepared(directory, server.endpoint, pin.setup_name) as workspace,
        ):
            host = start(pin, workspace, models)
            figures = measure(server, models, lambda: one_turn(host))
    finally:
        server.stop()
    assert_fails_open(figures, pin.title)


def assert_fails_open(figures: FailOpen, label: str) -> None:
    """Print the figures (the suite's fail-open report) and fail on any problem with them."""
    report = figures.report(label)
    print("\n" + report)
    assert not figures.problems(), "\n".join([*figures.problems(), report])
