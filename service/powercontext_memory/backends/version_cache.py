"""Entry versions this process has read and verified, for search and PrepareContext.

An entry version is immutable: once its row matched its canonical bytes and content hash, the
parsed version is the authentic one for good. Search answers (verify.py) take hits' versions
from here after the first read — no database round trip and no JSON parsing or re-hashing per
hit — while the head manifest still confirms each hit (active, exact version, same hash) on
every search (PrepareContext's rows likewise, context.py). Expand, listings and the verifier
read and check the stored rows every time, so a row damaged later is still reported there
(and by `verify`).
"""

from __future__ import annotations

from collections import OrderedDict

from ..domain.models import EntryVersion

DEFAULT_MAX_BYTES = 16 * 1024 * 1024
_OVERHEAD = 512  # ids, hashes, refs and the objects themselves, roughly


def _weight(version: EntryVersion) -> int:
    content = version.content
    return len(content.text) + len(content.description or "") + _OVERHEAD


class VersionCache:
    """Least recently used versions first out, past `max_bytes` of text."""

    def __init__(self, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[str, EntryVersion] = OrderedDict()
        self._bytes = 0

    def fits(self, count: int) -> bool:
        """Whether `count` more versions would fit without evicting any (at least their
        overhead: texts are not known before they are read)."""
        return count * _OVERHEAD <= self.max_bytes - self._bytes

    def __contains__(self, version_id: str) -> bool:
        return version_id in self._items

    def get(self, version_id: str) -> EntryVersion | None:
        found = self._items.get(version_id)
        if found is not None:
            self._items.move_to_end(version_id)
        return found

    def put(self, version: EntryVersion) -> None:
        key = version.entry_version_id
        if key in self._items or self.max_bytes <= 0:
            return
        self._items[key] = version
        self._bytes += _weight(version)
        while self._bytes > self.max_bytes and self._items:
            _, evicted = self._items.popitem(last=False)
            self._bytes -= _weight(evicted)
