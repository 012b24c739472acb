"""The runtime's commands: bootstrap, sync, hook, setup (thin: the work is in ../runtime/).

`powercontext hook …` is what agent hosts run on every event, so it is reached before the rest
of the command line is even parsed (main() hands argv to `hook_main`), does one to three calls
under a 1.5 s budget, and ALWAYS exits 0: a server that is down, slow or refusing, a payload it
cannot read — the agent goes on without memory, and only stderr says why. Exit 2 would block
the agent in every host; it is never used.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from ..config import ClientConfig, TlsConfig
from ..endpoints import resolve
from ..runtime.calls import Calls, Deadline
from ..runtime.manifest import RuntimeManifest

# From the hook's first line of Python; the interpreter's start and imports come before, so the
# budget leaves them room under the hosts' 2 s (timed by `make bench`, bench/hooks.py).
HOOK_BUDGET_SECONDS = 1.5
HOOK_WATCHDOG_SECONDS = 1.75  # the process ends here whatever it is waiting for
CLI_BUDGET_SECONDS = 120.0
LOCAL_START_SECONDS = 30.0  # a command waits this long for the local server it started
HOOK_LOCAL_START_SECONDS = 1.0
HOOK_CALLS_SECONDS = 0.4  # what a hook keeps for its own calls after a local start
HOSTS = ("claude", "codex", "gemini", "codex-notify")
SETUP_HOSTS = ("claude", "codex", "gemini")
DOCTOR_HOSTS = SETUP_HOSTS


def _calls(args: argparse.Namespace, recorded: str, deadline: Deadline, wait: float) -> Calls:
    """Calls to the server endpoints.py picks (--endpoint, $POWERCONTEXT_ENDPOINT, the endpoint
    recorded for the repository, the default, the user's local server started within `wait`
    seconds)."""
    endpoint = resolve(getattr(args, "endpoint", None), recorded, wait=wait)
    tls = None
    tls_args = [getattr(args, n, None) for n in ("tls_ca", "tls_cert", "tls_key")]
    if getattr(args, "tls", False) or any(tls_args):
        tls = TlsConfig(*tls_args)
    config = ClientConfig.from_env(
        endpoint=endpoint.address, token=getattr(args, "token", None), tls=tls
    )
    return Calls(config, deadline, endpoint.recorded_as)


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
    deadline = Deadline(CLI_BUDGET_SECONDS)
    recorded = _recorded_endpoint(manifest, args.path)
    with _calls(args, recorded, deadline, LOCAL_START_SECONDS) as calls:
        report = bootstrap(args.path, calls, manifest)
    print("\n".join(report.lines()))
    return 0


def run_sync(args: argparse.Namespace) -> int:
    from ..runtime.bootstrap import sync

    manifest = RuntimeManifest()
    deadline = Deadline(CLI_BUDGET_SECONDS)
    recorded = _recorded_endpoint(manifest, args.path)
    with _calls(args, recorded, deadline, LOCAL_START_SECONDS) as calls:
        try:
            report = sync(args.path, calls, manifest)
        except LookupError as error:
            print(f"error: {error.args[0]}", file=sys.stderr)
            return 5
    print("\n".join(report.lines()))
    return 0


# -- setup ----------------------------------------------------------------------------------------


def setup_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("host", choices=SETUP_HOSTS)
    scope = parser.add_mutually_exclusive_group()
    scope.add_argument("--project", action="store_true", help="this repository (default)")
    scope.add_argument("--user", action="store_true", help="your user settings")
    parser.add_argument("--path", default=".", help="--project: a directory in the repository")
    parser.add_argument(
        "--program", default=None, help="the command hosts run (default: this powercontext)"
    )


def run_setup(args: argparse.Namespace) -> int:
    from ..runtime import git, settings

    project = None
    if not args.user:
        project = git.root(args.path) or Path(args.path).resolve()
    # Project files are committed: the bare command, found on PATH on every machine.
    program = args.program or (settings.PROGRAM if project is not None else settings.program_path())
    try:
        if args.host == "claude":
            changes = settings.setup_claude(
                project=project, home=Path.home(), program=program, endpoint=args.endpoint
            )
        elif args.host == "gemini":
            changes = settings.setup_gemini(
                project=project, gemini_home=_gemini_home(), program=program, endpoint=args.endpoint
            )
        else:
            codex_home = Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")
            changes = settings.setup_codex(
                project=project, codex_home=codex_home, program=program, endpoint=args.endpoint
            )
    except settings.SetupError as error:
        print(f"error: {error}", file=sys.stderr)
        return 5
    lines = [change.line() for change in changes]
    if project is not None and args.endpoint:
        RuntimeManifest().record_endpoint(project, args.endpoint)
        lines.append(f"recorded: endpoint {args.endpoint} for {project} (runtime manifest)")
    if program == settings.PROGRAM and not settings.on_path():
        lines.append(
            "warning: `powercontext` is not on this shell's PATH, so a host started from it "
            f"cannot run the hooks: add {Path(settings.program_path()).parent} to PATH, or "
            "install with `pipx install 'powercontext-memory[mcp]'`"
        )
    if args.host == "codex":
        lines += settings.codex_trust_advice(project)
    elif args.host == "gemini":
        lines += settings.gemini_advice(project, _gemini_home())
    print("\n".join(lines))
    return 0


def _gemini_home() -> Path:
    """Where Gemini CLI keeps the user's .gemini/: $GEMINI_CLI_HOME, else the home directory."""
    return Path(os.environ.get("GEMINI_CLI_HOME") or Path.home())


# -- doctor ---------------------------------------------------------------------------------------


def doctor_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "hosts",
        nargs="*",
        metavar="HOST",
        help="claude, codex and/or gemini (default: the ones set up here)",
    )
    parser.add_argument("--path", default=".", help="a directory in the repository")


def run_doctor(args: argparse.Namespace) -> int:
    from ..runtime.doctor import Doctor
    from ..runtime.findings import exit_code, report

    hosts = tuple(dict.fromkeys(args.hosts))
    unknown = [h for h in hosts if h not in DOCTOR_HOSTS]
    if unknown:
        choices = ", ".join(DOCTOR_HOSTS)
        print(f"error: unknown host {unknown[0]!r} (choose from {choices})", file=sys.stderr)
        return 2
    findings = Doctor(Path(args.path).resolve(), hosts, args.endpoint).run()
    print("\n".join(report(findings)))
    return exit_code(findings)


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
    from ..runtime.hooks import HookRunner, answer

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
        # A local server that is not running yet is started; the hook waits for it only as
        # long as leaves time for its own calls (else it fails open, the next hook finds it).
        wait = min(HOOK_LOCAL_START_SECONDS, deadline.remaining() - HOOK_CALLS_SECONDS)
        return _calls(args, recorded, deadline, wait)

    return answer(event, HookRunner(RuntimeManifest(), deadline, connect).handle(event))


# -- as entries of the command table (cli/__init__.py) --------------------------------------------


async def bootstrap_command(client: object, args: argparse.Namespace, printer: object) -> int:
    return run_bootstrap(args)


async def sync_command(client: object, args: argparse.Namespace, printer: object) -> int:
    return run_sync(args)


async def setup_command(client: object, args: argparse.Namespace, printer: object) -> int:
    return run_setup(args)


async def hook_command(client: object, args: argparse.Namespace, printer: object) -> int:
    return run_hook(args)


async def doctor_command(client: object, args: argparse.Namespace, printer: object) -> int:
    return run_doctor(args)
