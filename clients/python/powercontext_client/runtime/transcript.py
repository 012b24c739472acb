"""The last assistant text of a session transcript (JSON Lines).

Claude Code writes one JSON object per line: {"type": "assistant", "message": {"role":
"assistant", "content": [{"type": "text", "text": …}, {"type": "tool_use", …}]}, …}; content
may also be a plain string. Only the tail of the file is read (MAX_TAIL_BYTES): the last turn
is at the end, and a transcript can be hundreds of MiB.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Final

MAX_TAIL_BYTES: Final = 1024 * 1024


def _text(message: Any) -> str:
    if not isinstance(message, dict) or message.get("role") != "assistant":
        return ""
    content = message.get("content")
    if isinstance(content, str):
        return content.strip()
    if not isinstance(content, list):
        return ""
    parts = [
        block["text"]
        for block in content
        if isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    ]
    return "\n".join(p.strip() for p in parts if p.strip())


def last_assistant_text(path: str | os.PathLike[str] | None) -> str:
    """ "" when there is no such file or no assistant text in its tail."""
    if not path:
        return ""
    try:
        with open(Path(path).expanduser(), "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - MAX_TAIL_BYTES))
            tail = handle.read()
    except OSError:
        return ""
    lines = tail.splitlines()
    if size > MAX_TAIL_BYTES and lines:
        lines = lines[1:]  # the first line of the tail may be cut
    for raw in reversed(lines):
        try:
            record = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        if record.get("type") not in (None, "assistant"):
            continue
        text = _text(record.get("message"))
        if text:
            return text
    return ""
