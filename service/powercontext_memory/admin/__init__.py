"""Operator commands that work on a database directly (not over gRPC).

- projection.py: rebuild the projection, re-embed, migrate the embedding profile (offline).
"""

from .projection import RebuildReport, migrate, rebuild

__all__ = ["RebuildReport", "migrate", "rebuild"]
