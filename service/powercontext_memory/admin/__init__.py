"""Operator commands that work on a database directly (not over gRPC).

- projection.py: rebuild the projection, re-embed, migrate the embedding profile (offline).
- export.py, export_format.py, import_stream.py, importer.py: memories to a portable,
  self-verifying file and back into any backend; backup.py: copy a live SQLite database;
  transfer.py: their command lines.
"""

from .projection import RebuildReport, migrate, rebuild

__all__ = ["RebuildReport", "migrate", "rebuild"]
