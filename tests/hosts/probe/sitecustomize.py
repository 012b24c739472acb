"""The hook probe: records every `powercontext hook …` process the hosts start.

Python imports `sitecustomize` at start-up from its path; the suite puts this directory on the
PYTHONPATH of the host process, which hands its environment down to the hooks it runs. In a
hook process (and only there) the probe reads the payload from stdin, gives it back to the hook
unchanged, tees stdout and stderr, and at exit appends one JSON line to $POWERCONTEXT_HOOK_PROBE:
the event, the payload, what the hook printed, its exit code and when it started and ended.
That is how the suite knows which hooks the host really ran, in which order and how long each
took — also PreCompact and SessionEnd, which make no call our server could log.
"""

from __future__ import annotations

import atexit
import io
import json
import os
import sys
import time
from typing import Any, NoReturn, TextIO, cast


def _started() -> float:
    """The process's start (wall clock), from /proc: the interpreter's own start-up counts."""
    try:
        with open("/proc/self/stat", encoding="ascii") as stat:
            ticks = int(stat.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime", encoding="ascii") as uptime:
            up = float(uptime.read().split()[0])
        return time.time() - (up - ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return time.time()


class _Tee:
    """Writes go through to the real stream and are kept; anything else (buffer, fileno, …)
    is the real stream's, so the hook behaves exactly as without the probe."""

    def __init__(self, inner: TextIO) -> None:
        self.inner = inner
        self.seen: list[str] = []

    def write(self, text: str) -> int:
        self.seen.append(text)
        return self.inner.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _install(log: str) -> None:
    started = _started()
    notify = "codex-notify" in sys.argv  # its payload is the last argument; stdin is not read
    raw = b"" if notify or sys.stdin is None else sys.stdin.buffer.read()
    sys.stdin = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8")
    out, err = _Tee(sys.stdout), _Tee(sys.stderr)
    sys.stdout, sys.stderr = cast(TextIO, out), cast(TextIO, err)
    try:
        payload = json.loads(sys.argv[-1] if notify else raw or b"null")
    except ValueError:
        payload = raw.decode("utf-8", "replace")
    written = False

    def record(code: int | None) -> None:
        nonlocal written
        if written:
            return
        written = True
        event = payload.get("hook_event_name", "") if isinstance(payload, dict) else ""
        line = {
            "pid": os.getpid(),
            "argv": sys.argv,
            "event": event,
            "payload": payload,
            "stdout": "".join(out.seen),
            "stderr": "".join(err.seen),
            "exit": code,  # os._exit's code; None: a normal exit (the hook always returns 0)
            "started": started,
            "ended": time.time(),
        }
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(line) + "\n")

    real_exit = os._exit

    def exit_now(status: int) -> NoReturn:  # the hook's watchdog ends it with os._exit
        record(status)
        real_exit(status)

    os._exit = exit_now
    atexit.register(lambda: record(None))


_log = os.environ.get("POWERCONTEXT_HOOK_PROBE")
if (
    _log
    and os.path.basename(sys.argv[0] if sys.argv else "") == "powercontext"
    and "hook" in sys.argv
):
    _install(_log)
