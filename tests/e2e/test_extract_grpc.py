"""Remember EXTRACT over real gRPC: candidates and suggestions in the response, the adapters in
GetCapabilities, and `serve --extractor-url` against a local OpenAI-compatible chat test double
whose candidates are checked like any other."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import grpc
import pytest

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from powercontext_client.errors import error_info
from tests.serving import serve_process

EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "candidates" / "worked_example"
API_KEY = "test-extractor-key"
Stub = pb_grpc.MemoryServiceStub


async def put_file(stub: Stub, path: str, text: str | None = None) -> types.SourceRef:
    content = (EXAMPLE / path).read_text() if text is None else text
    response = await stub.PutSource(
        pb.PutSourceRequest(
            kind="file", uri=f"repo://{path}", media_type="text/plain", content=content.encode()
        )
    )
    return types.SourceRef(
        source_id=response.source.source_id, content_hash=response.source.content_hash
    )


async def put_note(stub: Stub, words: str) -> types.SourceRef:
    response = await stub.PutSource(
        pb.PutSourceRequest(kind="user_note", media_type="text/plain", content=words.encode())
    )
    return types.SourceRef(
        source_id=response.source.source_id, content_hash=response.source.content_hash
    )


async def test_extract_answers_candidates_and_suggestions(stub: Stub) -> None:
    caps = (await stub.GetCapabilities(pb.GetCapabilitiesRequest())).capabilities
    assert caps.candidate_extraction
    assert list(caps.candidate_adapters) == [
        "git-change", "pyproject", "build-targets", "agent-rules", "task-outcome", "user-note",
    ]  # fmt: skip
    assert list(caps.candidate_extractors) == []
    files = [await put_file(stub, n) for n in ("AGENTS.md", "pyproject.toml", "Makefile")]
    created = await stub.Remember(
        pb.RememberRequest(sources=files, mode=pb.REMEMBER_MODE_EXTRACT, request_id="boot-1")
    )
    assert created.changed and created.memory.revision == 1
    assert len(created.candidates) == len(created.results) > 5
    assert all(not c.HasField("entry") and c.sources for c in created.candidates)
    site = next(
        r
        for c, r in zip(created.candidates, created.results, strict=True)
        if c.text.startswith("site/")
    )
    note = await put_note(stub, "site/ 那条不要记了")
    answer = await stub.Remember(
        pb.RememberRequest(memory=created.memory, sources=[note], mode=pb.REMEMBER_MODE_EXTRACT)
    )
    assert not answer.changed and answer.memory == created.memory
    [suggestion] = answer.suggestions
    assert suggestion.kind == types.SUGGESTION_KIND_FORGET and suggestion.adapter == "user-note"
    assert [(e.entry_id, e.entry_version_id) for e in suggestion.entries] == [
        (site.entry_id, site.entry_version_id)
    ]
    assert list(suggestion.sources) == [note]
    unavailable = stub.Remember(
        pb.RememberRequest(sources=files, mode=pb.REMEMBER_MODE_EXTRACT, extractors=["model"])
    )
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await unavailable
    assert raised.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error_info(raised.value) == (
        "CAPABILITY_NOT_SUPPORTED",
        {"capability": "extractors[0]"},
    )


# -- the model extractor against a local test double -------------------------------------------


@dataclass
class ChatDouble:
    answer: dict[str, Any] = field(default_factory=dict)
    requests: list[tuple[str, dict[str, str], dict[str, Any]]] = field(default_factory=list)


class _ChatServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _ChatHandler)
        self.double = ChatDouble()


class _ChatHandler(BaseHTTPRequestHandler):
    server: _ChatServer

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.double.requests.append((self.path, dict(self.headers.items()), body))
        reply = {"choices": [{"message": {"content": json.dumps(self.server.double.answer)}}]}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError):
            self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return


@contextlib.contextmanager
def chat_double() -> Iterator[tuple[str, ChatDouble]]:
    server = _ChatServer()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", server.double
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


async def test_model_candidates_pass_the_same_checks(tmp_path: Path) -> None:
    with chat_double() as (url, double):
        options = ["--extractor-url", url, "--extractor-model", "test-model"]
        env = {"POWERCONTEXT_EXTRACTOR_API_KEY": API_KEY}
        with serve_process(tmp_path / "m.sqlite3", *options, env=env) as served:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{served.port}") as channel:
                stub = Stub(channel)
                caps = (await stub.GetCapabilities(pb.GetCapabilitiesRequest())).capabilities
                assert list(caps.candidate_extractors) == ["model"]
                design = await put_file(stub, "docs/design.md", "We chose gRPC over REST.")
                outside = await put_file(stub, "docs/other.md", "Not part of the operation.")
                double.answer = {
                    "candidates": [
                        candidate("Decision: the service speaks gRPC, not REST.", design),
                        candidate("Cites a source outside the operation.", outside),
                        candidate("Cites a source that does not exist.", "src_" + "9" * 32),
                        candidate("Cites nothing.", None),
                    ]
                }
                answer = await stub.Remember(
                    pb.RememberRequest(
                        sources=[design], mode=pb.REMEMBER_MODE_EXTRACT, extractors=["model"]
                    )
                )
                got = await stub.GetMemory(pb.GetMemoryRequest(memory=answer.memory))
    assert [c.text for c in answer.candidates] == ["Decision: the service speaks gRPC, not REST."]
    assert answer.candidates[0].kind == "decision"
    assert list(answer.candidates[0].sources) == [design]
    assert got.active_entries == 1
    [(path, headers, body)] = double.requests
    assert path == "/v1/chat/completions" and headers["Authorization"] == f"Bearer {API_KEY}"
    assert body["model"] == "test-model"
    assert body["response_format"]["type"] == "json_schema"
    sent = json.loads(body["messages"][1]["content"])
    assert [s["id"] for s in sent["sources"]] == [design.source_id]
    # The prompt is never evidence: the revision's lineage holds only the operation's source.
    assert list(got.lineage.sources) == [design]


def candidate(text: str, source: types.SourceRef | str | None) -> dict[str, Any]:
    ids = [] if source is None else [source if isinstance(source, str) else source.source_id]
    return {
        "op": "add",
        "entry_id": "",
        "entry_version_id": "",
        "kind": "decision",
        "text": text,
        "source_ids": ids,
    }
