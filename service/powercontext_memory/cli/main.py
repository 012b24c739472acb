"""The commands' table and the entry point."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..logs import configure_logging
from .admin_commands import (
    admin_arguments,
    admin_command,
    backup_arguments,
    backup_command,
    export_arguments,
    export_command,
    import_arguments,
    import_command,
    migrate_manifests_command,
    rebuild_vectors_arguments,
    rotate_signing_key_command,
    tokens_arguments,
    tokens_command,
    verify_command,
)
from .command import Command, database_argument
from .serve_command import serve
from .serve_options import serve_arguments

COMMANDS: list[Command] = [
    Command("serve", "run the gRPC server", serve_arguments, serve),
    Command(
        "verify",
        "re-check every stored revision, entry version, source and the projection offline",
        database_argument,
        verify_command,
    ),
    Command(
        "rebuild-projection",
        "offline: rebuild every memory's head projection and full-text index (keeps valid "
        "vectors; embeds missing ones when --embedding is given)",
        admin_arguments,
        admin_command,
    ),
    Command(
        "rebuild-vectors",
        "offline: embed every active entry that lacks a valid vector (--all: every entry)",
        rebuild_vectors_arguments,
        admin_command,
    ),
    Command(
        "migrate-embedding",
        "offline: switch the database to the --embedding model's profile and re-embed all",
        admin_arguments,
        admin_command,
    ),
    Command(
        "migrate-manifests",
        "offline: store revisions written before manifest pieces as pieces (resumable, "
        "idempotent; each revision's hash is checked first)",
        database_argument,
        migrate_manifests_command,
    ),
    Command(
        "tokens",
        "bearer tokens for clients: create (shown once), list, revoke",
        tokens_arguments,
        tokens_command,
    ),
    Command(
        "rotate-signing-key",
        "add a new key for page and preview tokens and keep only the previous one (older "
        "keys' tokens are refused); running servers take it within a minute",
        database_argument,
        rotate_signing_key_command,
    ),
    Command(
        "export",
        "write memories (default: all) to a portable, self-verifying JSON Lines file",
        export_arguments,
        export_command,
    ),
    Command(
        "import",
        "load an export file into --database (SQLite or OceanBase): verified, idempotent, "
        "resumable",
        import_arguments,
        import_command,
    ),
    Command(
        "backup",
        "copy a live SQLite database consistently (online backup API) while it serves",
        backup_arguments,
        backup_command,
    ),
]


def build_parser(commands: Sequence[Command] = ()) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="powercontext-memory",
        description="PowerContext Memory: versioned, auditable memory for coding agents.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in commands or COMMANDS:
        sub = subparsers.add_parser(command.name, help=command.help, description=command.help)
        command.add_arguments(sub)
        sub.set_defaults(run=command.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # serve --workers passes them on
    configure_logging(
        getattr(args, "log_format", "text"), worker=getattr(args, "worker_index", None)
    )
    return args.run(args)
