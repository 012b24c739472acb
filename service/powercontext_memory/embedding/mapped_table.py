"""A model's large read-only table served from a file mapping instead of the heap.

USE-multilingual's token table is 65 MB (128,010 pieces x 512 uint8), and a memory's texts use
a few thousand of its rows, a small part of its pages (server RSS with the model:
`make bench BENCH_ARGS=--large`, bench/hybrid.py). In the heap all 65 MB stay resident. Mapped
from a file, only the pages read are, they can be shared by every server process on the machine
(one copy for `--workers N`), and under memory pressure the kernel can drop them and read them
back.

The file is derived from the verified weights at every start: an existing file is compared byte
for byte with the freshly decoded table and rewritten if it differs, so what is mapped is what
was checked (a writer able to change the file in place afterwards could as well change the
installed package). Two kernel hints keep the mapping sparse on Linux: after the check the
file's clean cached pages are dropped, and the mapping is marked random access, so a read
faults in its own page, not the readahead window or the cached pages around it (without them
the whole file ended up resident, measured).
"""

from __future__ import annotations

import io
import logging
import mmap
import os
import tempfile
from pathlib import Path

import numpy as np
import numpy.typing as npt

logger = logging.getLogger(__name__)

# Bytes compared per read while checking an existing file.
_CHECK_CHUNK = 4 << 20


def mapped_table(table: npt.NDArray[np.uint8], directory: Path, name: str) -> npt.NDArray[np.uint8]:
    """`table`'s contents from a read-only mapping of `directory`/`name`, written there first if
    missing or different; `table` itself when the directory cannot be used (logged)."""
    if not table.flags.c_contiguous:
        raise ValueError("mapped_table needs a C-contiguous table")
    if table.nbytes == 0:
        return table  # nothing to map (and an empty file cannot be)
    path = directory / name
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd = _open_matching(path, table)
        if fd is None:
            _write(path, table)
            fd = _open_matching(path, table)
        if fd is None:
            logger.warning(
                "model table file %s does not read back as written; kept in memory", path
            )
            return table
        try:
            return _map(fd, table)
        finally:
            os.close(fd)
    except OSError as error:
        logger.warning("cannot use model table file %s (%s); kept in memory", path, error)
        return table


def _open_matching(path: Path, table: npt.NDArray[np.uint8]) -> int | None:
    """A read-only descriptor of `path` if it holds exactly `table`'s bytes, else None."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    try:
        if os.fstat(fd).st_size != table.nbytes or not _same_bytes(fd, table):
            os.close(fd)
            return None
    except BaseException:
        os.close(fd)
        raise
    return fd


def _same_bytes(fd: int, table: npt.NDArray[np.uint8]) -> bool:
    expected = table.reshape(-1)
    buffer = np.empty(_CHECK_CHUNK, dtype=np.uint8)
    with open(fd, "rb", buffering=0, closefd=False) as file:
        for offset in range(0, table.nbytes, _CHECK_CHUNK):
            size = min(_CHECK_CHUNK, table.nbytes - offset)
            if not _read_exactly(file, buffer.data[:size]):
                return False
            if not np.array_equal(buffer[:size], expected[offset : offset + size]):
                return False
    return True


def _read_exactly(file: io.FileIO, into: memoryview) -> bool:
    """Fill `into` from `file` (reads may come back short); False at an early end of file."""
    done = 0
    while done < len(into):
        count = file.readinto(into[done:])
        if not count:
            return False
        done += count
    return True


def _write(path: Path, table: npt.NDArray[np.uint8]) -> None:
    """`table` at `path`, atomically: concurrent starts each write their own file and rename it
    over the path, and a reader never sees a half-written one."""
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(table.reshape(-1).data)
            out.flush()
            # On disk before the cached pages are dropped: dirty pages cannot be.
            os.fsync(out.fileno())
        os.chmod(temporary, 0o444)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _map(fd: int, table: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    if hasattr(os, "posix_fadvise"):
        # Pages mapped by another server process stay; only unmapped clean ones go.
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    mapping = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    if hasattr(mmap, "MADV_RANDOM"):
        mapping.madvise(mmap.MADV_RANDOM)
    # The array keeps the mapping alive; it is read-only, as the model only indexes it.
    return np.frombuffer(mapping, dtype=np.uint8).reshape(table.shape)
