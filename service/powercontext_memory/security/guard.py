"""The secret guard over what a write stores: each text as stored and as its readers decode it
(decoded.py), and THE list of a source's fields that PutSource scans (the import command warns
from the same list).

Binary content is scanned as Latin-1 (secrets.content_text). A metadata key is checked alone,
so a secret key is never echoed in a field name, and then with its value, so `api_key: <value>`
reads as an assignment.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .decoded import decoded_texts, is_python
from .secrets import Finding, content_text, find_secret


@dataclass(frozen=True, slots=True)
class Located:
    """A secret: the field that holds it, the finding (rule and span: never the value), and
    how the text was decoded when only the decoded text holds it ("" for the stored text)."""

    field: str
    finding: Finding
    how: str = ""


def text_secret(field: str, text: str | None, *, python: bool = False) -> Located | None:
    """The first secret in `text`, as stored, then as decoded (escapes; Python's literals)."""
    if not text:
        return None
    finding = find_secret(text)
    if finding is not None:
        return Located(field, finding)
    for decoded in decoded_texts(text, python=python):
        finding = find_secret(decoded.text)
        if finding is not None:
            return Located(field, finding, decoded.how)
    return None


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
) -> Located | None:
    """The first secret in a source's fields, then in its content."""
    for field, text in _fields(kind, uri, media_type, metadata):
        found = text_secret(field, text)
        if found is not None:
            return found
    return text_secret("content", content_text(content), python=is_python(uri, media_type))
