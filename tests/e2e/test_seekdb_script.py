"""scripts/seekdb.py keeps a data directory's port, so a DSN saved from `make seekdb-start`
still works after a restart; when another process took the port, `start` says so plainly and
`run` (a test run) moves on to a free one. A real seekdb, started four times (slow)."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pymysql
import pytest

from powercontext_memory.backends.oceanbase.wire import OceanBaseDsn
from scripts.seekdb import DSN_ENV

from ..serving import ROOT

SCRIPT = ROOT / "scripts" / "seekdb.py"
TIMEOUT = 180.0


def seekdb(action: str, base: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), action, "--dir", str(base), *flags],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )


def started(base: Path, *flags: str) -> str:
    done = seekdb("start", base, *flags)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def answers(dsn: str) -> bool:
    parsed = OceanBaseDsn.parse(dsn)
    conn = pymysql.connect(
        host=parsed.host, port=parsed.port, user=parsed.user, password=parsed.password
    )
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT 1")
            return bool(cur.fetchone() == (1,))
    finally:
        conn.close()


@pytest.fixture
def base(tmp_path: Path) -> Iterator[Path]:
    directory = tmp_path / "seekdb"
    yield directory
    seekdb("stop", directory)  # whatever the test left running


def test_a_restart_keeps_the_port_and_a_taken_port_is_named(base: Path) -> None:
    first = started(base)
    assert seekdb("stop", base).returncode == 0
    again = started(base)
    assert again == first  # same port, same password: the saved DSN still reaches it
    assert answers(first)
    assert seekdb("stop", base).returncode == 0

    port = OceanBaseDsn.parse(first).port
    with socket.socket() as holder:  # another service took the port meanwhile
        holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as servers do
        holder.bind(("127.0.0.1", port))
        holder.listen()
        refused = seekdb("start", base)
        assert refused.returncode == 1
        assert f"port {port}" in refused.stderr and "is taken by another process" in refused.stderr
        assert "--new-port" in refused.stderr
        assert not (base / "powercontext-seekdb.json").exists()  # nothing was started

        # A test run (`run`, the DSN lives as long as its command) moves on instead.
        show_dsn = f"import os; print(os.environ[{DSN_ENV!r}])"
        ran = seekdb("run", base, "--", sys.executable, "-c", show_dsn)
        assert ran.returncode == 0, ran.stderr
        assert f"port {port} of {base} is taken; using another one" in ran.stderr
        assert OceanBaseDsn.parse(ran.stdout.strip()).port != port

        moved = started(base, "--new-port")
    assert OceanBaseDsn.parse(moved).port != port
    assert answers(moved)
