"""`powercontext-memory tokens create|list|revoke`: bearer tokens, on the database directly.

Works like the other admin commands (SQLite file or OceanBase DSN in --database), also while
servers run on the same database: a new or revoked token reaches them within the token cache's
5 seconds (security/token_cache.py). `create` prints the token once, alone on stdout (so
`TOKEN=$(powercontext-memory tokens create ...)` captures it), and the database keeps only
its hash; `list` never shows a secret.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Callable
from typing import Any

from ..app import open_storage
from ..backends.database import DatabaseMemoryBackend
from ..domain.errors import MemoryServiceError
from ..security.token_cache import DEFAULT_TTL_SECONDS
from ..security.tokens import (
    AccessToken,
    Scope,
    format_ms,
    issue,
    parse_duration_ms,
    parse_timestamp_ms,
    require_token_id,
)

OUTPUT_FORMATS = ("text", "json")


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def add_arguments(
    parser: argparse.ArgumentParser, database_argument: Callable[[argparse.ArgumentParser], None]
) -> None:
    actions = parser.add_subparsers(dest="tokens_action", required=True, metavar="ACTION")
    create = actions.add_parser(
        "create",
        help="make a token; prints it once (only its hash is stored)",
        description="Make a bearer token and print it once, alone on stdout; the database "
        "keeps only its SHA-256. Scopes include the ones below: read < write < admin.",
    )
    create.add_argument("--name", required=True, help="who or what uses it (shown by list)")
    create.add_argument(
        "--scope",
        required=True,
        choices=[s.value for s in Scope],
        help="read: reads; write: reads and writes; admin: everything",
    )
    create.add_argument(
        "--memory",
        action="append",
        default=[],
        metavar="MEMORY_ID",
        help="allow only this memory (repeat for several; default every memory). Such a "
        "token cannot create memories",
    )
    expiry = create.add_mutually_exclusive_group()
    expiry.add_argument(
        "--expires-in", metavar="DURATION", help="e.g. 90d, 12h, 30m, 2w (default: never)"
    )
    expiry.add_argument(
        "--expires-at", metavar="TIME", help="ISO 8601, e.g. 2026-12-31 or 2026-12-31T18:00Z"
    )
    listing = actions.add_parser(
        "list",
        help="every token: id, name, scope, memories, status and times (never a secret)",
        description="Every token with its id, name, scope, memories, status (active, expired, "
        "revoked) and times, oldest first. Secrets are not stored, so never shown.",
    )
    revoke = actions.add_parser(
        "revoke",
        help="revoke a token by id (servers refuse it within 5 s)",
        description="Revoke a token: servers refuse it within "
        f"{DEFAULT_TTL_SECONDS:g} seconds, and end the follow streams it opened at their "
        "next message.",
    )
    revoke.add_argument("token_id", metavar="TOKEN_ID", help="its id (from list), or the token")
    for sub in (create, listing, revoke):
        database_argument(sub)
        sub.add_argument("-o", "--output", choices=OUTPUT_FORMATS, default="text")


def run(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_run(args))
    except MemoryServiceError as error:  # bad name, memory id, duration, time
        print(f"error: {error.message}", file=sys.stderr)
        return 2


async def _run(args: argparse.Namespace) -> int:
    creating = args.tokens_action == "create"
    # Checked before the database is opened (and, for create, maybe created).
    expires_at = _expiry(args.expires_in, args.expires_at) if creating else None
    token_id = require_token_id(args.token_id) if args.tokens_action == "revoke" else ""
    backend = DatabaseMemoryBackend(await open_storage(args.database))
    try:
        if creating:
            return await _create(backend, args, expires_at)
        if args.tokens_action == "list":
            return await _list(backend, args)
        return await _revoke(backend, token_id, args)
    finally:
        await backend.close()


def _expiry(expires_in: str | None, expires_at: str | None) -> int | None:
    if expires_in is not None:
        return _now_ms() + parse_duration_ms(expires_in)
    if expires_at is not None:
        return parse_timestamp_ms(expires_at)
    return None


def describe(token: AccessToken, now_ms: int) -> dict[str, Any]:
    """A token as `list -o json` shows it: everything but the secret and its hash."""
    return {
        "token_id": token.token_id,
        "name": token.name,
        "scope": token.scope.value,
        "memories": list(token.memories),
        "status": token.status(now_ms).value,
        "created_at": format_ms(token.created_at_ms),
        "expires_at": _time(token.expires_at_ms),
        "revoked_at": _time(token.revoked_at_ms),
    }


def _time(ms: int | None) -> str | None:
    return format_ms(ms) if ms is not None else None


async def _create(
    backend: DatabaseMemoryBackend, args: argparse.Namespace, expires_at: int | None
) -> int:
    now = _now_ms()
    record, token = issue(
        args.name, Scope(args.scope), args.memory, now_ms=now, expires_at_ms=expires_at
    )
    await backend.add_access_token(record)
    if args.output == "json":
        print(json.dumps({"token": token, **describe(record, now)}))
    else:
        print(token)
    memories = ", ".join(record.memories) or "every memory"
    expires = _time(record.expires_at_ms) or "never"
    print(
        f"created token {record.token_id} ({record.name!r}, scope {record.scope.value}, "
        f"{memories}, expires {expires}); it is shown only now: store it",
        file=sys.stderr,
    )
    return 0


async def _list(backend: DatabaseMemoryBackend, args: argparse.Namespace) -> int:
    now = _now_ms()
    rows = [describe(token, now) for token in await backend.access_tokens()]
    if args.output == "json":
        for row in rows:
            print(json.dumps(row))
        return 0
    header = ("ID", "NAME", "SCOPE", "STATUS", "MEMORIES", "CREATED", "EXPIRES", "REVOKED")
    table = [header] + [
        (
            row["token_id"],
            row["name"],
            row["scope"],
            row["status"],
            ",".join(row["memories"]) or "all",
            row["created_at"],
            row["expires_at"] or "never",
            row["revoked_at"] or "-",
        )
        for row in rows
    ]
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    for line in table:
        print("  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip())
    return 0


async def _revoke(backend: DatabaseMemoryBackend, token_id: str, args: argparse.Namespace) -> int:
    now = _now_ms()
    revoked = await backend.revoke_access_token(token_id, now)
    token = await backend.access_token(token_id)
    if token is None:
        print(f"error: no token {token_id} in this database", file=sys.stderr)
        return 1
    if args.output == "json":
        print(json.dumps(describe(token, now)))
    elif revoked:
        print(
            f"revoked token {token_id} ({token.name!r}): servers refuse it within "
            f"{DEFAULT_TTL_SECONDS:g} s"
        )
    else:
        when = _time(token.revoked_at_ms)
        print(f"token {token_id} ({token.name!r}) was already revoked at {when}")
    return 0
