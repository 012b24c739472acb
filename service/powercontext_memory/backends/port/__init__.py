"""The storage port: what a database adapter implements, grouped by concern.

rows.py         the plain rows exchanged
revisions.py    revisions, entry versions, pieces and the head CAS
catalog.py      the memories as listed, and their labels
sources.py      sources and their links to memories
projection.py   the head projection (full text, vectors)
credentials.py  access tokens and signing keys
request_log.py  write request ids and their outcomes
settings.py     the embedding profile and schema markers
audit.py        whole-database scans
adapter.py      the transactions composed of them, and StorageAdapter
"""

from __future__ import annotations

from .adapter import (
    HotReads,
    ReadTransaction,
    SnapshotMovedError,
    StorageAdapter,
    WriteTransaction,
)
from .audit import (
    AuditReads,
)
from .catalog import (
    CatalogReads,
    CatalogWrites,
    MemoryHeadRow,
    MemoryLabelRow,
)
from .credentials import (
    SIGNING_KEY_PREFIX,
    SIGNING_KEY_RANGE,
    CredentialReads,
    CredentialWrites,
)
from .projection import (
    NativeVectorSearch,
    ProjectionReads,
    ProjectionWrites,
)
from .request_log import (
    RequestLogReads,
    RequestLogWrites,
)
from .revisions import (
    RevisionExistsError,
    RevisionReads,
    RevisionWrites,
)
from .rows import (
    AccessTokenRow,
    ChangesRow,
    EntryVersionRow,
    HeadCondition,
    HeadKindRow,
    HeadProjectionRow,
    ManifestPieceRow,
    RevisionRow,
    SourceLinkRow,
    SourceRow,
    VectorCandidate,
    VectorRow,
    VersionMetadataRow,
    WriteRequestRow,
    columns,
    values,
)
from .settings import (
    SettingsReads,
    SettingsWrites,
)
from .sources import (
    SourceReads,
    SourceWrites,
)

__all__ = [
    "AccessTokenRow",
    "AuditReads",
    "CatalogReads",
    "CatalogWrites",
    "MemoryHeadRow",
    "MemoryLabelRow",
    "ChangesRow",
    "CredentialReads",
    "CredentialWrites",
    "EntryVersionRow",
    "HeadCondition",
    "HeadKindRow",
    "HeadProjectionRow",
    "HotReads",
    "ManifestPieceRow",
    "NativeVectorSearch",
    "ProjectionReads",
    "ProjectionWrites",
    "ReadTransaction",
    "RequestLogReads",
    "RequestLogWrites",
    "RevisionExistsError",
    "RevisionReads",
    "RevisionRow",
    "RevisionWrites",
    "SIGNING_KEY_PREFIX",
    "SIGNING_KEY_RANGE",
    "SettingsReads",
    "SettingsWrites",
    "SnapshotMovedError",
    "SourceLinkRow",
    "SourceReads",
    "SourceRow",
    "SourceWrites",
    "StorageAdapter",
    "VectorCandidate",
    "VectorRow",
    "VersionMetadataRow",
    "WriteRequestRow",
    "WriteTransaction",
    "columns",
    "values",
]
