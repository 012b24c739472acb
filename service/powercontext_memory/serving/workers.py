"""`serve --workers N`: N server processes on one port, and the supervisor that runs them.

Each worker is a fresh interpreter running `serve` on its own (its own event loop, database
connections, model and caches) and binds the port with SO_REUSEPORT: the kernel hands each new
TCP connection to one worker, and a channel stays with the worker it reached. Writes stay
correct across workers because the head compare-and-set is in the database; follow streams
read heads from the database, so they see commits made through any worker: at once, since
each worker tells the others of its commits (serving/follow_wakeups.py), and at the next poll
when such a signal is lost.

The supervisor (this module, in the process the operator started) holds the port first, so a
second server cannot join it (the HTTP door's port too: every worker serves HTTP on it);
starts worker 0 alone (it creates or upgrades the schema), then the others; prints the serving
line once every worker serves; forwards SIGTERM/SIGINT as a graceful stop. A worker that fails
to start fails the whole serve; one that exits later stops the others and the supervisor exits
non-zero: nothing is restarted behind the operator's back
(a process manager or container runtime restarts the whole server).
"""

from __future__ import annotations

import asyncio
import logging
import signal
import socket
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..http_door.address import OFF, door_address

logger = logging.getLogger("powercontext_memory.workers")

STOP_SECONDS = 30.0  # a worker's own graceful stop takes at most its grace (5 s) plus closing


class WorkerFailed(RuntimeError):
    """A worker exited before serving (its own error is on stderr already)."""


def hold_port(address: str) -> tuple[socket.socket, str]:
    """Bind `address` ("HOST:PORT", port 0 picks one) for the workers to share; the socket and
    the address with the port it got.

    Bound without SO_REUSEPORT first, so this fails like a single server would when anything
    listens there already (including another server's workers); SO_REUSEPORT is set after, so
    the workers can join. It never listens: connections go to the workers only.
    """
    host, colon, port_text = address.rpartition(":")
    if not colon or not port_text.isdigit():
        raise ValueError(f"--listen must be HOST:PORT, got {address!r}")
    bare = host.removeprefix("[").removesuffix("]")
    everywhere = bare in ("", "::")  # grpc listens on IPv4 and IPv6 then
    target: tuple[Any, ...]
    if everywhere:
        family, target = socket.AF_INET6, ("::", int(port_text))
    else:
        found = socket.getaddrinfo(bare, int(port_text), type=socket.SOCK_STREAM)
        family, target = found[0][0], found[0][4][:2]
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        if everywhere:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as grpc does
        sock.bind(target)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    except OSError as error:
        sock.close()
        raise OSError(f"cannot listen on {address}: {error.strerror or error}") from error
    return sock, f"{host}:{sock.getsockname()[1]}"


@dataclass
class Worker:
    index: int
    process: asyncio.subprocess.Process
    line: str = ""  # its serving line


async def _start(argv: Sequence[str], index: int, address: str, into: list[Worker]) -> None:
    """One worker, `serve` with the operator's arguments on the held port, added to `into` as
    soon as it runs (so it is stopped whatever happens next); returns once it serves. Its
    stdin is a pipe from here: when that closes (this process is gone, even by SIGKILL) the
    worker stops."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "powercontext_memory",
        *argv,
        # Last on the line: these win over the operator's own --listen and --workers.
        "--listen",
        address,
        "--workers",
        "1",
        "--worker-index",
        str(index),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    worker = Worker(index, process)
    into.append(worker)
    assert process.stdout is not None
    line = (await process.stdout.readline()).decode()
    if not line.startswith("serving "):
        code = await process.wait()
        raise WorkerFailed(f"worker {index} exited with code {code} before serving")
    worker.line = line


def _serving_line(first: Worker, count: int) -> str:
    """Worker 0's line ("serving ... (backend: ...; vectors: ...)") naming the worker count."""
    line = first.line.rstrip("\n")
    if line.endswith(")"):
        return f"{line[:-1]}; {count} workers)"
    return f"{line} ({count} workers)"


async def _stop_all(workers: list[Worker]) -> list[int]:
    """SIGTERM every worker still running and wait for each (SIGKILL after STOP_SECONDS)."""
    for worker in workers:
        if worker.process.returncode is None:
            worker.process.send_signal(signal.SIGTERM)
    codes = []
    for worker in workers:
        try:
            codes.append(await asyncio.wait_for(worker.process.wait(), STOP_SECONDS))
        except TimeoutError:
            logger.error("worker %d did not stop in %.0f s: killed", worker.index, STOP_SECONDS)
            worker.process.kill()
            codes.append(await worker.process.wait())
    return codes


async def _started(
    argv: Sequence[str], indexes: range, address: str, into: list[Worker], stop: asyncio.Task[Any]
) -> bool:
    """Start these workers side by side; False if asked to stop first. Raises WorkerFailed."""
    pending = {asyncio.create_task(_start(argv, i, address, into)) for i in indexes}
    try:
        while pending:
            done, pending = await asyncio.wait(
                {stop, *pending}, return_when=asyncio.FIRST_COMPLETED
            )
            if stop in done:
                return False
            pending.discard(stop)
            for task in done:
                task.result()  # a worker that failed fails the serve
        return True
    finally:
        for task in pending:
            task.cancel()


async def _run(argv: Sequence[str], count: int, address: str) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    stopping = asyncio.create_task(stop.wait())
    workers: list[Worker] = []
    try:
        # Worker 0 alone first: opening a database may create or upgrade its schema.
        for indexes in (range(1), range(1, count)):
            if not await _started(argv, indexes, address, workers, stopping):
                return 0
        workers.sort(key=lambda worker: worker.index)
        print(_serving_line(workers[0], count), flush=True)
        exits = {asyncio.create_task(w.process.wait()): w for w in workers}
        done, _ = await asyncio.wait({stopping, *exits}, return_when=asyncio.FIRST_COMPLETED)
        if stopping in done:
            codes = await _stop_all(workers)
            return 0 if all(code == 0 for code in codes) else 1
        gone = exits[next(task for task in done if task is not stopping)]
        logger.error(
            "worker %d (pid %d) exited with code %s: stopping the other workers",
            gone.index,
            gone.process.pid,
            gone.process.returncode,
        )
        return 1
    finally:
        stopping.cancel()
        await _stop_all(workers)  # whatever happened, never leave one behind


def hold_http_port(http_listen: str, grpc_listen: str) -> tuple[socket.socket | None, str]:
    """The HTTP door's port, held for the workers as the gRPC port is, and the --http-listen
    each worker gets (off when there is no door: `off`, or `auto` with its port taken)."""
    wanted = door_address(http_listen, grpc_listen)
    if wanted is None:
        return None, OFF
    try:
        return hold_port(wanted.address)
    except OSError as error:
        if not wanted.optional:
            raise
        logger.warning("no HTTP door: %s (--http-listen auto)", error)
        return None, OFF


def supervise(argv: Sequence[str], count: int, address: str, http_listen: str = OFF) -> int:
    """Run `count` workers of `serve argv` on `address` (and the HTTP door on `http_listen`)
    until SIGTERM/SIGINT; the exit code."""
    held, shared = hold_port(address)
    try:
        http_held, http_shared = hold_http_port(http_listen, address)
    except BaseException:
        held.close()
        raise
    try:
        return asyncio.run(_run([*argv, "--http-listen", http_shared], count, shared))
    finally:
        held.close()
        if http_held is not None:
            http_held.close()
