"""The offline commands: verify, rebuild and migrate, tokens and signing keys, export, import
and backup (each opens the database itself; none needs a running server)."""

from __future__ import annotations

import argparse
import asyncio
import sys

from ..app import open_service
from ..backends.oceanbase.wire import is_oceanbase_dsn
from .command import database_argument, existing_database
from .embedding_options import embedding_arguments, open_from_args


async def _verify_async(args: argparse.Namespace) -> int:
    from ..verifier import verify

    service = await open_service(args.database)
    try:
        report = await verify(service.backend)
    finally:
        await service.close()
    for problem in report.problems:
        print(f"PROBLEM {problem}")
    summary = (
        f"{report.memories} memories, {report.revisions} revisions, "
        f"{report.entry_versions} entry versions, {report.sources} sources"
    )
    if report.missing_vectors:
        print(
            f"note: {report.missing_vectors} active entries have no vector "
            "(run rebuild-vectors to complete vector search)"
        )
    if report.ok:
        print(f"OK: {summary} verified")
        return 0
    print(f"FAILED: {len(report.problems)} problem(s) in {summary}")
    return 1


def verify_command(args: argparse.Namespace) -> int:
    if not existing_database(args.database):
        return 2
    return asyncio.run(_verify_async(args))


async def _migrate_manifests_async(args: argparse.Namespace) -> int:
    service = await open_service(args.database)
    try:
        migrated, failed = await service.backend.migrate_manifests(
            progress=lambda done: print(f"{done} revisions stored as manifest pieces", flush=True)
        )
    finally:
        await service.close()
    for key in failed:
        print(f"PROBLEM artifact_revisions[{key}]: content does not match its hash, left whole")
    print(f"migrated {migrated} revisions to manifest pieces; {len(failed)} left whole")
    return 1 if failed else 0


def migrate_manifests_command(args: argparse.Namespace) -> int:
    if not existing_database(args.database):
        return 2
    return asyncio.run(_migrate_manifests_async(args))


def admin_arguments(parser: argparse.ArgumentParser) -> None:
    database_argument(parser)
    embedding_arguments(parser)


async def _admin_async(args: argparse.Namespace) -> int:
    from .. import admin

    service = await open_from_args(args)
    try:
        if args.command == "migrate-embedding":
            report = await admin.migrate(service, progress=print)
        else:
            reembed = args.command == "rebuild-vectors" and args.all
            report = await admin.rebuild(service, reembed_all=reembed, progress=print)
    finally:
        await service.close()
    print(
        f"rebuilt {report.memories} memories: {report.rows} active entries, "
        f"{report.embedded} embedded, {report.kept} vectors kept"
    )
    if service.backend.profile is None:
        print("no embedding profile: full text only")
        return 0
    if report.complete:
        print(f"vector projection complete ({service.backend.profile.profile_id})")
        return 0
    print(
        f"INCOMPLETE vector projection in {len(report.without_vector)} memories: "
        + ", ".join(report.without_vector)
    )
    return 1


def admin_command(args: argparse.Namespace) -> int:
    if not existing_database(args.database):
        return 2
    from ..domain.errors import MemoryServiceError

    if args.command in ("rebuild-vectors", "migrate-embedding") and args.embedding == "none":
        print(f"error: {args.command} needs --embedding", file=sys.stderr)
        return 2
    try:
        return asyncio.run(_admin_async(args))
    except (MemoryServiceError, ValueError) as error:
        print(f"error: {getattr(error, 'message', error)}", file=sys.stderr)
        return 1


def rebuild_vectors_arguments(parser: argparse.ArgumentParser) -> None:
    admin_arguments(parser)
    parser.add_argument(
        "--all", action="store_true", help="re-embed every entry, not only missing/invalid ones"
    )


def tokens_arguments(parser: argparse.ArgumentParser) -> None:
    from ..admin import token_commands as tokens

    tokens.add_arguments(parser, database_argument)


def tokens_command(args: argparse.Namespace) -> int:
    # create may make the database (a token before the first start); the others need one.
    if args.tokens_action != "create" and not existing_database(args.database):
        return 2
    from ..admin import token_commands as tokens

    return tokens.run(args)


def rotate_signing_key_command(args: argparse.Namespace) -> int:
    if not is_oceanbase_dsn(args.database) and not existing_database(args.database):
        return 2
    from ..admin import signing_keys

    return signing_keys.run(args)


def export_arguments(parser: argparse.ArgumentParser) -> None:
    from ..admin import transfer

    database_argument(parser)
    transfer.export_arguments(parser)


def export_command(args: argparse.Namespace) -> int:
    if not existing_database(args.database):
        return 2
    from ..admin import transfer

    return transfer.export_run(args)


def import_arguments(parser: argparse.ArgumentParser) -> None:
    from ..admin import transfer

    transfer.import_arguments(parser)
    database_argument(parser)  # the target: a new SQLite file is created
    embedding_arguments(parser)


def import_command(args: argparse.Namespace) -> int:
    from ..admin import transfer

    return transfer.import_run(args, open_from_args)


def backup_arguments(parser: argparse.ArgumentParser) -> None:
    from ..admin import transfer

    database_argument(parser)
    transfer.backup_arguments(parser)


def backup_command(args: argparse.Namespace) -> int:
    from ..admin import transfer

    if not is_oceanbase_dsn(args.database) and not existing_database(args.database):
        return 2
    return transfer.backup_run(args)
