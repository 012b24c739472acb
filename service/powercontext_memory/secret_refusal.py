"""Refusing secrets in what a caller asks the service to store.

Every write path (entries, reasons, sources) refuses through here, so the refusal reads the
same everywhere and never carries the secret itself. The detection rules are
security/guard.py; this module turns a finding into the INVALID_ARGUMENT the caller sees.
"""

from __future__ import annotations

import asyncio

from .domain.errors import InvalidArgumentError
from .security.decoded import is_python
from .security.guard import Located, source_secret, text_secret

# Larger contents, and Python sources (whose string literals are parsed too), are scanned in a
# worker thread so the event loop keeps serving other calls meanwhile.
SCAN_INLINE_BYTES = 64 * 1024


def refuse_secret(field_name: str, text: str | None) -> None:
    """Memories never hold secrets: refuse, naming the field and the rule, never the value
    (not in the message, the metadata or a log line)."""
    found = text_secret(field_name, text)
    if found is not None:
        raise _secret_refused(found)


async def refuse_secrets_in_source(
    kind: str, uri: str, media_type: str, content: bytes, metadata: tuple[tuple[str, str], ...]
) -> None:
    """Every stored field of a source, its content also as its readers decode it."""
    if len(content) <= SCAN_INLINE_BYTES and not is_python(uri, media_type):
        found = source_secret(kind, uri, media_type, content, metadata)
    else:
        found = await asyncio.to_thread(source_secret, kind, uri, media_type, content, metadata)
    if found is not None:
        raise _secret_refused(found)


def _secret_refused(found: Located) -> InvalidArgumentError:
    finding = found.finding
    how = f" {found.how}" if found.how else ""
    return InvalidArgumentError(
        found.field,
        f"holds {finding.description}{how} (rule {finding.rule}); memories never hold "
        "secrets: store where the secret is kept (a vault path, an environment variable name), "
        "not its value",
        reason="SECRET_DETECTED",
        metadata={"rule": finding.rule},
    )
