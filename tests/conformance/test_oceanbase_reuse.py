"""The test harness's reuse of OceanBase databases (tests/oceanbase_server.py): a database is
handed out again only without rows and with the tables a service's open makes, so a test
cannot see what the one before it wrote or changed."""

from __future__ import annotations

import asyncmy

from powercontext_memory.api import EntryInput
from powercontext_memory.app import open_service
from powercontext_memory.backends.oceanbase.wire import OceanBaseDsn

from ..oceanbase_server import empty_database


async def _databases(server: str) -> set[str]:
    dsn = OceanBaseDsn.parse(server)
    conn = await asyncmy.connect(host=dsn.host, port=dsn.port, user=dsn.user, password=dsn.password)
    try:
        async with conn.cursor() as cur:
            await cur.execute("SHOW DATABASES")
            return {name for (name,) in await cur.fetchall()}
    finally:
        conn.close()


async def test_a_reused_database_has_no_rows_of_the_test_before(oceanbase_server: str) -> None:
    async with empty_database(oceanbase_server) as first:
        service = await open_service(first)
        await service.remember(None, [], [], [EntryInput(None, "fact", "left behind")])
        assert (await service.list_memories(10, "")).memories
        await service.close()
    async with empty_database(oceanbase_server) as second:
        assert second == first  # handed out again, emptied
        service = await open_service(second)
        try:
            assert (await service.list_memories(10, "")).memories == []
            await service.remember(None, [], [], [EntryInput(None, "fact", "anew")])
            assert len((await service.list_memories(10, "")).memories) == 1
        finally:
            await service.close()


async def test_a_database_whose_schema_changed_is_dropped(oceanbase_server: str) -> None:
    async with empty_database(oceanbase_server) as changed:
        service = await open_service(changed)
        await service.close()
        dsn = OceanBaseDsn.parse(changed)
        conn = await asyncmy.connect(
            host=dsn.host, port=dsn.port, user=dsn.user, password=dsn.password, db=dsn.database
        )
        try:
            async with conn.cursor() as cur:
                await cur.execute("ALTER TABLE memory_entry_versions DROP COLUMN tags")
        finally:
            conn.close()
    assert OceanBaseDsn.parse(changed).database not in await _databases(oceanbase_server)
    async with empty_database(oceanbase_server) as other:
        assert other != changed
