"""Secrets the guard would refuse today, found in an imported file: named, never shown.

Such content can only come from a database written before the guard (or before one of its
rules); it is imported as stored, because history is immutable and its hashes cite it, and
refusing it would make the memory impossible to move.
"""

from __future__ import annotations

from collections.abc import Callable

from ..domain.models import EntryVersion, Source
from ..security.guard import Located, source_secret, text_secret
from .import_stream import Label

Progress = Callable[[str], None]


def warn_secrets(
    versions: tuple[EntryVersion, ...],
    sources: tuple[tuple[int, Source], ...],
    progress: Progress,
) -> None:
    """Name (never show) what the guard would refuse today in these versions and sources."""
    for version in versions:
        found = text_secret("text", version.content.text)
        if found is not None:
            progress(
                f"import: warning: entry version {version.entry_version_id} {_named(found)}; "
                "imported as stored"
            )
    for line, source in sources:
        found = source_secret(
            source.kind, source.uri, source.media_type, source.content, source.metadata
        )
        if found is not None:
            progress(
                f"import: warning: line {line}: source {source.source_id} {_named(found)}; "
                "imported as stored"
            )


def warn_label_secret(label: Label, progress: Progress) -> None:
    """A label is moved as stored too: the guard may have learned a rule since it was set."""
    found = text_secret("label", label.row.label)
    if found is not None:
        progress(
            f"import: warning: line {label.line}: label version {label.row.label_version} of "
            f"memory {label.row.memory_artifact_id}: {_named(found)}; imported as stored"
        )


def _named(found: Located) -> str:
    """The field, what it holds and the rule: never the value."""
    how = f" {found.how}" if found.how else ""
    return f"{found.field} holds {found.finding.description}{how} (rule {found.finding.rule})"
