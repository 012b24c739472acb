"""A SQLite transaction: the per-concern statements composed over one connection's primitives."""

from __future__ import annotations

from .catalog import SQLiteCatalog
from .credentials import SQLiteCredentials
from .projection import SQLiteProjection
from .request_log import SQLiteRequestLog
from .revisions import SQLiteRevisions
from .settings import SQLiteSettings
from .sources import SQLiteSources
from .vectors import SQLiteVectors


class SQLiteTransaction(
    SQLiteRevisions,
    SQLiteCatalog,
    SQLiteSources,
    SQLiteProjection,
    SQLiteVectors,
    SQLiteSettings,
    SQLiteCredentials,
    SQLiteRequestLog,
):
    """Every read and write of port/'s WriteTransaction, on a reader (a snapshot) or the writer."""
