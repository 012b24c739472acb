"""The runtime's commands: bootstrap, sync, hook, setup (thin: the work is in ../runtime/).

`powercontext hook …` is what agent hosts run on every event, so it is reached before the rest
of the command line is even parsed (main() hands argv to `hook_main`), does one to three calls
under a 1.5 s budget, and ALWAYS exits 0: a server that is down, slow or refusing, a payload it
cannot read — the agent goes on without memory, and only stderr says why. Exit 2 would block
the agent in both hosts; it is never used.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from ..config import ENV_ENDPOINT, ClientConfig, TlsConfig
from ..runtime.calls import Calls, Deadline
from ..runtime.manifest import RuntimeManifest

# From the hook's first line of Python; the interpreter's start (~40 ms) and imports (~100 ms)
# come before, so the whole process stays under the hosts' 2 s.
HOOK_BUDGET_SECONDS = 1.5
HOOK_WATCHDOG_SECONDS = 1.75  # the process ends here whatever it is waiting for
CLI_BUDGET_SECONDS = 120.0
HOSTS = ("claude", "codex", "codex-notify")


def _config(args: argparse.Namespace, recorded: str = "") -> ClientConfig:
    """--endpoint, else $POWERCONTEXT_ENDPOINT, else the endpoint the manifest recorded for
    the repository, else the default."""
    endpoint = getattr(args, "endpoint", None) or (
        None if os.environ.get(ENV_ENDPOINT) else recorded or None
    )
    tls = None
    tls_args = [getattr(args, n, None) for n in ("tls_ca", "tls_cert", "tls_key")]
    if getattr(args, "tls", False) or any(tls_args):
        tls = TlsConfig(*tls_args)
    return ClientConfig.from_env(endpoint=endpoint, token=getattr(args, "token", None), tls=tls)


# -- bootstrap / sync -----------------------------------------------------------------------------


def bootstrap_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", default=".", help="a directory in the repository")


def sync_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", default=".", help="a directory in the repository")


def _recorded_endpoint(manifest: RuntimeManifest, path: str) -> str:
    from ..runtime.repo import locate

    found = locate(path, manifest)
    return found.endpoint if found else ""


def run_bootstrap(args: argparse.Namespace) -> int:
    from ..runtime.bootstrap import bootstrap

    manifest = RuntimeManifest()
    config = _config(args, _recorded_endpoint(manifest, args.path))
    with Calls(config, Deadline(CLI_BUDGET_SECONDS)) as calls:
        report = bootstrap(args.path, calls, manifest)
    print("\n".join(report.lines()))
    return 0


def run_sync(args: argparse.Namespace) -> int:
    from ..runtime.bootstrap import sync

    manifest = RuntimeManifest()
    config = _config(args, _recorded_endpoint(manifest, args.path))
    with Calls(config, Deadline(CLI_BUDGET_SECONDS)) as calls:
        try:
            report = sync(args.path, calls, manifest)
        except LookupError as error:
            print(f"error: {error.args[0]}", file=sys.stderr)
            return 5
    print("\n".join(report.lines()))
    return 0


# -- setup ----------------------------------------------------------------------------------------


def setup_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("host", choices=("claude", "codex"))
    scope = parser.add_mutually_exclusive_group()
    scope.add_argument("--project", action="store_true", help="this repository (default)")
    scope.add_argument("--user", action="store_true", help="your user settings")
    parser.add_argument("--path", default=".", help="--project: a directory in the repository")
    parser.add_argument(
        "--program", default=None, help="the command hosts run (default: this powercontext)"
    )


def run_setup(args: argparse.Namespace) -> int:
    from ..runtime import git, settings

    program = args.program or settings.program_path()
    project = None
    if not args.user:
        project = git.root(args.path) or Path(args.path).resolve()
    try:
        if args.host == "claude":
            changes = settings.setup_claude(
                project=project, home=Path.home(), program=program, endpoint=args.endpoint
            )
        else:
            codex_home = Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")
            changes = settings.setup_codex(
                project=project, codex_home=codex_home, program=program, endpoint=args.endpoint
            )
    except settings.SetupError as error:
        print(f"error: {error}", file=sys.stderr)
        return 5
    print("\n".join(change.line() for change in changes))
    return 0


# -- hook -----------------------------------------------------------------------------------------


def hook_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("host", choices=HOSTS)
    parser.add_argument(
        "payload", nargs="*", help="codex-notify: the JSON (Codex passes it as the last argument)"
    )


def run_hook(args: argparse.Namespace) -> int:
    """The hook, from the full command line (e.g. `powercontext --endpoint X hook claude`)."""
    return _hook(args.host, args.payload, args.endpoint)


def hook_main(argv: Sequence[str]) -> int:
    """`powercontext hook HOST [--endpoint HOST:PORT] [JSON]`, without the full parser."""
    endpoint = None
    rest: list[str] = []
    items = list(argv)
    while items:
        item = items.pop(0)
        if item == "--endpoint" and items:
            endpoint = items.pop(0)
        elif item.startswith("--endpoint="):
            endpoint = item.partition("=")[2]
        else:
            rest.append(item)
    if not rest or rest[0] not in HOSTS:
        print(
            f"usage: powercontext hook {{{','.join(HOSTS)}}} [--endpoint HOST:PORT]",
            file=sys.stderr,
        )
        return 0  # fail open even on a bad command line: never block the agent
    return _hook(rest[0], rest[1:], endpoint)


def _hook(host: str, payload_args: Sequence[str], endpoint: str | None) -> int:
    started = time.monotonic()
    watchdog = threading.Timer(HOOK_WATCHDOG_SECONDS, _give_up)
    watchdog.daemon = True
    watchdog.start()
    try:
        out = _handle(host, payload_args, endpoint, started)
        if out:
            sys.stdout.write(out)
            sys.stdout.flush()
    except BaseException as error:  # noqa: BLE001 - fail open, whatever happened
        print(f"powercontext hook {host}: {type(error).__name__}: {error}", file=sys.stderr)
    return 0


def _give_up() -> None:
    sys.stderr.write("powercontext hook: out of time, continuing without memory\n")
    sys.stderr.flush()
    os._exit(0)


def _handle(host: str, payload_args: Sequence[str], endpoint: str | None, started: float) -> str:
    from ..runtime.events import parse_hook, parse_notify
    from ..runtime.hooks import HookRunner

    if host == "codex-notify":
        if not payload_args:
            raise ValueError("codex-notify needs the JSON as its last argument")
        event = parse_notify(payload_args[-1])
        if event is None:
            return ""
    else:
        event = parse_hook(host, sys.stdin.read())
    deadline = Deadline(HOOK_BUDGET_SECONDS - (time.monotonic() - started))
    args = argparse.Namespace(endpoint=endpoint)

    def connect(recorded: str) -> Calls:
        return Calls(_config(args, recorded), deadline)

    context = HookRunner(RuntimeManifest(), deadline, connect).handle(event)
    if not context or not event.answers:
        return ""
    answer = {"hookSpecificOutput": {"hookEventName": event.name, "additionalContext": context}}
    return json.dumps(answer, ensure_ascii=False)


# -- as entries of the command table (cli/__init__.py) --------------------------------------------


async def bootstrap_command(client: object, args: argparse.Namespace, printer: object) -> int:
    return run_bootstrap(args)


async def sync_command(client: object, args: argparse.Namespace, printer: object) -> int:
    return run_sync(args)


async def setup_command(client: object, args: argparse.Namespace, printer: object) -> int:
    return run_setup(args)


async def hook_command(client: object, args: argparse.Namespace, printer: object) -> int:
    return run_hook(args)
