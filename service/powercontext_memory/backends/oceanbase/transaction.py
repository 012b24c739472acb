"""OceanBaseTransaction: every read and write primitive of the storage port on one pooled
connection, composed of one class per concern over the shared statements."""

from __future__ import annotations

from .catalog import CatalogStatements
from .credentials import CredentialStatements
from .full_text import FullTextStatements
from .projection import ProjectionStatements
from .request_log import RequestLogStatements
from .revisions import RevisionStatements
from .settings import SettingsStatements
from .sources import SourceStatements
from .vectors import VectorStatements


class OceanBaseTransaction(
    RevisionStatements,
    CatalogStatements,
    SourceStatements,
    ProjectionStatements,
    FullTextStatements,
    VectorStatements,
    CredentialStatements,
    RequestLogStatements,
    SettingsStatements,
):
    """Read and write primitives on one pooled connection; BEGIN rides with the first call."""
