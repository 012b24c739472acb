"""Commit signals between processes (commit_signal.py), where they live (serving/
follow_wakeups.py) and how the head watcher uses them (notifier.py), in one process: each
CommitSignal here stands for one server process."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from powercontext_memory import commit_signal
from powercontext_memory.commit_signal import CommitSignal, SignalUnavailable
from powercontext_memory.notifier import HeadWatcher
from powercontext_memory.serving.follow_wakeups import (
    ENV_COMMIT_SIGNALS,
    ENV_HEAD_POLL_INTERVAL,
    connect_followers,
    head_poll_interval,
    signal_directory,
)

WAIT = 10.0  # seconds: only a bound on waiting for what must happen


async def _until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting: {what}"
        await asyncio.sleep(0.005)


@contextlib.contextmanager
def _signals(directory: Path, count: int) -> Iterator[tuple[list[CommitSignal], list[list[str]]]]:
    """`count` signals in `directory` and the memory ids each one received."""
    received: list[list[str]] = [[] for _ in range(count)]
    signals = [CommitSignal.bind(directory, received[i].append) for i in range(count)]
    try:
        yield signals, received
    finally:
        for signal in signals:
            signal.close()


def _stale_socket_at(address: str) -> None:
    """A socket file nobody is bound to: what a process killed with SIGKILL leaves."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(address)
    sock.close()


def _stale_socket(path: Path) -> None:
    _stale_socket_at(str(path))


async def test_a_commit_reaches_every_other_process_once_per_memory(tmp_path: Path) -> None:
    directory = tmp_path / "db.signals"
    with _signals(directory, 3) as (signals, received):
        assert directory.stat().st_mode & 0o777 == 0o700
        assert len(list(directory.glob("*.sock"))) == 3
        for artifact_id in ("m1", "m1", "m2", "m1"):  # one burst, read in one go
            signals[0].announce(artifact_id)
        assert signals[0].sent == 8  # never to itself
        await _until(lambda: bool(received[1] and received[2]), "both peers heard")
        assert sorted(received[1]) == sorted(received[2]) == ["m1", "m2"]
        assert received[0] == []


async def test_close_removes_the_socket_and_the_last_one_the_directory(tmp_path: Path) -> None:
    directory = tmp_path / "db.signals"
    with _signals(directory, 2) as (signals, received):
        signals[1].close()
        assert [p.name for p in directory.iterdir()] == [signals[0].name]
        signals[0].announce("m1")  # a peer gone cleanly is no error, and nothing is sent
        assert signals[0].sent == 0
        signals[1].announce("m1")  # nor is a commit announced after close
        signals[0].close()
        assert not directory.exists()
    assert received == [[], []]


async def test_stale_sockets_are_removed_at_bind_and_by_senders(tmp_path: Path) -> None:
    directory = tmp_path / "db.signals"
    directory.mkdir(mode=0o700)
    _stale_socket(directory / "1-00000000.sock")
    (directory / "2-notasocket.sock").write_text("someone else's file")
    with _signals(directory, 2) as (signals, received):
        assert signals[0].removed == 1 and not (directory / "1-00000000.sock").exists()
        _stale_socket(directory / "3-00000000.sock")  # killed after the others bound
        signals[0].announce("m1")
        assert not (directory / "3-00000000.sock").exists()
        assert (directory / "2-notasocket.sock").exists()  # never removed: not a socket
        assert signals[0].sent == 1
        await _until(lambda: received[1] == ["m1"], "the live peer heard")


async def test_a_full_peer_is_skipped_without_waiting(tmp_path: Path) -> None:
    directory = tmp_path / "db.signals"
    with _signals(directory, 1) as (signals, _):
        stuck = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)  # bound, never read
        stuck.bind(str(directory / "4-deadbeef.sock"))
        try:
            started = time.monotonic()
            for _ in range(5000):
                signals[0].announce("m1")
            assert signals[0].skipped > 0 and signals[0].sent > 0
            assert time.monotonic() - started < WAIT  # it never blocked on the full queue
            assert (directory / "4-deadbeef.sock").exists()  # full is not dead
        finally:
            stuck.close()


async def test_a_directory_others_can_use_is_refused(tmp_path: Path) -> None:
    open_to_others = tmp_path / "open.signals"
    open_to_others.mkdir(mode=0o755)
    open_to_others.chmod(0o755)
    with pytest.raises(SignalUnavailable, match="open to others"):
        CommitSignal.bind(open_to_others, lambda _: None)
    assert list(open_to_others.iterdir()) == []
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (tmp_path / "link.signals").symlink_to(elsewhere)
    with pytest.raises(SignalUnavailable, match="not a directory"):
        CommitSignal.bind(tmp_path / "link.signals", lambda _: None)


async def test_a_directory_too_deep_for_a_socket_address_is_reached_by_descriptor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deep = tmp_path / ("d" * 100) / "memory.sqlite3.signals"
    deep.parent.mkdir()
    assert len(str(deep)) > commit_signal.MAX_SOCKET_PATH
    with _signals(deep, 2) as (signals, received):
        assert len(list(deep.glob("*.sock"))) == 2
        _stale_socket_at(signals[0].directory.address("5-00000000.sock"))
        signals[0].announce("m1")
        await _until(lambda: received[1] == ["m1"], "the peer heard")
        assert not (deep / "5-00000000.sock").exists()
    assert not deep.exists()
    monkeypatch.setattr(commit_signal, "PROC_FD", str(tmp_path / "no-proc"))
    with pytest.raises(SignalUnavailable, match="too long"):
        CommitSignal.bind(deep, lambda _: None)


def test_where_the_signals_of_a_database_live(tmp_path: Path) -> None:
    env = {"XDG_RUNTIME_DIR": str(tmp_path / "run")}
    database = "/srv/pcmem/memory.sqlite3"  # need not exist yet
    beside = Path("/srv/pcmem/memory.sqlite3.signals")
    assert signal_directory(database, env) == beside
    assert signal_directory(os.path.relpath(database), env) == beside  # however it is named
    assert signal_directory("/srv/pcmem/../pcmem/memory.sqlite3", env) == beside
    assert signal_directory(":memory:", env) is None
    deep = tmp_path / ("d" * 100) / "memory.sqlite3"  # too deep for a socket: still beside
    assert signal_directory(str(deep), env) == deep.with_name("memory.sqlite3.signals")
    # OceanBase: keyed by host:port/database, whoever connects and with which password.
    one = signal_directory("oceanbase://root@127.0.0.1:2881/pcm", env)
    assert one is not None and one.parent == tmp_path / "run"
    assert one.name.startswith(f"powercontext-signals-{os.geteuid()}-")
    assert signal_directory("oceanbase://app:secret@127.0.0.1:2881/pcm", env) == one
    assert signal_directory("oceanbase://root@127.0.0.1:2881/other", env) != one
    assert signal_directory("oceanbase://root@127.0.0.1:2882/pcm", env) != one
    no_runtime = signal_directory("oceanbase://root@127.0.0.1:2881/pcm", {})
    assert no_runtime == Path("/tmp") / one.name


def test_the_poll_interval_from_the_environment() -> None:
    assert head_poll_interval({}) is None
    assert head_poll_interval({ENV_HEAD_POLL_INTERVAL: "0.25"}) == 0.25
    for bad in ("soon", "0", "-1"):
        with pytest.raises(ValueError, match=ENV_HEAD_POLL_INTERVAL):
            head_poll_interval({ENV_HEAD_POLL_INTERVAL: bad})


class Heads:
    """A database of heads that two watchers (two processes) read."""

    def __init__(self) -> None:
        self.heads: dict[str, int] = {}
        self.reads = 0

    async def read_heads(self, artifact_ids: object) -> dict[str, int]:
        self.reads += 1
        return dict(self.heads)

    async def read_changes(self, artifact_id: str, first: int, last: int) -> list[object]:
        return []


async def test_a_commit_in_one_process_wakes_the_watcher_of_another(tmp_path: Path) -> None:
    database = str(tmp_path / "memory.sqlite3")
    heads = Heads()
    env = {ENV_HEAD_POLL_INTERVAL: "3600"}  # only a signal can wake a watcher here
    here = HeadWatcher(heads.read_heads, heads.read_changes)  # type: ignore[arg-type]
    there = HeadWatcher(heads.read_heads, heads.read_changes)  # type: ignore[arg-type]
    signals = [connect_followers(database, w, env) for w in (here, there)]
    try:
        assert all(signals) and here.interval == there.interval == 3600
        heads.heads["m1"] = 1
        with there.watching("m1") as watch:
            await _until(lambda: watch.head == 1, "the first look at the head")
            heads.heads["m1"] = 2
            here.publish("m1")  # nobody follows m1 here: still announced
            await _until(lambda: watch.head == 2, "the other process's watcher woke")
            reads = heads.reads
            here.publish("m2")  # a memory nobody there follows costs no read
            heads.heads["m1"] = 3
            here.publish("m1")
            await _until(lambda: watch.head == 3, "woken again")
            assert heads.reads == reads + 1
    finally:
        for signal in signals:
            assert signal is not None
            signal.close()
        here.close()
        there.close()


async def test_a_failing_announce_never_fails_the_commit() -> None:
    class Broken:
        def announce(self, artifact_id: str) -> None:
            raise RuntimeError("broken peers")

    heads = Heads()
    watcher = HeadWatcher(heads.read_heads, heads.read_changes)  # type: ignore[arg-type]
    watcher.peers = Broken()
    watcher.publish("m1")  # logged, not raised


async def test_signals_off_or_impossible_leave_the_watcher_polling(tmp_path: Path) -> None:
    heads = Heads()
    watcher = HeadWatcher(heads.read_heads, heads.read_changes)  # type: ignore[arg-type]
    database = str(tmp_path / "memory.sqlite3")
    assert connect_followers(database, watcher, {ENV_COMMIT_SIGNALS: "off"}) is None
    assert not (tmp_path / "memory.sqlite3.signals").exists() and watcher.peers is None
    (tmp_path / "memory.sqlite3.signals").write_text("a file in the way")
    assert connect_followers(database, watcher, {}) is None  # logged; the poll goes on
    assert watcher.peers is None and watcher.interval == 1.0
