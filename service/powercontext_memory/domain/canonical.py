"""RFC 8785 (JCS) canonical JSON bytes and the content hashes built on them.

Every hash in the service is SHA-256 over canonical bytes, so this module must produce exactly
what any other JCS implementation produces for the same value. We restrict values to dict (str
keys), list, tuple, str, int, bool and None; floats are refused because their JCS form depends on
ECMAScript number formatting and we never hash them.

Why `json.dumps` is enough for the encoding itself: with `ensure_ascii=False` and compact
separators it escapes exactly what JCS escapes (`"`, `\\`, the short forms `\\b \\f \\n \\r \\t`,
other C0 controls as lowercase `\\u00xx`) and leaves everything else literal, including `/`,
DEL, U+2028/U+2029 and non-ASCII. The test suite cross-checks this against the `rfc8785`
package. The one difference is key order: Python sorts by code point, JCS by UTF-16 code unit.
The two orders agree unless a key contains a supplementary-plane character (> U+FFFF), whose
UTF-16 surrogates sort below U+E000..U+FFFF; only then do we re-sort keys ourselves.

json.dumps accepts floats and coerces int/bool/None keys to strings, so one Python walk over
the value refuses those; it costs roughly a third of the json.dumps time itself.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Iterable
from typing import Final

ENTRY_CONTENT_PREFIX: Final = b"powercontext:entry-content:v1\x00"
# Entry content that carries a description (and maybe tags): every version written since
# descriptions exist. Versions without one keep v1, so their stored hashes still verify.
ENTRY_CONTENT_V2_PREFIX: Final = b"powercontext:entry-content:v2\x00"
EMBEDDING_CONTENT_PREFIX: Final = b"powercontext:embedding-content:v1\x00"
SOURCE_CONTENT_PREFIX: Final = b"powercontext:source-content:v1\x00"

# I-JSON / JCS numbers are IEEE 754 doubles; larger integers would not round-trip elsewhere.
_MAX_SAFE_INT: Final = 2**53 - 1


def canonical_json(value: object) -> bytes:
    """Return the RFC 8785 canonical UTF-8 encoding of a float-free JSON value.

    Raises TypeError for floats (including NaN and infinities), non-str dict keys and
    unsupported types; ValueError for lone surrogates, integers outside +/-(2**53 - 1) and
    circular references.
    """
    # The C encoder runs first: it rejects unsupported types and cycles before our walk,
    # which therefore never loops forever.
    text = _dumps(value, sort_keys=True)
    data = _utf8(text)
    if _validate(value):
        data = _utf8(_dumps(_utf16_key_order(value), sort_keys=False))
    return data


def sha256_hex(data: bytes) -> str:
    """SHA-256 of `data` as 64 lowercase hex characters."""
    return hashlib.sha256(data).hexdigest()


def prefixed_sha256(prefix: bytes, payload: bytes) -> str:
    """Domain-separated hash: the prefix keeps hashes of different record kinds disjoint."""
    return sha256_hex(prefix + payload)


def nfc(text: str) -> str:
    """Unicode NFC normalization, so equal-looking text hashes and matches equally."""
    return unicodedata.normalize("NFC", text)


def _dumps(value: object, *, sort_keys: bool) -> str:
    # allow_nan=True on purpose: NaN and infinities are floats and _validate refuses them with
    # the same TypeError as any other float, instead of json's ValueError.
    return json.dumps(
        value,
        sort_keys=sort_keys,
        separators=(",", ":"),
        ensure_ascii=False,
        allow_nan=True,
    )


def _utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"string is not valid Unicode (lone surrogate at {exc.start})") from exc


def _validate(value: object) -> bool:
    """Refuse what json.dumps silently accepts; return True if keys need UTF-16 re-sorting.

    This walk is the only per-node Python work on the hot path; it exists because json.dumps
    accepts floats and coerces int/float/bool/None keys to strings.
    """
    needs_utf16_sort = False
    stack: list[object] = [value]
    while stack:
        node = stack.pop()
        children: Iterable[object]
        if isinstance(node, dict):
            for key in node:
                # Plain ASCII str keys (nearly all of them) skip the function call.
                if type(key) is not str or not key.isascii():
                    needs_utf16_sort |= _check_key(key)
            children = node.values()
        elif isinstance(node, list | tuple):
            children = node
        else:
            _check_scalar(node)
            continue
        for child in children:
            # Skip the common scalars inline; containers and anything unusual go on the stack.
            if type(child) is str or type(child) is bool or child is None:
                continue
            if type(child) is int and -_MAX_SAFE_INT <= child <= _MAX_SAFE_INT:
                continue
            stack.append(child)
    return needs_utf16_sort


def _check_key(key: object) -> bool:
    if not isinstance(key, str):
        raise TypeError(f"canonical JSON object keys must be str, not {type(key).__name__}")
    # Only supplementary-plane characters make UTF-16 order differ from code-point order.
    return not key.isascii() and max(key) > "\uffff"


def _check_scalar(node: object) -> None:
    if node is None or isinstance(node, str | bool):
        return
    if isinstance(node, int):
        if not -_MAX_SAFE_INT <= node <= _MAX_SAFE_INT:
            raise ValueError(f"integer {node} is outside the I-JSON safe range +/-(2**53 - 1)")
        return
    if isinstance(node, float):
        raise TypeError(f"floats are not allowed in canonical JSON: {node!r}")
    # Unreachable after json.dumps accepted the value; kept so the walk stands on its own.
    raise TypeError(f"type {type(node).__name__} is not allowed in canonical JSON")


def _utf16_key_order(node: object) -> object:
    """Copy of a validated value with every dict's keys in UTF-16 code-unit order."""
    if isinstance(node, dict):
        ordered = sorted(node.items(), key=lambda item: item[0].encode("utf-16-be"))
        return {key: _utf16_key_order(child) for key, child in ordered}
    if isinstance(node, list | tuple):
        return [_utf16_key_order(child) for child in node]
    return node
