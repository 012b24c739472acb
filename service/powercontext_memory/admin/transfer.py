"""The command lines of export, import and backup (cli/admin_commands.py registers them).

Progress goes to stderr, line by line; an export written to stdout (`--output -`) leaves stdout
to the data. Operator mistakes and refused files end in one `error:` line and exit code 1
(2 for usage: a missing database or a backend the command does not apply to).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import IO

import sqlean

from ..app import open_service
from ..arguments import positive_int
from ..backends.oceanbase.wire import is_oceanbase_dsn
from ..domain.errors import MemoryServiceError
from ..memory import MemoryService
from .backup import backup
from .export import ExportReport, export
from .export_format import ExportFileError
from .importer import BATCH_REVISIONS, ImportConflictError, ImportRefusedError, import_file

OpenService = Callable[[argparse.Namespace], Awaitable[MemoryService]]


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


# -- export --------------------------------------------------------------------------------------


def export_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--memory",
        action="append",
        default=[],
        metavar="ID",
        help="export this memory (repeatable); default: every memory and every source",
    )
    parser.add_argument(
        "--output",
        required=True,
        metavar="FILE",
        help="the export file (JSON Lines), '-' for stdout; a file is written under a "
        "temporary name and renamed when complete",
    )


def export_run(args: argparse.Namespace) -> int:
    try:
        if args.output == "-":
            report = asyncio.run(_export(args, sys.stdout.buffer))
            sys.stdout.buffer.flush()
        else:
            report = _export_to_file(args, Path(args.output))
    except (MemoryServiceError, OSError, ValueError) as error:
        print(f"error: {getattr(error, 'message', error)}", file=sys.stderr)
        return 1
    _stderr(
        f"exported {report.memories} memories: {report.revisions} revisions, "
        f"{report.entry_versions} entry versions, {report.sources} sources, "
        f"{report.labels} labels"
    )
    for memory, others in sorted(report.outside.items()):
        _stderr(
            f"note: {memory} cites memories not in this export ({', '.join(sorted(others))}); "
            "the target of an import must hold them already"
        )
    return 0


def _export_to_file(args: argparse.Namespace, output: Path) -> ExportReport:
    output.parent.mkdir(parents=True, exist_ok=True)
    partial = output.with_name(output.name + ".partial")
    try:
        with partial.open("wb") as out:
            report = asyncio.run(_export(args, out))
            out.flush()
            os.fsync(out.fileno())
        os.replace(partial, output)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
        raise
    return report


async def _export(args: argparse.Namespace, out: IO[bytes]) -> ExportReport:
    service = await open_service(args.database)
    try:
        return await export(service.backend, out, args.memory, progress=_stderr)
    finally:
        await service.close()


# -- import --------------------------------------------------------------------------------------


def import_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="an export file, '-' for stdin")
    parser.add_argument(
        "--batch-revisions",
        type=positive_int,
        default=BATCH_REVISIONS,
        metavar="N",
        help=f"revisions written per transaction (default {BATCH_REVISIONS})",
    )


def import_run(args: argparse.Namespace, open_with_model: OpenService) -> int:
    with contextlib.ExitStack() as stack:
        if args.file == "-":
            # Two passes (verify, then write) need the file twice: keep stdin in a temp file.
            spool = stack.enter_context(tempfile.NamedTemporaryFile(suffix=".jsonl"))
            shutil.copyfileobj(sys.stdin.buffer, spool)
            spool.flush()
            path = Path(spool.name)
        else:
            path = Path(args.file)
            if not path.is_file():
                print(f"error: no file at {args.file}", file=sys.stderr)
                return 2
        try:
            return asyncio.run(_import(args, path, open_with_model))
        except (ImportRefusedError, ImportConflictError, ExportFileError) as error:
            print(f"error: {args.file}: {error}", file=sys.stderr)
        except (MemoryServiceError, OSError, ValueError) as error:
            print(f"error: {getattr(error, 'message', error)}", file=sys.stderr)
    return 1


async def _import(args: argparse.Namespace, path: Path, open_with_model: OpenService) -> int:
    service = await open_with_model(args)
    try:
        report = await import_file(
            service, path, progress=_stderr, batch_revisions=args.batch_revisions
        )
        profile = service.backend.profile
    finally:
        await service.close()
    print(
        f"imported {report.memories} memories ({report.memories_written} written, "
        f"{report.memories_present} already present): {report.revisions_written} revisions, "
        f"{report.entry_versions_written} entry versions, {report.sources_written} sources, "
        f"{report.labels_written} labels written"
    )
    if report.embedded:
        print(f"embedded {report.embedded} active entries")
    if profile is not None and service.embedding is None:
        print(
            f"note: the database has the embedding profile {profile.profile_id}: run "
            "rebuild-vectors with its model to give the imported entries vectors"
        )
    if report.without_vectors:
        print(
            f"INCOMPLETE vector projection in {len(report.without_vectors)} memories: "
            + ", ".join(report.without_vectors)
        )
        return 1
    return 0


# -- backup --------------------------------------------------------------------------------------


def backup_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--output", required=True, metavar="FILE", help="the copy (a new SQLite file)"
    )


def backup_run(args: argparse.Namespace) -> int:
    if is_oceanbase_dsn(args.database):
        print(
            "error: backup copies a SQLite database file; for OceanBase use "
            "`powercontext-memory export` (portable, any backend) or OceanBase's own physical "
            "backup",
            file=sys.stderr,
        )
        return 2
    try:
        report = backup(Path(args.database), Path(args.output))
    except (OSError, ValueError, sqlean.Error) as error:  # sqlean: a damaged or locked file
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(
        f"backup: {report.memories} memories, {report.revisions} revisions, "
        f"{report.bytes} bytes copied to {args.output}"
    )
    return 0
