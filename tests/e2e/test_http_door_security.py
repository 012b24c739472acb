"""The HTTP door's security, end to end over real HTTP: tokens are the gRPC server's own (same
codes, reasons and allow-lists), cross-site and rebinding requests are refused, tokens never
travel in URLs, bodies keep the gRPC limit, and the console's files are served with the
security headers and nothing outside their directory.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from powercontext_memory.http_door import static
from powercontext_memory.security.tokens import Scope, issue
from powercontext_memory.transport.server import MAX_MESSAGE_BYTES, RunningServer

from .http_door_client import SERVICE, Answer, Door, door_server, error_detail, frame, read_frame

SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}


def secured(answer: Answer) -> bool:
    headers = answer.headers
    no_cors = not any(name.lower().startswith("access-control-") for name in headers)
    return no_cors and all(headers.get(k) == v for k, v in SECURITY_HEADERS.items())


async def token(running: RunningServer, scope: Scope, *memories: str) -> str:
    now = time.time_ns() // 1_000_000
    record, secret = issue(f"http-{scope.value}", scope, memories, now_ms=now)
    await running.memory_service.backend.add_access_token(record)
    return secret


async def raw_request(door: Door, head: str) -> tuple[int, bytes]:
    """Send `head` (request line and headers) byte for byte: no client normalizes its path."""
    host, port = door.url.removeprefix("http://").rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(head.replace("\n", "\r\n").encode() + b"\r\n")
        await writer.drain()
        head_bytes = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        lines = head_bytes.decode("latin-1").split("\r\n")
        fields = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
        length = int(fields.get("Content-Length", "0"))
        body = await asyncio.wait_for(reader.readexactly(length), 10)
    finally:
        writer.close()
    return int(lines[0].split()[1]), body


async def test_tokens_scopes_and_allow_lists_are_the_grpc_servers(tmp_path: Path) -> None:
    async with door_server(tmp_path, auth=True) as (running, door):
        writer = await token(running, Scope.WRITE)
        reader = await token(running, Scope.READ)
        add = {"entries": [{"kind": "fact", "text": "Tokens apply."}]}

        missing = await door.call("Remember", add)
        assert missing.status == 401 and missing.json()["code"] == "unauthenticated"
        assert missing.reason == "TOKEN_MISSING" and secured(missing)
        invalid = await door.call("Remember", add, token="pcm_nothing")
        assert invalid.status == 401 and invalid.reason == "TOKEN_INVALID"

        mine = (await door.ok("Remember", add, token=writer))["memory"]
        other = (await door.ok("Remember", add, token=writer))["memory"]
        denied = await door.call("Remember", {**add, "memory": mine}, token=reader)
        assert denied.status == 403 and denied.json()["code"] == "permission_denied"
        assert denied.reason == "SCOPE_REQUIRED"
        assert (await door.ok("GetMemory", {"memory": mine}, token=reader))["memory"] == mine

        limited = await token(running, Scope.WRITE, mine["artifactId"])
        outside = await door.call("GetMemory", {"memory": other}, token=limited)
        assert outside.status == 403 and outside.reason == "MEMORY_NOT_ALLOWED"
        await door.ok("GetMemory", {"memory": mine}, token=limited)

        async with door.stream("Changes", {"memory": mine, "sinceRevision": "0"}) as response:
            flags, end = await read_frame(response)
        assert flags == 2 and end["error"]["code"] == "unauthenticated"

        health = await door.get("/healthz")  # open, as gRPC's health is
        assert health.status == 200

        # With tokens, any Host may reach the door (a proxy's name, a LAN name).
        named = await door.call("GetMemory", {"memory": mine}, token=reader,
                                headers={"Host": "memory.example:443"})  # fmt: skip
        assert named.status == 200

        in_url = await door.post(
            SERVICE + "GetMemory?access_token=" + reader,
            '{"memory": {}}',
            headers={"Authorization": f"Bearer {reader}"},
        )
        assert in_url.status == 400 and in_url.reason == "TOKEN_IN_URL"
        assert reader not in in_url.body.decode()


async def test_cross_site_and_rebinding_requests_are_refused(tmp_path: Path) -> None:
    async with door_server(tmp_path) as (running, door):
        port = running.door.port if running.door else 0
        path = SERVICE + "GetCapabilities"
        for content_type in (
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "application/json; charset=latin-1",
            "application/connect+json",  # a streaming type, on a unary procedure
            None,
        ):
            refused = await door.post(path, "{}", content_type)
            assert refused.status == 415, content_type
            assert refused.reason == "UNSUPPORTED_MEDIA_TYPE" and secured(refused)
            assert refused.headers["Accept-Post"] == "application/json, application/proto"
        as_unary = await door.post(SERVICE + "Changes", "{}", "application/json")
        assert as_unary.status == 415

        for origin in ("http://evil.example", "null", f"http://127.0.0.1:{port + 1}"):
            foreign = await door.post(path, "{}", headers={"Origin": origin})
            assert foreign.status == 403 and foreign.reason == "CROSS_ORIGIN", origin
        same = await door.post(path, "{}", headers={"Origin": f"http://127.0.0.1:{port}"})
        assert same.status == 200 and secured(same)
        local = {"Host": f"localhost:{port}", "Origin": f"http://localhost:{port}"}
        assert (await door.post(path, "{}", headers=local)).status == 200

        rebound = {"Host": f"evil.example:{port}", "Origin": f"http://evil.example:{port}"}
        refused = await door.post(path, "{}", headers=rebound)
        assert refused.status == 403 and refused.reason == "HOST_NOT_ALLOWED"
        page = await door.get("/", headers={"Host": f"evil.example:{port}"})
        assert page.status == 403 and secured(page)

        in_url = await door.post(path + "?token=pcm_x", "{}")
        assert in_url.status == 400 and in_url.reason == "TOKEN_IN_URL"
        assert error_detail(in_url.json(), "google.rpc.BadRequest")["fieldViolations"][0][
            "field"
        ] == ("url")

        async with door.session.options(door.url + path) as preflight:
            assert preflight.status == 405
            assert "Access-Control-Allow-Origin" not in preflight.headers


async def test_a_body_over_the_grpc_limit_is_refused_unread(tmp_path: Path) -> None:
    async with door_server(tmp_path) as (_, door):
        status, body = await raw_request(
            door,
            f"POST {SERVICE}Remember HTTP/1.1\nHost: 127.0.0.1\nContent-Type: application/json\n"
            f"Content-Length: {MAX_MESSAGE_BYTES + 1}\nConnection: close\n",
        )
        assert status == 429
        assert b'"code":"resource_exhausted"' in body and b"REQUEST_TOO_LARGE" in body
        stream = await door.post(SERVICE + "Changes", frame(b"x" * 3)[:-1], STREAM_TYPE)
        assert stream.status == 200 and b'"code":"invalid_argument"' in stream.body


STREAM_TYPE = "application/connect+json"


@pytest.fixture
def console(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "static"
    (root / "modules").mkdir(parents=True)
    (root / "index.html").write_text("<!doctype html><title>console</title>\n")
    (root / "app.js").write_text("import './modules/view.js';\n")
    (root / "style.css").write_text("body { margin: 0 }\n")
    (root / "modules" / "view.js").write_text("export const view = 1;\n")
    (root / "data.bin").write_bytes(b"\0\1")
    (root / ".hidden").write_text("not served\n")
    (tmp_path / "secret.txt").write_text("outside the console\n")
    (root / "link.txt").symlink_to(tmp_path / "secret.txt")
    monkeypatch.setattr(static, "STATIC_ROOT", root)
    return root


async def test_the_console_files_and_nothing_else(tmp_path: Path, console: Path) -> None:
    async with door_server(tmp_path / "server") as (_, door):
        index = await door.get("/")
        assert index.status == 200 and index.body.startswith(b"<!doctype html>")
        assert index.headers["Content-Type"] == "text/html; charset=utf-8"
        assert index.headers["Cache-Control"] == "no-cache" and secured(index)
        for path, content_type in (
            ("/index.html", "text/html; charset=utf-8"),
            ("/app.js", "text/javascript; charset=utf-8"),
            ("/modules/view.js", "text/javascript; charset=utf-8"),
            ("/style.css", "text/css; charset=utf-8"),
            ("/data.bin", "application/octet-stream"),
        ):
            found = await door.get(path)
            assert found.status == 200 and found.headers["Content-Type"] == content_type, path
            assert found.body == (console / path.lstrip("/")).read_bytes() and secured(found)
        async with door.session.head(door.url + "/app.js") as head:
            assert head.status == 200 and head.headers["Content-Length"] == "28"
            assert await head.read() == b""

        for path in (
            "/../secret.txt",
            "/%2e%2e/secret.txt",
            "/modules/../../secret.txt",
            "/modules/%2e%2e/%2e%2e/secret.txt",
            "/link.txt",
            "/.hidden",
            "/missing.js",
            "/modules",
        ):
            status, body = await raw_request(
                door, f"GET {path} HTTP/1.1\nHost: 127.0.0.1\nConnection: close\n"
            )
            assert status == 404, path
            assert b"outside the console" not in body

        rpc_like = await door.post("/index.html", "{}")
        assert rpc_like.status == 404 and rpc_like.json()["code"] == "unimplemented"
        async with door.session.put(door.url + "/app.js", data=b"x") as put:
            assert put.status == 405
        wrong_method = await door.get(SERVICE + "GetCapabilities")
        assert wrong_method.status == 405 and secured(wrong_method)


async def test_no_console_installed_is_a_plain_404(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(static, "STATIC_ROOT", tmp_path / "nothing")
    async with door_server(tmp_path) as (_, door):
        page = await door.get("/")
        assert page.status == 404 and secured(page)
