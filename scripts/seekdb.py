"""Start and stop a throw-away seekdb server (the OceanBase 4.3.5.3 kernel) on 127.0.0.1.

    python scripts/seekdb.py start --dir DIR   # prints the DSN once it answers SELECT 1
    python scripts/seekdb.py stop --dir DIR
    python scripts/seekdb.py run --dir DIR -- python -m pytest -q

`start` keeps the data already in DIR (a restart); `run` deletes DIR afterwards when it
created it. seekdb listens on every interface, so the first start replaces the empty root
password with a random one (kept in DIR, mode 0600); the DSN printed carries it.

The port is chosen once per DIR and kept there too, so the DSN a restart prints is the one
saved before. When another process holds it, `start` says so and stops (`--new-port` takes a
new one, and the DSN changes); `run`, whose DSN lives only as long as its command, moves on to
a free port.

`run` starts the server, runs the command with POWERCONTEXT_TEST_OCEANBASE_DSN set, and stops
the server whatever the command's outcome; it exits with the command's status. The binary
ships in the `pylibseekdb` wheel (requirements-dev.txt); without it this script fails loudly,
so a test run can never silently skip the OceanBase backend.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

DSN_ENV = "POWERCONTEXT_TEST_OCEANBASE_DSN"
READY_TIMEOUT = 90.0
STOP_TIMEOUT = 30.0


def seekdb_binary() -> Path:
    spec = importlib.util.find_spec("pylibseekdb")
    if spec is None or spec.origin is None:
        raise SystemExit(
            "seekdb is not installed: `pip install -r requirements-dev.txt` (package pylibseekdb)"
        )
    binary = Path(spec.origin).parent / "seekdb"
    if not binary.exists():
        raise SystemExit(f"seekdb binary missing from the pylibseekdb package: {binary}")
    return binary


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _state_file(base: Path) -> Path:
    return base / "powercontext-seekdb.json"


def _password_file(base: Path) -> Path:
    return base / "powercontext-seekdb.password"


def _ports_file(base: Path) -> Path:
    return base / "powercontext-seekdb.ports.json"


def port_is_free(port: int) -> bool:
    """Whether seekdb could listen on `port` (on every interface, as it does)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as a listener does
        try:
            s.bind(("", port))
        except OSError:
            return False
    return True


def _free_port_besides(taken: int) -> int:
    port = free_port()
    while port == taken:
        port = free_port()
    return port


def ports(base: Path, *, move_if_taken: bool = False) -> tuple[int, int]:
    """(SQL port, RPC port) for a start on `base`: the ones of its earlier starts when free,
    so a DSN saved from then still works; new ones on a new directory. A taken SQL port stops
    the start with the reason, or, with `move_if_taken`, is replaced by a free one. (The RPC
    port is internal to seekdb and moves silently.)"""
    saved = _ports_file(base)
    if not saved.exists():
        port = free_port()
        rpc_port = _free_port_besides(port)
    else:
        kept = json.loads(saved.read_text())
        port, rpc_port = int(kept["port"]), int(kept["rpc_port"])
        if not port_is_free(port):
            if not move_if_taken:
                raise SystemExit(
                    f"port {port}, where the seekdb of {base} listened before, is taken by "
                    "another process, so a DSN saved from an earlier start would not reach it. "
                    f"Free the port (`ss -ltnp 'sport = :{port}'` shows who holds it) and start "
                    "again, or start with --new-port to take another one (the DSN changes)."
                )
            print(f"port {port} of {base} is taken; using another one", file=sys.stderr)
            port = _free_port_besides(rpc_port)
        if not port_is_free(rpc_port) or rpc_port == port:
            rpc_port = _free_port_besides(port)
    saved.write_text(json.dumps({"port": port, "rpc_port": rpc_port}))
    return port, rpc_port


def _connect(port: int, password: str) -> object | None:
    import pymysql  # a dependency of pylibseekdb

    try:
        return pymysql.connect(
            host="127.0.0.1", port=port, user="root", password=password, connect_timeout=2
        )
    except pymysql.MySQLError:
        return None


def _secure(base: Path, port: int) -> str | None:
    """The root password once the server answers (None while it does not).

    seekdb listens on every interface, with an empty root password on a new data directory:
    the first start sets a random one, kept (0600) beside the data for later starts.
    """
    stored = _password_file(base)
    if stored.exists():
        password = stored.read_text().strip()
        conn = _connect(port, password)
        if conn is None:
            return None
        conn.close()  # type: ignore[attr-defined]
        return password
    conn = _connect(port, "")
    if conn is None:
        return None
    password = secrets.token_urlsafe(18)
    try:
        with conn.cursor() as cur:  # type: ignore[attr-defined]
            cur.execute("ALTER USER root IDENTIFIED BY %s", (password,))
    finally:
        conn.close()  # type: ignore[attr-defined]
    stored.touch(mode=0o600)
    stored.write_text(password)
    return password


def start(base: Path, *, move_if_taken: bool = False, new_port: bool = False) -> str:
    """Start a server on its own data directory (new or kept from an earlier start), on the
    port it had before (see `ports`; `new_port` forgets it); return its DSN (with the root
    password) once it answers."""
    if _state_file(base).exists():
        stop(base)  # a server this script left running (its data stays)
    base.mkdir(parents=True, exist_ok=True)
    if new_port:
        _ports_file(base).unlink(missing_ok=True)
    port, rpc_port = ports(base, move_if_taken=move_if_taken)
    log = (base / "seekdb.out").open("wb")
    process = subprocess.Popen(
        [
            str(seekdb_binary()),
            "--nodaemon",
            f"--base-dir={base.resolve()}",
            "--port",
            str(port),
            "--parameter",
            f"rpc_port={rpc_port}",
            "--parameter",
            "memory_budget=1G",
            "--parameter",
            "log_disk_size=2G",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # a Ctrl-C to the test run must not kill it mid-shutdown
    )
    _state_file(base).write_text(json.dumps({"pid": process.pid, "port": port}))
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            stop(base)
            raise SystemExit(f"seekdb exited with {process.returncode}; see {base}/seekdb.out")
        password = _secure(base, port)
        if password is not None:
            return f"oceanbase://root:{password}@127.0.0.1:{port}/test"
        time.sleep(0.25)
    stop(base)
    raise SystemExit(f"seekdb did not answer within {READY_TIMEOUT:.0f} s; see {base}")


def stop(base: Path) -> None:
    state = _state_file(base)
    if not state.exists():
        return
    pid = int(json.loads(state.read_text())["pid"])
    try:
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT
        while time.monotonic() < deadline:
            if not _alive(pid):
                break
            time.sleep(0.2)
        else:
            os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    state.unlink()


def _alive(pid: int) -> bool:
    try:
        waited, _ = os.waitpid(pid, os.WNOHANG)  # reap it when it is our child
        if waited == pid:
            return False
    except ChildProcessError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@contextlib.contextmanager
def temporary_server() -> Iterator[str]:
    """A fresh server in a temporary directory for the duration of a `with`; its DSN."""
    with tempfile.TemporaryDirectory(prefix="seekdb-") as base:
        dsn = start(Path(base) / "data")
        try:
            yield dsn
        finally:
            stop(Path(base) / "data")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["start", "stop", "run"])
    parser.add_argument("--dir", type=Path, default=Path(".seekdb"), help="data directory")
    parser.add_argument(
        "--new-port",
        action="store_true",
        help="start: forget the port this directory had and take a free one (the DSN changes)",
    )
    argv = sys.argv[1:] if argv is None else argv
    split = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:split])
    command = argv[split + 1 :]
    if args.action == "start":
        print(start(args.dir, new_port=args.new_port))
        return 0
    if args.action == "stop":
        stop(args.dir)
        return 0
    if not command:
        parser.error("run needs a command after --")
    created = not args.dir.exists()
    dsn = start(args.dir, move_if_taken=True)
    print(f"seekdb ready: {dsn}", file=sys.stderr)
    try:
        return subprocess.call(command, env={**os.environ, DSN_ENV: dsn})
    finally:
        stop(args.dir)
        if created:  # never delete a directory this run did not create
            shutil.rmtree(args.dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
