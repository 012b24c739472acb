"""The MCP bridge: `powercontext mcp` offers the memory to any MCP client (Claude Code, Codex,
...) as tools, each calling the gRPC service through AsyncClient.

Needs the optional `mcp` extra (the official MCP Python SDK, 2.x); the CLI imports this package
only when the `mcp` command runs, so the other commands start without it.

    server.py     the MCPServer, its tool table and annotations, stdio / streamable HTTP
    tools.py      the core tools (search_memory, prepare_context, expand_citation,
                  recent_changes, remember, revise_entry, forget_entry, reactivate_entry)
    listing.py    recall_manifest and list_entries (metadata, filters, pages)
    curation.py   merge_entries, preview_restore, restore_entry, undo_merge
    results.py    each tool's structured result (its outputSchema) and readable text
    errors.py     service errors as MCP tool errors naming the reason
    workspace.py  the default memory: the runtime manifest's, for the working directory
"""

from .server import build_server, serve
from .workspace import Workspace

__all__ = ["Workspace", "build_server", "serve"]
