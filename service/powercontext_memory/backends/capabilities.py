"""What a storage backend can do, as the service and the search package need to know it.

The service asks the backend for this object instead of reaching into its adapter: which
engine it is, whether full text and vectors passed the start-up probes, and whether the
engine searches vectors with its own index (then this process keeps no vectors).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class BackendCapabilities:
    name: str  # "sqlite", "oceanbase"
    location: str  # the database file or DSN (without secrets), for messages
    engine_version: str
    fts_problem: str  # why full text failed the start-up probe ("" when it works)
    vector_problem: str  # why vectors failed the start-up probe ("" when they work)
    native_vector_search: bool  # the engine's own vector index answers nearest-row queries
