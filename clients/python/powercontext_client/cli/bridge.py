"""`powercontext mcp`: the MCP bridge (mcp_bridge/), imported only when this command runs, so
every other command starts without the MCP SDK; without the `mcp` extra it fails with one
line naming the extra."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..aio import AsyncClient
from .output import Printer

EXIT_MISSING_EXTRA = 1


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--directory",
        default=None,
        help="the repository whose memory the tools use by default (its runtime manifest "
        "entry); default: the working directory",
    )
    parser.add_argument(
        "--transport",
        choices=("stdio", "streamable-http"),
        default="stdio",
        help="stdio (what agent hosts start) or streamable-http (serves http://HOST:PORT/mcp)",
    )
    parser.add_argument("--host", default="127.0.0.1", help="streamable-http: listen address")
    parser.add_argument("--port", type=int, default=8765, help="streamable-http: port")


async def run(client: AsyncClient, args: argparse.Namespace, printer: Printer) -> int:
    try:
        from ..mcp_bridge import Workspace, serve
    except ImportError as error:
        print(
            f"error: powercontext mcp needs the mcp extra: "
            f"pip install 'powercontext-memory[mcp]' ({error})",
            file=sys.stderr,
        )
        return EXIT_MISSING_EXTRA
    directory = Path(args.directory or ".").expanduser().resolve()
    recorded = getattr(args, "recorded_endpoint", "") or client.config.endpoint
    workspace = Workspace(directory, endpoint=recorded)
    await serve(client, workspace, args.transport, args.host, args.port)
    return 0
