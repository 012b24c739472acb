"""The mock model's replies as the Gemini API (generativelanguage, v1beta) puts them on the wire:
`models/<model>:streamGenerateContent?alt=sse` streams GenerateContentResponse chunks as
server-sent events (`data: {...}` and a blank line), `:generateContent` answers one of them as
JSON, and `:countTokens` a count. No more of the format than Gemini CLI reads: one candidate
whose content holds a text part or a functionCall part, its finishReason, and usageMetadata."""

from __future__ import annotations

import json
import re
from typing import Any

from .model_wire import Reply, Text

# `/v1beta/models/gemini-2.5-flash:streamGenerateContent` -> the method after the colon.
GEMINI_PATH = re.compile(r"^/v1(?:beta|alpha)?/models/[^/:]+:(?P<method>\w+)$")
STREAM = "streamGenerateContent"
GENERATE = "generateContent"
COUNT_TOKENS = "countTokens"


def gemini_method(path: str) -> str:
    """The Gemini API method a request path names ("" for any other path)."""
    found = GEMINI_PATH.match(path)
    return found["method"] if found else ""


def function_call_id(serial: int) -> str:
    """The id a ToolCall reply's functionCall carries (its functionResponse names it back)."""
    return f"fc_mock_{serial}"


def gemini_response(reply: Reply, serial: int) -> dict[str, Any]:
    """One GenerateContentResponse: the whole reply in one candidate."""
    part: dict[str, Any]
    if isinstance(reply, Text):
        part = {"text": reply.text}
    else:
        call = {"id": function_call_id(serial), "name": reply.name, "args": reply.input}
        part = {"functionCall": call}
    return {
        "candidates": [
            {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {
            "promptTokenCount": reply.tokens,
            "candidatesTokenCount": 10,
            "totalTokenCount": reply.tokens + 10,
        },
        "modelVersion": "mock",
        "responseId": f"resp_mock_{serial}",
    }


def gemini_stream(reply: Reply, serial: int) -> bytes:
    """The reply as a streamGenerateContent SSE body (a single chunk)."""
    return f"data: {json.dumps(gemini_response(reply, serial))}\n\n".encode()


def contents(body: Any) -> list[dict[str, Any]]:
    """A request's conversation (`contents`: role and parts)."""
    found = body.get("contents", []) if isinstance(body, dict) else []
    return [c for c in found if isinstance(c, dict)]


def function_declarations(body: Any) -> list[str]:
    """The names of the tools a request offers."""
    tools = body.get("tools", []) if isinstance(body, dict) else []
    return [
        str(declaration.get("name"))
        for tool in tools
        if isinstance(tool, dict)
        for declaration in tool.get("functionDeclarations", [])
    ]
