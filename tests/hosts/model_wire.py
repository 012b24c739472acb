"""What the mock model says and how it is put on the wire: the replies a test scripts, encoded
as the Anthropic Messages API and the OpenAI Responses API stream them (server-sent events),
no more of either format than Claude Code and Codex read."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

# Which requests a reply may answer (None: any). Hosts run subagents concurrently with their
# parent, so a reply meant for one must not be taken by the other: it is routed by what the
# request holds (a subagent's task as its user message, a compaction's instruction, ...).
When = Callable[[Any], bool] | None


@dataclass(frozen=True)
class Text:
    text: str
    when: When = None
    # The input tokens the reply reports: a full context window makes the host compact.
    tokens: int = 100


@dataclass(frozen=True)
class ToolCall:
    name: str
    # The arguments, or a function of the request that builds them (e.g. from an id the host
    # returned to an earlier call).
    input: dict[str, Any] | Callable[[Any], dict[str, Any]] = field(default_factory=dict)
    namespace: str = ""  # Responses: the tool's namespace (Codex lists MCP tools in one)
    when: When = None
    tokens: int = 100


Reply = Text | ToolCall


def _sse(events: list[dict[str, Any]]) -> bytes:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


def tool_use_id(serial: int) -> str:
    """The id a ToolCall reply gets in the Messages API (tool_result blocks name it)."""
    return f"toolu_mock_{serial}"


def call_id(serial: int) -> str:
    """The call_id a ToolCall reply gets in the Responses API (function_call_output names it)."""
    return f"call_mock_{serial}"


def _anthropic_blocks(reply: Reply, serial: int) -> tuple[list[dict[str, Any]], str]:
    if isinstance(reply, Text):
        return [{"type": "text", "text": reply.text}], "end_turn"
    block = {
        "type": "tool_use",
        "id": tool_use_id(serial),
        "name": reply.name,
        "input": reply.input,
    }
    return [block], "tool_use"


def anthropic_message(reply: Reply, serial: int, model: str) -> dict[str, Any]:
    """The whole message (a request with `"stream": false`)."""
    blocks, stop = _anthropic_blocks(reply, serial)
    return {
        "id": f"msg_mock_{serial}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": reply.tokens, "output_tokens": 10},
    }


def anthropic_stream(reply: Reply, serial: int, model: str) -> bytes:
    """message_start, one content block (text_delta or input_json_delta), message_delta with
    the stop reason, message_stop: the event sequence the Messages API streams."""
    message = anthropic_message(reply, serial, model)
    blocks, stop = message.pop("content"), message["stop_reason"]
    message.update(content=[], stop_reason=None, usage={**message["usage"], "output_tokens": 1})
    (block,) = blocks
    start: dict[str, Any]
    if block["type"] == "text":
        start = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": block["text"]}
    else:
        start = {**block, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
    return _sse(
        [
            {"type": "message_start", "message": message},
            {"type": "content_block_start", "index": 0, "content_block": start},
            {"type": "content_block_delta", "index": 0, "delta": delta},
            {"type": "content_block_stop", "index": 0},
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 10},
            },
            {"type": "message_stop"},
        ]
    )


def openai_stream(reply: Reply, serial: int) -> bytes:
    """response.created, the output item (an assistant message or a function_call),
    response.completed with its usage: what Codex reads from a Responses stream."""
    response_id = f"resp_mock_{serial}"
    if isinstance(reply, Text):
        item: dict[str, Any] = {
            "type": "message",
            "role": "assistant",
            "id": f"msg_mock_{serial}",
            "status": "completed",
            "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
        }
    else:
        item = {
            "type": "function_call",
            "id": f"fc_mock_{serial}",
            "call_id": call_id(serial),
            "name": reply.name,
            "arguments": json.dumps(reply.input),
            "status": "completed",
        }
        if reply.namespace:
            item["namespace"] = reply.namespace
    usage = {
        "input_tokens": reply.tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 10,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": reply.tokens + 10,
    }
    return _sse(
        [
            {"type": "response.created", "response": {"id": response_id}},
            {"type": "response.output_item.added", "output_index": 0, "item": item},
            {"type": "response.output_item.done", "output_index": 0, "item": item},
            {"type": "response.completed", "response": {"id": response_id, "usage": usage}},
        ]
    )


def texts(value: Any) -> Iterator[str]:
    """Every string inside a JSON value: where a test looks for what the host sent, whatever
    message or block the host's format put it in."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from texts(item)
