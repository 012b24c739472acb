"""Database-wide settings: the embedding profile and the schema_meta markers.

The profile is fixed by the first model the database is opened with and changes only offline
(migrate-embedding), dropping every stored vector; a marker is set once and never changed."""

from __future__ import annotations

from typing import Protocol


class SettingsReads(Protocol):
    """Read on open and by the one-time backfills."""

    async def embedding_profile_json(self) -> str | None:
        """The database's fixed embedding profile (canonical JSON), if one was fixed."""
        ...

    async def meta_value(self, key: str) -> str | None:
        """A schema_meta value: markers of the one-time backfills run on open."""
        ...


class SettingsWrites(Protocol):
    """Written on first open and by offline commands."""

    async def set_embedding_profile(self, profile_json: str, dimension: int) -> None:
        """Fix (or, offline, replace) the profile: every stored vector is dropped."""
        ...

    async def insert_meta_value(self, key: str, value: str) -> bool:
        """Set a schema_meta key once; False (nothing changed) when it is already set."""
        ...
