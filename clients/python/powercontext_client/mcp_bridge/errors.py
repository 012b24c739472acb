"""Failures as MCP tool errors: `isError` results whose text starts with the service's reason
(REVISION_CONFLICT, ENTRY_VERSION_STALE, MEMORY_NOT_FOUND, ...), so the model can act on them;
never a traceback. The same fields go out as structured content.

A tool error, not a JSON-RPC error: the MCP spec wants failures the model can correct (a stale
version, an unknown entry) reported inside the tool result.
"""

from __future__ import annotations

from mcp_types import CallToolResult, TextContent

from ..errors import PowerContextError, describe


class BridgeError(Exception):
    """A failure found by the bridge itself, before any call (no memory, a bad reference)."""

    def __init__(self, reason: str, code: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.code = code  # the gRPC code name the service would use for the same problem
        self.message = message


def error_result(error: PowerContextError | BridgeError) -> CallToolResult:
    if isinstance(error, BridgeError):
        code, reason, metadata = error.code, error.reason, {}
        text = f"{reason} ({code}): {error.message}"
    else:
        code, reason, metadata = error.code.name, error.reason or error.code.name, error.metadata
        text = describe(error)
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content={
            "code": code,
            "reason": reason,
            "message": error.message,
            "metadata": dict(metadata),
        },
        is_error=True,
    )
