"""`powercontext-memory rotate-signing-key` as an operator runs it, on SQLite and OceanBase:
the previous key's tokens still verify after one rotation, a dropped key's are refused."""

from __future__ import annotations

import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from powercontext_memory.app import open_service
from powercontext_memory.domain.errors import InvalidArgumentError
from powercontext_memory.security.signing import PAGE, PREVIEW

from ..oceanbase_server import fresh_database
from ..serving import SERVER_COMMAND, server_env


def rotate(database: str, code: int = 0) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [SERVER_COMMAND, "rotate-signing-key", "--database", database],
        capture_output=True,
        text=True,
        env=server_env(),
        timeout=120,
    )
    assert done.returncode == code, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    return done


@pytest.fixture(params=["sqlite", "oceanbase"])
async def database(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    if request.param == "sqlite":
        yield str(tmp_path / "memory.sqlite3")
        return
    server: str = request.getfixturevalue("oceanbase_server")
    async with fresh_database(server) as dsn:
        yield dsn


async def _sign(database: str, payload: dict[str, str]) -> tuple[str, str]:
    service = await open_service(database)
    try:
        return service.signer.signing_key_id, service.signer.sign(PAGE, payload)
    finally:
        await service.close()


async def _verify(database: str, token: str) -> dict[str, object]:
    service = await open_service(database)
    try:
        return service.signer.verify(PAGE, token, "page_token")
    finally:
        await service.close()


async def test_rotation_keeps_the_previous_key_only(database: str) -> None:
    first_key, first = await _sign(database, {"n": "1"})
    assert first_key == "k000001"
    assert (await _sign(database, {"n": "1"}))[0] == first_key, "servers share the stored key"

    out = rotate(database).stdout
    assert "signing key k000002 now signs" in out and "dropped" not in out
    second_key, second = await _sign(database, {"n": "2"})
    assert second_key == "k000002"
    assert (await _verify(database, first))["n"] == "1", "the previous key still verifies"

    out = rotate(database).stdout
    assert "signing key k000003 now signs" in out and "dropped key(s) k000001" in out
    with pytest.raises(InvalidArgumentError) as refused:
        await _verify(database, first)
    assert refused.value.reason == "PAGE_TOKEN_INVALID"
    assert refused.value.field == "page_token"
    assert (await _verify(database, second))["n"] == "2"


async def test_purpose_is_bound(database: str) -> None:
    _, token = await _sign(database, {"n": "1"})
    service = await open_service(database)
    try:
        with pytest.raises(InvalidArgumentError) as refused:
            service.signer.verify(PREVIEW, token, "preview_token")
        assert (refused.value.reason, refused.value.field) == (
            "PREVIEW_TOKEN_INVALID",
            "preview_token",
        )
    finally:
        await service.close()


def test_rotation_refuses_a_missing_sqlite_file(tmp_path: Path) -> None:
    done = rotate(str(tmp_path / "absent.sqlite3"), code=2)
    assert "no database at" in done.stderr
    assert not (tmp_path / "absent.sqlite3").exists()
