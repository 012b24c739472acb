"""`powercontext-memory tokens create|list|revoke` as a user runs it, on SQLite and on an
OceanBase DSN (the command works on the database directly, like the other admin commands)."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from powercontext_memory.app import open_service
from powercontext_memory.cli import build_parser
from powercontext_memory.security.tokens import hash_secret, parse_presented

from ..oceanbase_server import fresh_database
from ..serving import SERVER_COMMAND, server_env

TOKEN = re.compile(r"pcm_[0-9a-f]{16}_[A-Za-z0-9_\-]{43}")


def tokens(database: str, *args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [SERVER_COMMAND, "tokens", *args, "--database", database],
        capture_output=True,
        text=True,
        env=server_env(),
        timeout=120,
    )
    assert done.returncode == code, (args, done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    return done


@pytest.fixture(params=["sqlite", "oceanbase"])
async def database(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    if request.param == "sqlite":
        yield str(tmp_path / "new" / "memory.sqlite3")  # create makes it
        return
    server: str = request.getfixturevalue("oceanbase_server")
    async with fresh_database(server) as dsn:
        yield dsn


def listing(database: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in tokens(database, "list", "-o", "json").stdout.splitlines()]


async def test_create_list_revoke(database: str) -> None:
    created = tokens(database, "create", "--name", "ci bot", "--scope", "write")
    token = created.stdout.strip()
    assert TOKEN.fullmatch(token), "the token alone on stdout"
    presented = parse_presented(token)
    assert presented is not None
    assert f"created token {presented.token_id} ('ci bot', scope write" in created.stderr
    assert "shown only now" in created.stderr

    limited = json.loads(
        tokens(
            database, "create", "--name", "dash", "--scope", "read", "--memory", "mem_art_b",
            "--memory", "mem_art_a", "--expires-at", "2099-01-01", "-o", "json",
        ).stdout
    )  # fmt: skip
    assert TOKEN.fullmatch(limited["token"])
    assert limited["memories"] == ["mem_art_a", "mem_art_b"]
    assert limited["expires_at"] == "2099-01-01T00:00:00Z"

    listed = listing(database)
    assert [(t["name"], t["scope"], t["status"]) for t in listed] == [
        ("ci bot", "write", "active"),
        ("dash", "read", "active"),
    ]
    table = tokens(database, "list").stdout
    assert table.splitlines()[0].split() == [
        "ID", "NAME", "SCOPE", "STATUS", "MEMORIES", "CREATED", "EXPIRES", "REVOKED",
    ]  # fmt: skip
    assert "mem_art_a,mem_art_b" in table and "2099-01-01T00:00:00Z" in table
    stored_hash = hash_secret(presented.token_id, presented.secret)
    for shown in (table, json.dumps(listed)):
        assert presented.secret not in shown and stored_hash not in shown

    revoked = tokens(database, "revoke", token)  # the whole token works as well as its id
    assert f"revoked token {presented.token_id} ('ci bot')" in revoked.stdout
    again = tokens(database, "revoke", presented.token_id)
    assert "was already revoked at" in again.stdout
    listed = listing(database)
    assert listed[0]["status"] == "revoked" and listed[0]["revoked_at"]

    service = await open_service(database)  # what a server on this database sees
    try:
        record = await service.backend.access_token(presented.token_id)
        assert record is not None and record.secret_hash == stored_hash
        assert record.revoked_at_ms is not None
    finally:
        await service.close()


def test_mistakes_are_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same command line, in this process (each subprocess would pay every import again;
    `main` minus its logging set-up, which would replace pytest's handlers)."""
    database = str(tmp_path / "memory.sqlite3")

    def main(argv: list[str]) -> int:
        args = build_parser().parse_args(argv)
        return int(args.run(args))

    def fails(*args: str, code: int) -> str:
        try:
            result = main(["tokens", *args, "--database", database])
        except SystemExit as usage:  # argparse
            result = int(usage.code or 0)
        assert result == code, args
        out, err = capsys.readouterr()
        assert out == "" and "Traceback" not in err
        return err

    assert fails("list", code=2) == f"error: no database at {database}\n"
    assert (
        main(["tokens", "create", "--name", "agent", "--scope", "read", "--database", database])
        == 0
    )
    capsys.readouterr()
    unknown = fails("revoke", "0123456789abcdef", code=1)
    assert unknown == "error: no token 0123456789abcdef in this database\n"
    for args, message in [
        (("revoke", "nope"), "error: token_id: must be 16 lowercase hex characters"),
        (("create", "--name", "a'b", "--scope", "read"), "error: name: must be"),
        (("create", "--name", "a", "--scope", "read", "--memory", "bad id"), "error: memories"),
        (("create", "--name", "a", "--scope", "read", "--expires-in", "soon"), "error: expires_in"),
        (("create", "--name", "a", "--scope", "read", "--expires-at", "2001-01-01"), "future"),
    ]:
        assert message in fails(*args, code=2)
    assert "invalid choice: 'root'" in fails("create", "--name", "a", "--scope", "root", code=2)
