"""The memory console: a static web page (plain HTML, ES modules and CSS, no build step) that the
HTTP door serves at `/` to see and curate what coding agents remember (docs/console.md)."""

from __future__ import annotations

from pathlib import Path

STATIC_DIRECTORY = Path(__file__).resolve().parent / "static"
