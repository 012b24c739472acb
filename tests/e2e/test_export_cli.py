"""export, import and backup as a user runs them: `powercontext-memory` subprocesses."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import grpc
import sqlean

from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_memory.app import open_service
from tests.conformance.helpers import write_worked_example

from ..serving import SERVER_COMMAND, run_admin, serve_process, server_env
from .requests import remember

ROOT = Path(__file__).resolve().parents[2]


def _rows(database: Path, table: str) -> int:
    db = sqlean.connect(str(database))
    try:
        return int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
    finally:
        db.close()


def _verified(database: Path) -> str:
    result = run_admin("verify", "--database", str(database))
    assert result.returncode == 0, result.stdout + result.stderr
    return str(result.stdout)


def test_export_then_import_into_a_new_database_and_again(tmp_path: Path) -> None:
    source, target, file = tmp_path / "a.sqlite3", tmp_path / "b.sqlite3", tmp_path / "a.jsonl"
    write_worked_example(source)
    exported = run_admin("export", "--database", str(source), "--output", str(file))
    assert exported.returncode == 0, exported.stderr
    assert "exported 1 memories: 3 revisions, 4 entry versions, 5 sources" in exported.stderr
    assert json.loads(file.read_bytes().splitlines()[0])["format"] == "powercontext-memory-export"

    first = run_admin("import", str(file), "--database", str(target))
    assert first.returncode == 0, first.stderr
    assert "revisions 1-3 of 3 written" in first.stderr  # progress, on stderr
    assert first.stdout.startswith(
        "imported 1 memories (1 written, 0 already present): 3 revisions"
    )
    assert _verified(target) == _verified(source)

    again = run_admin("import", str(file), "--database", str(target))
    assert again.returncode == 0, again.stderr
    assert (
        "(0 written, 1 already present): 0 revisions, 0 entry versions, 0 sources" in again.stdout
    )


def test_export_to_stdout_piped_into_import_from_stdin(tmp_path: Path) -> None:
    source, target = tmp_path / "a.sqlite3", tmp_path / "piped.sqlite3"
    write_worked_example(source)
    exported = subprocess.run(
        [SERVER_COMMAND, "export", "--database", str(source), "--output", "-"],
        capture_output=True,
        env=server_env(),
        timeout=120,
        check=True,
    )
    imported = run_admin("import", "-", "--database", str(target), stdin=exported.stdout)
    assert imported.returncode == 0, imported.stderr
    assert _verified(target) == _verified(source)


def test_import_refuses_a_tampered_or_truncated_file_and_writes_nothing(tmp_path: Path) -> None:
    source, file = tmp_path / "a.sqlite3", tmp_path / "a.jsonl"
    write_worked_example(source)
    assert run_admin("export", "--database", str(source), "--output", str(file)).returncode == 0
    lines = file.read_bytes().splitlines(keepends=True)
    number = next(i for i, line in enumerate(lines, 1) if b"make docs-test" in line)
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_bytes(
        b"".join(lines[: number - 1] + [lines[number - 1].replace(b"docs-test", b"docs-tests")])
        + b"".join(lines[number:])
    )
    prefix = tmp_path / "prefix.jsonl"
    prefix.write_bytes(b"".join(lines[: len(lines) // 2]))
    target = tmp_path / "target.sqlite3"
    for bad, words in ((tampered, f"line {number}: entry version"), (prefix, "truncated")):
        refused = run_admin("import", str(bad), "--database", str(target))
        assert refused.returncode == 1
        assert words in refused.stderr and "nothing was imported" in refused.stderr, refused.stderr
        assert _rows(target, "artifact_revisions") == _rows(target, "sources") == 0
    assert run_admin("import", str(file), "--database", str(target)).returncode == 0
    assert _verified(target) == _verified(source)


def test_export_of_an_unknown_memory_fails_and_leaves_no_file(tmp_path: Path) -> None:
    source, file = tmp_path / "a.sqlite3", tmp_path / "x.jsonl"
    write_worked_example(source)
    result = run_admin(
        "export", "--database", str(source), "--memory", "mem_art_nope", "--output", str(file)
    )
    assert result.returncode == 1 and "memory mem_art_nope does not exist" in result.stderr
    assert list(tmp_path.glob("x.jsonl*")) == []


def test_backup_refuses_oceanbase_an_existing_copy_and_a_missing_database(tmp_path: Path) -> None:
    dsn = run_admin("backup", "--database", "oceanbase://root@127.0.0.1:1/test", "--output", "x")
    assert dsn.returncode == 2 and "powercontext-memory export" in dsn.stderr
    database, existing = tmp_path / "a.sqlite3", tmp_path / "exists.sqlite3"
    write_worked_example(database)
    existing.write_bytes(b"keep me")
    taken = run_admin("backup", "--database", str(database), "--output", str(existing))
    assert taken.returncode == 1 and "exists" in taken.stderr
    assert existing.read_bytes() == b"keep me"
    missing = run_admin("backup", "--database", str(tmp_path / "nope.sqlite3"), "--output", "y")
    assert missing.returncode == 2 and "no database" in missing.stderr


async def _content_hashes(database: Path, last: int) -> list[str]:
    service = await open_service(database)
    try:
        async with service.backend.read() as session:
            [artifact_id] = await session.tx.artifact_ids()
            return [c.content_hash for c in await session.changes(artifact_id, 1, last)]
    finally:
        await service.close()


async def test_backup_of_a_serving_database_while_writes_continue(tmp_path: Path) -> None:
    live, copy = tmp_path / "live.sqlite3", tmp_path / "copy.sqlite3"
    with serve_process(live) as served:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{served.port}") as channel:
            stub = pb_grpc.MemoryServiceStub(channel)
            acked: list[types.ArtifactRef] = [(await stub.Remember(remember(None, "0"))).memory]
            stop = asyncio.Event()
            more = asyncio.Event()

            async def writer() -> None:
                while not stop.is_set():
                    head = acked[-1]
                    acked.append((await stub.Remember(remember(head, f"{head.revision}"))).memory)
                    more.set()

            async def acknowledged(count: int) -> None:
                while len(acked) < count:
                    more.clear()
                    await asyncio.wait_for(more.wait(), 30)

            task = asyncio.create_task(writer())
            try:
                await acknowledged(40)
                before = acked[-1].revision  # acknowledged before the backup started
                started_at = len(acked)
                backup = await asyncio.create_subprocess_exec(
                    SERVER_COMMAND,
                    "backup",
                    "--database",
                    str(live),
                    "--output",
                    str(copy),
                    env=server_env(),
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE,
                )
                out, err = await backup.communicate()
                ended_at = len(acked)
                assert backup.returncode == 0, err.decode()
                await acknowledged(ended_at + 5)  # and the server goes on serving
            finally:
                stop.set()
                await task
    assert ended_at > started_at  # commits were acknowledged while the copy was being taken
    assert out.decode().startswith("backup: 1 memories, ")
    verified = _verified(copy)
    copied = int(verified.split(" memories, ")[1].split(" revisions")[0])
    assert before <= copied <= acked[-1].revision
    assert await _content_hashes(copy, copied) == await _content_hashes(live, copied)
