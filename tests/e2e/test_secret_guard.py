"""The secret guard over a real gRPC channel: Remember and PutSource refused with
INVALID_ARGUMENT / SECRET_DETECTED naming the field and the rule, and the value nowhere in the
status — message, ErrorInfo, BadRequest, the raw trailers — nor in the server's log.

Secrets are generated per run (`secrets`, `cryptography`), never committed.
"""

from __future__ import annotations

import json
import logging
import secrets
import string
import tomllib
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path
from typing import Any

import grpc
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from google.rpc import error_details_pb2

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_client.errors import error_info, status_details, unpack_detail

from .conftest import running_server

ALPHABET = string.ascii_letters + string.digits


def _random(n: int, alphabet: str = ALPHABET) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(n))


def _pem_private_key() -> str:
    return (
        ec.generate_private_key(ec.SECP256R1())
        .private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        .decode()
    )


@pytest.fixture
async def stub(tmp_path: Path) -> AsyncIterator[pb_grpc.MemoryServiceStub]:
    async with (
        running_server(tmp_path / "memory.sqlite3", access_log=True) as server,
        grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel,
    ):
        yield pb_grpc.MemoryServiceStub(channel)


async def _refused(call: Awaitable[Any], field: str, rule: str, *values: str) -> None:
    """The call fails with SECRET_DETECTED on `field` by `rule`; no `values` in the status."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    error = caught.value
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error.details()
    assert error_info(error) == ("SECRET_DETECTED", {"field": field, "rule": rule})
    bad_request = unpack_detail(status_details(error), error_details_pb2.BadRequest)
    assert [v.field for v in bad_request.field_violations] == [field]
    assert field in (error.details() or "") and rule in (error.details() or "")
    trailers = b"".join(
        value if isinstance(value, bytes) else value.encode()
        for _, value in error.trailing_metadata() or ()
    )
    for value in values:
        assert value not in (error.details() or "")
        assert value.encode() not in trailers


def _assert_not_logged(caplog: pytest.LogCaptureFixture, *values: str) -> None:
    assert caplog.records, "the access log should have recorded the calls"
    for record in caplog.records:
        line = record.getMessage() + (record.exc_text or "")
        assert not any(value in line for value in values), record.name


async def test_remember_refuses_a_private_key(
    stub: pb_grpc.MemoryServiceStub, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    key = _pem_private_key()
    body = key.splitlines()[1]
    request = pb.RememberRequest(
        entries=[
            types.EntryInput(kind="fact", text="Deploys run from tools/ship.sh."),
            types.EntryInput(kind="fact", text=f"The deploy key:\n{key}"),
        ]
    )
    await _refused(stub.Remember(request), "entries[1].text", "private-key", body)
    _assert_not_logged(caplog, body)


async def test_remember_refuses_a_secret_in_a_reason(stub: pb_grpc.MemoryServiceStub) -> None:
    created = await stub.Remember(
        pb.RememberRequest(entries=[types.EntryInput(kind="fact", text="Uses ruff.")])
    )
    token = "xox" + "b-" + _random(11, string.digits) + "-" + _random(24)
    revise = types.EntryInput(
        entry=types.EntryRef(
            entry_id=created.results[0].entry_id,
            entry_version_id=created.results[0].entry_version_id,
        ),
        kind="fact",
        text="Uses ruff and mypy.",
        reason=f"Slack bot {token} told us",
    )
    request = pb.RememberRequest(memory=created.memory, entries=[revise])
    await _refused(stub.Remember(request), "entries[0].reason", "slack-token", token)


@pytest.mark.parametrize("place", ["content", "binary content", "uri", "metadata"])
async def test_put_source_refuses_secrets(
    stub: pb_grpc.MemoryServiceStub, caplog: pytest.LogCaptureFixture, place: str
) -> None:
    caplog.set_level(logging.DEBUG)
    key_id = "AKIA" + _random(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
    # Without x: "xxx" reads as a template placeholder (postgres://u:xxx@h), which passes.
    password = _random(20, ALPHABET.replace("x", "").replace("X", ""))
    api_key = _random(32)
    request = pb.PutSourceRequest(
        kind="file", uri="repo://deploy.env", media_type="text/plain", content=b"ordinary"
    )
    if place == "content":
        request.content = f"AWS_ACCESS_KEY_ID={key_id}\n".encode()
        expected, value = ("content", "aws-access-key-id"), key_id
    elif place == "binary content":
        request.media_type = "application/octet-stream"
        noise = secrets.token_bytes(3000)
        request.content = noise + b"\x00" + key_id.encode() + b"\x00" + noise
        expected, value = ("content", "aws-access-key-id"), key_id
    elif place == "uri":
        request.uri = f"postgres://app:{password}@db.internal:5432/main"
        expected, value = ("uri", "connection-string-password"), password
    else:
        request.metadata["api_key"] = api_key  # an assignment once the key is read with it
        expected, value = ("metadata['api_key']", "secret-assignment"), api_key
    await _refused(stub.PutSource(request), *expected, value)
    _assert_not_logged(caplog, value)


def _escaped(text: str, every: int = 1) -> str:
    """`text` with every `every`-th character written as a \\uXXXX escape."""
    return "".join(f"\\u{ord(c):04x}" if i % every == 0 else c for i, c in enumerate(text))


@pytest.mark.parametrize("form", ["json", "json in json", "toml", "toml continued", "python"])
async def test_put_source_refuses_a_secret_its_readers_would_decode(
    stub: pb_grpc.MemoryServiceStub, caplog: pytest.LogCaptureFixture, form: str
) -> None:
    caplog.set_level(logging.DEBUG)
    body = _random(36)
    token = "gh" + "p_" + body
    request = pb.PutSourceRequest(kind="file", media_type="text/plain")
    if form == "json":  # the report a task_outcome hook sends, as the probe wrote it
        request.kind = "task_outcome"
        request.media_type = "application/vnd.powercontext.task-outcome+json"
        report = f"CI pushed with {_escaped(token[:4])}{token[4:]}"
        request.content = ('{"report": "' + report + '"}').encode()
        assert json.loads(request.content)["report"] == f"CI pushed with {token}"
    elif form == "json in json":
        inner = '{"report": "CI pushed with ' + _escaped(token, 2) + '"}'  # JSON, escaped
        request.kind, request.content = "task_outcome", json.dumps({"turn": inner}).encode()
        assert token in json.loads(json.loads(request.content)["turn"])["report"]
    elif form == "toml":
        request.uri = "repo://pyproject.toml"
        request.content = f'[tool.ci]\npush = "{_escaped(token, 3)}"\n'.encode()
        assert tomllib.loads(request.content.decode())["tool"]["ci"]["push"] == token
    elif form == "toml continued":
        request.uri = "repo://pyproject.toml"
        request.content = f'[tool.ci]\npush = """{token[:9]}\\\n    {token[9:]}"""\n'.encode()
        assert tomllib.loads(request.content.decode())["tool"]["ci"]["push"] == token
    else:
        request.uri = "repo://noxfile.py"
        request.content = (
            "import nox\n\n@nox.session\ndef release(session):\n"
            f'    session.run("git", "push", "https://{token[:2]}" "{token[2:]}@github.com/o/r")\n'
        ).encode()
    assert token.encode() not in request.content  # only a reader that decodes sees it
    await _refused(stub.PutSource(request), "content", "github-token", body, token)
    _assert_not_logged(caplog, body)


async def test_lookalikes_are_stored(stub: pb_grpc.MemoryServiceStub) -> None:
    text = (
        "Set OPENAI_API_KEY=sk-... and password=$DB_PASSWORD; commit "
        "3f786850e387550fdab836ed7e6dc881de23001b; AWS example key AKIAIOSFODNN7EXAMPLE."
    )
    created = await stub.Remember(
        pb.RememberRequest(entries=[types.EntryInput(kind="fact", text=text)])
    )
    assert created.changed
    source = await stub.PutSource(
        pb.PutSourceRequest(
            kind="file",
            uri="repo://README.md",
            media_type="text/markdown",
            content="api_key = os.environ['API_KEY']  # 令牌放在环境变量里".encode(),
            metadata={"token_env": "GITHUB_TOKEN"},
        )
    )
    assert source.source.source_id
