"""`serve` without --embedding: multilingual hybrid search for a new database, and an existing
database served with the profile it was created with (until migrate-embedding switches it)."""

from __future__ import annotations

import select
import signal
import subprocess
from pathlib import Path

import grpc

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_memory.embedding.multilingual import TABLE_FILE
from powercontext_memory.serving.startup import serving_port

from ..serving import SERVER_COMMAND, run_admin, serve_process, server_env

ENGLISH = "Run `make test` before pushing; the CI runs ruff and mypy and rejects any warning."
CHINESE = "张经理只看邮件，不看即时消息，重要决定要发邮件抄送他。"
AUTO = ("--embedding", "auto")


async def _remember_and_search(port: int, query: str) -> pb.SearchResponse:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = pb_grpc.MemoryServiceStub(channel)
        created = await stub.Remember(
            pb.RememberRequest(
                entries=[types.EntryInput(kind="fact", text=t) for t in (ENGLISH, CHINESE)]
            )
        )
        return await stub.Search(
            pb.SearchRequest(
                query=query, memories=[created.memory], limit=5, mode=types.SEARCH_MODE_AUTO
            )
        )


async def test_serve_gives_a_new_database_multilingual_hybrid_search(tmp_path: Path) -> None:
    # The real default: no --embedding at all (tests/serving.py would add `none`).
    database = tmp_path / "new.sqlite3"
    table = tmp_path / "xdg" / "powercontext-memory" / TABLE_FILE
    proc = subprocess.Popen(
        [SERVER_COMMAND, "serve", "--listen", "127.0.0.1:0", "--database", str(database)],
        cwd=tmp_path,
        env=server_env({"XDG_CACHE_HOME": str(tmp_path / "xdg")}),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert select.select([proc.stdout], [], [], 60)[0], "server printed nothing"
        line = proc.stdout.readline()
        port = serving_port(line)
        assert port and "vectors: use-multilingual-v3" in line, line
        # Its token table is served from the default model cache, mapped, not from the heap.
        assert str(table) in Path(f"/proc/{proc.pid}/maps").read_text()
        # A Chinese question finds the English entry: no shared word, only meaning.
        found = await _remember_and_search(port, "推代码之前要做哪些检查？")
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
        if proc.stdout is not None:
            proc.stdout.close()
    assert found.mode == types.SEARCH_MODE_HYBRID
    assert [hit.text for hit in found.hits][:1] == [ENGLISH]
    assert list(found.hits[0].matched_by) == [types.SEARCH_CHANNEL_VECTOR]


async def test_a_full_text_database_stays_full_text_until_migrated(tmp_path: Path) -> None:
    database = tmp_path / "fts.sqlite3"
    with serve_process(database) as served:  # --embedding none
        await _remember_and_search(served.port, "make test")
    with serve_process(database, *AUTO) as served:
        assert "vectors: off (no embedding model is configured)" in served.line
        found = await _remember_and_search(served.port, "ruff mypy")
        assert found.mode == types.SEARCH_MODE_FTS and found.hits[0].text == ENGLISH
    migrated = run_admin(
        "migrate-embedding", "--database", str(database), "--embedding", "multilingual"
    )
    assert migrated.returncode == 0, migrated.stderr
    assert "vector projection complete (use-multilingual-v3)" in migrated.stdout
    with serve_process(database, *AUTO) as served:
        assert "vectors: use-multilingual-v3" in served.line


async def test_a_minilm_database_keeps_minilm(tmp_path: Path) -> None:
    database = tmp_path / "minilm.sqlite3"
    with serve_process(database, "--embedding", "minilm") as served:
        await _remember_and_search(served.port, "make test")
    with serve_process(database, *AUTO) as served:
        assert "vectors: minilm-l6-v2-int8" in served.line
        found = await _remember_and_search(served.port, "Which checks run before I push code?")
        assert found.mode == types.SEARCH_MODE_HYBRID and found.hits[0].text == ENGLISH
