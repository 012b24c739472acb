"""The secret guard over every stored field of a source: THE list of what PutSource scans (the
import command warns from the same list).

Binary content is scanned as Latin-1 (secrets.content_text); the content is also scanned as its
readers decode it (decoded.py). A metadata key is checked alone, so a secret key is never
echoed in a field name, and then with its value, so `api_key: <value>` reads as an assignment.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .decoded import decoded_texts, is_python
from .secrets import Finding, content_text, find_secret


@dataclass(frozen=True, slots=True)
class SourceFinding:
    """The field holding a secret, the finding (rule and span: never the value), and how the
    text was decoded when only the decoded text holds it ("" for the stored text)."""

    field: str
    finding: Finding
    how: str = ""


def _fields(
    kind: str, uri: str, media_type: str, metadata: tuple[tuple[str, str], ...]
) -> Iterator[tuple[str, str]]:
    yield "kind", kind
    yield "uri", uri
    yield "media_type", media_type
    for key, value in metadata:
        yield "metadata", key
        yield f"metadata[{key!r}]", f"{key}: {value}"


def source_secret(
    kind: str,
    uri: str,
    media_type: str,
    content: bytes,
    metadata: tuple[tuple[str, str], ...],
) -> SourceFinding | None:
    """The first secret in a source's fields, then in its content as stored and as decoded."""
    for field, text in _fields(kind, uri, media_type, metadata):
        finding = find_secret(text) if text else None
        if finding is not None:
            return SourceFinding(field, finding)
    text = content_text(content)
    finding = find_secret(text)
    if finding is not None:
        return SourceFinding("content", finding)
    for decoded in decoded_texts(text, python=is_python(uri, media_type)):
        finding = find_secret(decoded.text)
        if finding is not None:
            return SourceFinding("content", finding, decoded.how)
    return None
