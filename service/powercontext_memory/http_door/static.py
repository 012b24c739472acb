"""The web console's files, served as they are from the package's console/static/ directory.

Whatever regular files are there are served, read when asked (GET and HEAD), `/` being
index.html. A path names a file under that directory or nothing: hidden names, `..` and anything
that resolves outside it (a symbolic link included) are not found. Every answer says
`Cache-Control: no-cache`, so a browser asks again (cheaply, by ETag) after an upgrade.
"""

from __future__ import annotations

from pathlib import Path

from aiohttp import web
from aiohttp.typedefs import Handler

STATIC_ROOT = Path(__file__).resolve().parent.parent / "console" / "static"
INDEX = "index.html"
# Explicit, not the platform's mimetypes tables: an unknown type must not become text/html.
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".webmanifest": "application/manifest+json",
    ".txt": "text/plain; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".woff2": "font/woff2",
}
FALLBACK_TYPE = "application/octet-stream"


def static_file(root: Path, path: str) -> Path | None:
    """The file `path` (the URL path, decoded) names under `root`, or None."""
    parts = [part for part in path.split("/") if part]
    if not parts:
        parts = [INDEX]
    if any(part.startswith(".") or "\\" in part or "\0" in part for part in parts):
        return None
    base = root.resolve()
    found = base.joinpath(*parts).resolve()
    if not found.is_relative_to(base) or not found.is_file():
        return None
    return found


def content_type(path: Path) -> str:
    return CONTENT_TYPES.get(path.suffix.lower(), FALLBACK_TYPE)


def static_handler(root: Path = STATIC_ROOT) -> Handler:
    async def serve(request: web.Request) -> web.StreamResponse:
        found = static_file(root, request.match_info.get("path", ""))
        if found is None:
            raise web.HTTPNotFound(text="not found\n")
        return web.FileResponse(
            found, headers={"Content-Type": content_type(found), "Cache-Control": "no-cache"}
        )

    return serve
