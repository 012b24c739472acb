"""The HTTP door end to end: every RPC over HTTP/JSON (Connect), streams, errors, request ids,
metrics, and `serve` as a process (startup line, the exposure rule, --workers).

In-process tests run a real server (gRPC port, private Unix socket, door on 127.0.0.1:0) and
call it over real HTTP; the process tests run `powercontext-memory serve` itself.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import aiohttp
import grpc

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_memory.serving.startup import serving_http_port

from ..serving import ServerProcess, run_admin, serve_process
from .http_door_client import (
    END_STREAM,
    SERVICE,
    Door,
    decoded_error_info,
    door_server,
    error_detail,
    read_frame,
)

STREAM_WAIT = 10.0


async def remember(door: Door, text: str, memory: dict[str, str] | None = None) -> dict:
    request: dict = {"entries": [{"kind": "fact", "text": text}]}
    if memory is not None:
        request["memory"] = memory
    return dict(await door.ok("Remember", request))


async def test_every_procedure_of_the_descriptor_reaches_the_grpc_server(
    tmp_path: Path,
) -> None:
    """Routes come from the descriptor: whatever each RPC answers to an empty request, it is the
    gRPC server's answer (a request id from its interceptor, never the door's 404)."""
    methods = pb.DESCRIPTOR.services_by_name["MemoryService"].methods
    async with door_server(tmp_path) as (_, door):
        for method in methods:
            if method.server_streaming:
                async with door.stream(method.name, {}) as response:
                    assert response.status == 200, method.name
                    flags, _ = await read_frame(response)
                    assert response.headers["x-request-id"]
                continue
            answer = await door.call(method.name, {})
            assert answer.status != 404 or answer.json()["code"] == "not_found", method.name
            assert "is not a procedure" not in answer.body.decode(), method.name
        answer = await door.call("NoSuchMethod", {})
        assert answer.status == 404 and answer.json()["code"] == "unimplemented"


async def test_the_rpcs_of_a_session_over_json(tmp_path: Path) -> None:
    async with door_server(tmp_path) as (_, door):
        first = await remember(door, "Run make test before every commit.")
        memory = first["memory"]
        assert memory["revision"] == "1" and first["changed"] is True  # int64: a JSON string
        second = await remember(door, "Reviews need make check.", memory)
        head = second["memory"]
        assert head["revision"] == "2"

        # The .proto's own field names are accepted too.
        got = await door.ok("GetMemory", {"memory": {"artifact_id": memory["artifactId"]}})
        assert got["memory"] == head and got["activeEntries"] == "2"
        entries = got["content"]["manifest"]["entries"]
        assert len(entries) == 2

        found = await door.ok(
            "Search", {"query": "make test before a commit", "memories": [head], "limit": 5}
        )
        hit = found["hits"][0]
        assert hit["text"] == "Run make test before every commit."

        listed = await door.ok("ListEntries", {"memory": head, "includeText": True})
        assert sorted(e["text"] for e in listed["entries"]) == [
            "Reviews need make check.",
            "Run make test before every commit.",
        ]

        citation = {k: hit[k] for k in ("memoryRef", "entryId", "entryVersionId")}
        expanded = await door.ok("Expand", {"citations": [citation]})
        assert expanded["entries"][0]["version"]["text"] == hit["text"]

        context = await door.ok(
            "PrepareContext", {"memories": [head], "query": "make test", "budget_bytes": 2048}
        )
        assert "Run make test before every commit." in context["block"]

        forgotten = await door.ok(
            "Forget",
            {
                "memory": head,
                "entries": [{"entryId": hit["entryId"], "entryVersionId": hit["entryVersionId"]}],
                "reason": "user_requested",
            },
        )
        assert forgotten["changed"] is True and forgotten["memory"]["revision"] == "3"

        history, end = await door.whole_stream(
            "Changes", {"memory": forgotten["memory"], "sinceRevision": "0"}
        )
        assert [m["revision"]["memoryRef"]["revision"] for m in history] == ["1", "2", "3"]
        assert end == {}


async def test_binary_protobuf_both_ways(tmp_path: Path) -> None:
    request = pb.RememberRequest(entries=[types.EntryInput(kind="fact", text="In protobuf.")])
    async with door_server(tmp_path) as (_, door):
        answer = await door.post(
            SERVICE + "Remember", request.SerializeToString(), "application/proto"
        )
        assert answer.status == 200 and answer.headers["Content-Type"] == "application/proto"
        response = pb.RememberResponse.FromString(answer.body)
        assert response.memory.revision == 1 and response.changed

        broken = await door.post(SERVICE + "Remember", b"\xff\xff\xff", "application/proto")
        assert broken.status == 400 and broken.reason == "MALFORMED_REQUEST"  # the server's


async def test_follow_gets_each_new_revision_and_ends_when_the_client_goes(
    tmp_path: Path,
) -> None:
    async with door_server(tmp_path, metrics_listen="127.0.0.1:0") as (running, door):
        assert running.metrics is not None
        following = running.metrics.follow_streams
        memory = (await remember(door, "First."))["memory"]
        request = {"memory": {"artifactId": memory["artifactId"]}, "follow": True}
        async with door.stream("Changes", request) as response:
            flags, message = await asyncio.wait_for(read_frame(response), STREAM_WAIT)
            assert flags == 0 and message["revision"]["memoryRef"]["revision"] == "1"
            await remember(door, "Second.", memory)
            flags, message = await asyncio.wait_for(read_frame(response), STREAM_WAIT)
            assert message["revision"]["memoryRef"]["revision"] == "2"
            assert following._value.get() == 1
        # The client closed its connection: the gRPC stream behind it ends too.
        for _ in range(100):
            if following._value.get() == 0:
                break
            await asyncio.sleep(0.05)
        assert following._value.get() == 0


async def test_a_server_shutdown_ends_a_follow_stream_with_unavailable(tmp_path: Path) -> None:
    async with door_server(tmp_path) as (running, door):
        memory = (await remember(door, "First."))["memory"]
        request = {"memory": {"artifactId": memory["artifactId"]}, "follow": True}
        async with door.stream("Changes", request) as response:
            await asyncio.wait_for(read_frame(response), STREAM_WAIT)
            stopping = asyncio.create_task(running.stop(grace=2.0))
            flags, end = await asyncio.wait_for(read_frame(response), STREAM_WAIT)
            await stopping
        assert flags == END_STREAM
        assert end["error"]["code"] == "unavailable"
        assert error_detail(end["error"], "google.rpc.ErrorInfo")["reason"] == "SHUTTING_DOWN"


async def test_a_stream_deadline_from_connect_timeout_ms(tmp_path: Path) -> None:
    async with door_server(tmp_path) as (_, door):
        memory = (await remember(door, "First."))["memory"]
        request = {"memory": {"artifactId": memory["artifactId"]}, "follow": True}
        async with door.stream("Changes", request, {"Connect-Timeout-Ms": "700"}) as response:
            frames = [await asyncio.wait_for(read_frame(response), STREAM_WAIT)]
            while not frames[-1][0] & END_STREAM:  # the revision, progress messages, the end
                frames.append(await asyncio.wait_for(read_frame(response), STREAM_WAIT))
        assert len(frames) >= 3 and "progress" in frames[-2][1]
        assert frames[-1][1]["error"]["code"] == "deadline_exceeded"
        bad = await door.call("GetCapabilities", {}, headers={"Connect-Timeout-Ms": "soon"})
        assert bad.status == 400 and bad.detail("google.rpc.BadRequest")["fieldViolations"][0][
            "field"
        ] == ("Connect-Timeout-Ms")


async def test_errors_carry_the_grpc_status_details(tmp_path: Path) -> None:
    async with door_server(tmp_path) as (_, door):
        empty = await door.call("Remember", {"entries": [{"kind": "fact", "text": " "}]})
        assert empty.status == 400 and empty.headers["Content-Type"] == "application/json"
        error = empty.json()
        assert error["code"] == "invalid_argument"
        violation = empty.detail("google.rpc.BadRequest")["fieldViolations"][0]
        assert violation["field"] == "entries[0].text"
        info = decoded_error_info(error)  # `value` is the same ErrorInfo as `debug`
        assert info.reason == empty.reason and info.domain == "powercontext.memory"
        assert info.metadata["field"] == "entries[0].text"

        memory = (await remember(door, "First."))["memory"]
        await remember(door, "Second.", memory)
        stale = await door.call(
            "Remember", {"memory": memory, "entries": [{"kind": "fact", "text": "Stale."}]}
        )
        assert stale.status == 409 and stale.json()["code"] == "aborted"
        assert stale.reason == "REVISION_CONFLICT"

        missing = await door.call("GetMemory", {"memory": {"artifactId": "mem_art_" + "0" * 32}})
        assert missing.status == 404 and missing.json()["code"] == "not_found"
        assert missing.reason

        for body in ('{"entries": [', '{"noSuchField": 1}', '"text"'):
            malformed = await door.post(SERVICE + "Remember", body)
            assert malformed.status == 400, body
            assert malformed.reason == "MALFORMED_REQUEST"
            assert malformed.detail("google.rpc.BadRequest")["fieldViolations"][0]["field"] == (
                "request"
            )


async def test_request_ids_are_echoed_and_shared_with_the_grpc_call(tmp_path: Path) -> None:
    async with door_server(tmp_path, metrics_listen="127.0.0.1:0") as (running, door):
        given = {"x-request-id": "door-test-42"}
        answer = await door.call("GetCapabilities", {}, headers=given)
        assert answer.status == 200 and answer.headers["x-request-id"] == "door-test-42"
        failed = await door.call("GetMemory", {}, headers=given)
        assert failed.status == 400 and failed.headers["x-request-id"] == "door-test-42"
        replaced = await door.call("GetCapabilities", {}, headers={"x-request-id": "a b"})
        assert replaced.headers["x-request-id"] not in ("", "a b")
        async with door.stream("Changes", {}, given) as response:
            assert response.headers["x-request-id"] == "door-test-42"

        assert running.metrics is not None
        registry = running.metrics.registry
        grpc_calls = registry.get_sample_value(
            "powercontext_requests_total",
            {"service": "powercontext.memory.v1.MemoryService", "method": "GetCapabilities",
             "code": "OK"},
        )  # fmt: skip
        assert grpc_calls == 2  # the interceptor counted the calls the door forwarded
        http_calls = registry.get_sample_value(
            "powercontext_http_requests_total",
            {"route": SERVICE + "GetMemory", "status": "400"},
        )
        assert http_calls == 1


async def test_healthz_follows_the_grpc_health(tmp_path: Path) -> None:
    async with door_server(tmp_path) as (running, door):
        answer = await door.get("/healthz")
        assert answer.status == 200 and answer.json() == {"status": "SERVING"}
        await running.health.enter_graceful_shutdown()
        answer = await door.get("/healthz")
        assert answer.status == 503 and answer.json() == {"status": "NOT_SERVING"}


# -- serve as a process ---------------------------------------------------------------------------


def test_serve_reports_the_door_and_grpc_sees_its_writes(tmp_path: Path) -> None:
    with serve_process(tmp_path / "m.sqlite3") as served:
        http_port = serving_http_port(served.line)
        assert http_port, served.line  # auto: on, and on a free port since --listen is :0

        async def check() -> None:
            async with aiohttp.ClientSession() as session:
                door = Door(session, f"http://127.0.0.1:{http_port}")
                memory = (await remember(door, "Through the door."))["memory"]
            async with grpc.aio.insecure_channel(f"127.0.0.1:{served.port}") as channel:
                got = await pb_grpc.MemoryServiceStub(channel).GetMemory(
                    pb.GetMemoryRequest(memory=types.ArtifactRef(artifact_id=memory["artifactId"]))
                )
            assert got.memory.revision == 1 and got.active_entries == 1

        asyncio.run(check())
    with serve_process(tmp_path / "m.sqlite3", "--http-listen", "off") as served:
        assert serving_http_port(served.line) is None and "http:" not in served.line


def test_a_door_on_every_interface_without_tokens_is_refused_at_start(tmp_path: Path) -> None:
    done = run_admin(
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--http-listen",
        "0.0.0.0:0",
        "--database",
        str(tmp_path / "m.sqlite3"),
        "--embedding",
        "none",
    )
    assert done.returncode == 1, done.stdout
    assert "--http-listen: refusing to serve on 0.0.0.0:0 without authentication" in done.stderr
    assert done.stdout == ""  # never got as far as serving


def test_every_worker_serves_http_on_the_shared_port(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    with log.open("wb") as stderr:
        server = ServerProcess(
            tmp_path / "m.sqlite3", "--workers", "2", "--access-log", stderr=stderr
        )
    try:
        http_port = serving_http_port(server.served.line)
        assert http_port and "2 workers" in server.served.line

        async def calls() -> None:
            for _ in range(40):  # a new connection each: the kernel spreads them
                async with aiohttp.ClientSession() as session:
                    door = Door(session, f"http://127.0.0.1:{http_port}")
                    await door.ok("GetCapabilities", {})

        asyncio.run(calls())
    finally:
        assert server.stop() == 0
    lines = [line for line in log.read_text().splitlines() if "HTTP POST" in line]
    workers = {line.split(" worker=")[1].split("/")[0] for line in lines}
    assert len(lines) == 40 and workers == {"0", "1"}, json.dumps(lines[:3])
