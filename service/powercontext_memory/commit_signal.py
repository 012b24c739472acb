"""Commit signals between the processes that serve one database on one host.

Every serving process binds a Unix datagram socket in one directory that all processes of the
same database share (serving/follow_wakeups.py says which). After each commit, the committing
process sends the memory's id to every other socket there; a receiver hands it to its head
watcher, which reads the heads at once instead of at its next poll. A signal is only a hint
(the database stays the truth): a lost one delays a follower until that poll, never more.

Sending never waits and never fails a write: a peer whose queue is full is skipped, and a
socket file whose process is gone (killed without its clean stop) is removed by whoever finds
it, at bind time or when sending. A socket address holds at most 107 bytes: a directory whose
path is longer is addressed through its open descriptor (/proc/self/fd/N, Linux).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import secrets
import socket
import stat
from collections.abc import Callable
from pathlib import Path

logger = logging.getLogger(__name__)

SUFFIX = ".sock"
# sun_path holds 108 bytes with its NUL; a name is "PID-8HEX.sock" (a pid has at most 7 digits).
MAX_SOCKET_PATH = 107
LONGEST_NAME = len("4194304-") + 8 + len(SUFFIX)
PROC_FD = "/proc/self/fd"
MAX_DATAGRAM = 512  # a memory id is at most 128 ASCII characters (domain/validation.py)
BIND_TRIES = 5

OnCommit = Callable[[str], None]


class SignalUnavailable(OSError):
    """The directory cannot be used safely (not ours, open to others) or cannot be addressed."""


class SharedDirectory:
    """The directory every process of one database shares, held open for as long as this
    process serves: its names are reached through its path, or through its descriptor when
    the path is too long for a socket address."""

    def __init__(self, path: Path, fd: int, base: str) -> None:
        self.path = path
        self.fd = fd
        self.base = base  # what a name is appended to, for a socket address

    @classmethod
    def open(cls, path: Path) -> SharedDirectory:
        """Create `path` (mode 0700) unless it exists, and open it; refuse a directory that
        another user owns or that others may enter (anyone who can send there could wake our
        watcher), and anything that is not a directory (a symbolic link included)."""
        with contextlib.suppress(FileExistsError):
            os.mkdir(path, 0o700)
            os.chmod(path, 0o700)  # whatever the umask left
        flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            fd = os.open(path, flags)
        except OSError as error:
            if error.errno in (errno.ENOTDIR, errno.ELOOP):
                raise SignalUnavailable(errno.ENOTDIR, "not a directory", str(path)) from error
            raise
        try:
            found = os.fstat(fd)
            if found.st_uid != os.geteuid() or found.st_mode & 0o077:
                raise SignalUnavailable(
                    errno.EPERM, "owned by another user or open to others", str(path)
                )
            if len(os.fsencode(path)) + 1 + LONGEST_NAME <= MAX_SOCKET_PATH:
                base = str(path)
            elif os.path.isdir(PROC_FD):
                base = f"{PROC_FD}/{fd}"
            else:
                raise SignalUnavailable(errno.ENAMETOOLONG, "too long for a socket", str(path))
        except BaseException:
            os.close(fd)
            raise
        return cls(path, fd, base)

    def address(self, name: str) -> str:
        return f"{self.base}/{name}"

    def sockets(self) -> list[str]:
        """The names of the socket files here (ours included)."""
        try:
            with os.scandir(self.fd) as entries:
                return [e.name for e in entries if e.name.endswith(SUFFIX)]
        except OSError:
            return []

    def remove_stale(self, name: str) -> bool:
        """Remove a socket file that nothing is bound to any more; whether it was removed."""
        try:
            if not stat.S_ISSOCK(os.stat(name, dir_fd=self.fd, follow_symlinks=False).st_mode):
                return False  # only sockets are ever removed, never a file someone put here
            os.unlink(name, dir_fd=self.fd)
        except FileNotFoundError:
            return False
        logger.debug("removed the stale commit signal socket %s", self.path / name)
        return True

    def close(self, name: str) -> None:
        """Remove our socket `name`, and the directory when it was the last one."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name, dir_fd=self.fd)
        os.close(self.fd)
        with contextlib.suppress(OSError):  # not empty: other processes still serve here
            os.rmdir(self.path)


def _bound_by_nobody(address: str) -> bool:
    """Connecting a datagram socket sends nothing: refused means nobody is bound there."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        probe.connect(address)
    except ConnectionRefusedError:
        return True
    except OSError:
        return False
    finally:
        probe.close()
    return False


class CommitSignal:
    """This process's socket in the shared directory: it receives the other processes'
    commits (handing each memory id to `on_commit`) and tells them of this process's own."""

    def __init__(self, directory: SharedDirectory, sock: socket.socket, name: str) -> None:
        self.directory = directory
        self.name = name
        self.path = directory.path / name
        self._sock = sock
        self._on_commit: OnCommit | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.sent = 0  # datagrams sent (tests and diagnostics)
        self.skipped = 0  # peers skipped: full, or refused for another reason
        self.removed = 0  # stale sockets removed
        self.closed = False

    @classmethod
    def bind(cls, path: Path, on_commit: OnCommit) -> CommitSignal:
        """Bind a new socket in the directory `path` (created 0700 if missing), remove the
        stale ones found there, and hand every memory id received to `on_commit` on the
        running loop."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            sock.setblocking(False)
            directory, name = cls._bind(sock, path)
        except BaseException:
            sock.close()
            raise
        signal = cls(directory, sock, name)
        signal.sweep()
        signal._receive_on(asyncio.get_running_loop(), on_commit)
        return signal

    @staticmethod
    def _bind(sock: socket.socket, path: Path) -> tuple[SharedDirectory, str]:
        for _ in range(BIND_TRIES):
            directory = SharedDirectory.open(path)
            name = f"{os.getpid()}-{secrets.token_hex(4)}{SUFFIX}"
            try:
                sock.bind(directory.address(name))
                return directory, name
            except OSError as error:
                os.close(directory.fd)
                # ENOENT: the last process to leave removed the directory; open it anew.
                if error.errno not in (errno.ENOENT, errno.EADDRINUSE):
                    raise
        raise SignalUnavailable(errno.EADDRINUSE, "no socket could be bound", str(path))

    def _receive_on(self, loop: asyncio.AbstractEventLoop, on_commit: OnCommit) -> None:
        self._on_commit = on_commit
        self._loop = loop
        loop.add_reader(self._sock.fileno(), self._receive)

    def _peers(self) -> list[str]:
        return [name for name in self.directory.sockets() if name != self.name]

    def sweep(self) -> int:
        """Remove the sockets of processes that are gone; how many."""
        removed = 0
        for name in self._peers():
            if _bound_by_nobody(self.directory.address(name)):
                removed += self.directory.remove_stale(name)
        self.removed += removed
        return removed

    def announce(self, artifact_id: str) -> None:
        """Tell every other process here that `artifact_id` has a new revision. Never blocks
        and never raises: a peer that cannot take it now is skipped."""
        if self.closed:
            return
        payload = artifact_id.encode()[:MAX_DATAGRAM]
        for name in self._peers():
            try:
                self._sock.sendto(payload, self.directory.address(name))
                self.sent += 1
            except FileNotFoundError:  # stopped cleanly since the directory was read
                pass
            except ConnectionRefusedError:  # its process is gone without unbinding
                self.removed += self.directory.remove_stale(name)
            except OSError as error:  # full (EAGAIN), not permitted, ...: a hint, skipped
                self.skipped += 1
                logger.debug("commit signal to %s skipped: %s", name, error)

    def _receive(self) -> None:
        """Read every datagram waiting, then wake once per memory named."""
        named: set[str] = set()
        while True:
            try:
                data = self._sock.recv(MAX_DATAGRAM)
            except (BlockingIOError, InterruptedError):
                break
            except OSError as error:
                logger.debug("commit signal: receiving failed: %s", error)
                break
            named.add(data.decode(errors="replace"))
        if self._on_commit is not None:
            for artifact_id in named:
                self._on_commit(artifact_id)

    def close(self) -> None:
        """Stop receiving, remove this socket, and the directory when it was the last one."""
        if self.closed:
            return
        self.closed = True
        if self._loop is not None and not self._loop.is_closed():
            self._loop.remove_reader(self._sock.fileno())
        self._loop = None
        self.directory.close(self.name)
        self._sock.close()
