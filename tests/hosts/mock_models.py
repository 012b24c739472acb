"""A MOCK model server for the real-host suite: the hosts run for real, the model does not.

No real model can run here (no network beyond the package registries, no keys), and a real one
would make the suite slow and its answers unpredictable. So Claude Code, Codex and Gemini CLI
are pointed at this stdlib HTTP server on 127.0.0.1, which speaks just enough of three wire
formats:

* Anthropic Messages: `POST /v1/messages` (SSE when the request says `"stream": true`, else one
  JSON message), `POST /v1/messages/count_tokens`, and `HEAD /` (Claude Code's reachability
  check);
* OpenAI Responses: `POST /v1/responses` (SSE), as Codex's `wire_api = "responses"` providers;
* Gemini API: `POST /v1beta/models/<model>:streamGenerateContent` (SSE), `:generateContent`
  (JSON) and `:countTokens` (gemini_wire.py).

Each test scripts the model (model_wire.py): a queue of replies (`Text`, or a `ToolCall` with
its name and input), each answering the first model request of either API that its `when`
accepts (any, by default); nothing left answers `Text(DEFAULT_TEXT)`. Every request is
recorded (method, path, body) with the reply it got, so a test reads what the host sent the
model: the injected context, the tools offered, a tool's result.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .gemini_wire import (
    COUNT_TOKENS,
    GENERATE,
    STREAM,
    function_call_id,
    gemini_method,
    gemini_response,
    gemini_stream,
)
from .model_wire import (
    Reply,
    Text,
    ToolCall,
    anthropic_message,
    anthropic_stream,
    call_id,
    openai_stream,
    texts,
    tool_use_id,
)

__all__ = ["MockModels", "Recorded", "Reply", "Text", "ToolCall", "texts"]

DEFAULT_TEXT = "Done."
ANTHROPIC_MESSAGES = "/v1/messages"
OPENAI_RESPONSES = "/v1/responses"


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str  # without the query string
    body: Any  # parsed JSON, or the raw text
    reply: Reply | None  # what the mock answered a model request with
    serial: int = 0  # numbers the ids in the reply

    @property
    def tool_use_id(self) -> str:
        """Messages API: the id a tool_result for this reply's ToolCall names."""
        return tool_use_id(self.serial)

    @property
    def call_id(self) -> str:
        """Responses API: the call_id a function_call_output for this reply names."""
        return call_id(self.serial)

    @property
    def function_call_id(self) -> str:
        """Gemini API: the id a functionResponse for this reply names."""
        return function_call_id(self.serial)


class MockModels:
    """The mock server; `with MockModels() as models:` runs it on a free port."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._script: deque[Reply] = deque()
        self.recorded: list[Recorded] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> MockModels:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    # -- scripting ------------------------------------------------------------------------------

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self._script.extend(replies)

    def reset(self) -> None:
        """Forget the script and the recorded requests (between tests sharing one server)."""
        with self._lock:
            self._script.clear()
            self.recorded.clear()

    # -- reading --------------------------------------------------------------------------------

    def model_requests(self) -> list[Recorded]:
        with self._lock:
            return [r for r in self.recorded if r.reply is not None]

    def _answer(self, path: str, body: Any) -> Recorded:
        """The first scripted reply whose `when` accepts this request, else DEFAULT_TEXT."""
        with self._lock:
            reply: Reply = Text(DEFAULT_TEXT)
            for index, candidate in enumerate(self._script):
                if candidate.when is None or candidate.when(body):
                    reply = candidate
                    del self._script[index]
                    break
            if isinstance(reply, ToolCall) and callable(reply.input):
                reply = dataclasses.replace(reply, input=reply.input(body))
            answered = Recorded("POST", path, body, reply, len(self.recorded) + 1)
            self.recorded.append(answered)
            return answered

    def _record(self, method: str, path: str, body: Any) -> None:
        with self._lock:
            self.recorded.append(Recorded(method, path, body, None))


def _handler(models: MockModels) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the recording is the log

        def do_HEAD(self) -> None:
            models._record("HEAD", self.path, None)
            self._send(200, b"", "text/plain")

        def do_GET(self) -> None:
            models._record("GET", self.path, None)
            self._send(404, b'{"error": "not mocked"}', "application/json")

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body: Any = json.loads(raw) if raw else None
            except ValueError:
                body = raw.decode("utf-8", "replace")
            path = self.path.split("?", 1)[0]
            if path == ANTHROPIC_MESSAGES + "/count_tokens":
                models._record("POST", path, body)
                self._json({"input_tokens": 100})
            elif path == ANTHROPIC_MESSAGES and isinstance(body, dict):
                answer = models._answer(path, body)
                assert answer.reply is not None
                model = str(body.get("model", "mock"))
                if body.get("stream"):
                    stream = anthropic_stream(answer.reply, answer.serial, model)
                    self._send(200, stream, "text/event-stream")
                else:
                    self._json(anthropic_message(answer.reply, answer.serial, model))
            elif path == OPENAI_RESPONSES and isinstance(body, dict):
                answer = models._answer(path, body)
                assert answer.reply is not None
                self._send(200, openai_stream(answer.reply, answer.serial), "text/event-stream")
            elif gemini_method(path) in (STREAM, GENERATE) and isinstance(body, dict):
                answer = models._answer(path, body)
                assert answer.reply is not None
                if gemini_method(path) == STREAM:
                    stream = gemini_stream(answer.reply, answer.serial)
                    self._send(200, stream, "text/event-stream")
                else:
                    self._json(gemini_response(answer.reply, answer.serial))
            elif gemini_method(path) == COUNT_TOKENS:
                models._record("POST", path, body)
                self._json({"totalTokens": 100})
            else:
                models._record("POST", path, body)
                self._send(404, b'{"error": "not mocked"}', "application/json")

        def _json(self, data: Any) -> None:
            self._send(200, json.dumps(data).encode(), "application/json")

        def _send(self, code: int, body: bytes, content_type: str) -> None:
            self.send_response(code)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

    return Handler
