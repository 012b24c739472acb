"""What a scripted session left for the tests to read, the same for every host: its host
processes, the model requests they made, the calls OUR server answered, and the memory's head
before the session and its active entries right after it (before other tests change them)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Protocol

from .hook_runs import HookRun, latency_table
from .launch import Run, hook_runs_of
from .memory_view import Entry
from .mock_models import MockModels, Recorded
from .our_server import Call, OurServer
from .pins import Pin
from .workspace import Workspace


@dataclass
class Scripted(Generic[Run]):
    runs: list[Run]  # one a turn (Claude Code: one for the whole session)
    requests: list[Recorded]
    calls: list[Call]
    head_before: int
    entries_after: list[Entry]

    @property
    def hook_runs(self) -> list[HookRun]:
        return hook_runs_of(self.runs)


class Pinned(Protocol):
    pin: Pin
    workspace: Workspace


def play(
    host: Pinned, models: MockModels, server: OurServer, session: Callable[[], list[Run]]
) -> Scripted[Run]:
    """Run `session` of `host` against the scripted mock, print how long it and its hooks took
    (the suite's latency figures), and read what it left in its workspace's memory."""
    workspace = host.workspace
    before, calls_before = workspace.head(), len(server.calls())
    runs = session()
    print(f"\n{host.pin.title} scripted session: {sum(run.seconds for run in runs):.1f} s")
    for event, figures in latency_table(hook_runs_of(runs)).items():
        print(f"  {event}: {figures}")
    entries = workspace.entries()
    return Scripted(runs, models.model_requests(), server.calls()[calls_before:], before, entries)
