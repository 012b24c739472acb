"""Changes messages built once for every stream that sends the same revision.

Streams replaying one memory at the same time take the very same decoded revisions from the
history pages they share (backends/history_pages.py), and followers the same ones from their
watch (notifier.py): each revision's protobuf message is built for the first of them and sent
as it is by the others. Keyed by the revision object itself, held here while its message is
kept, so a revision read afresh (a later replay) gets a message of its own.
"""

from __future__ import annotations

from collections import OrderedDict

from powercontext.memory.v1 import memory_service_pb2 as pb

from ..api import RevisionChanges
from . import convert

# The bound on kept messages, each weighing one plus its revision's changes so that memory
# stays bounded when revisions change thousands of entries: well beyond the revisions that
# streams moving together are on at once.
DEFAULT_WEIGHT = 16_384


class SharedMessages:
    """The most recently sent revisions' messages, least recently used out first."""

    def __init__(self, max_weight: int = DEFAULT_WEIGHT) -> None:
        self.max_weight = max_weight
        self._messages: OrderedDict[int, tuple[RevisionChanges, pb.ChangesResponse]] = OrderedDict()
        self._weight = 0

    def __len__(self) -> int:
        return len(self._messages)

    def message(self, item: RevisionChanges) -> pb.ChangesResponse:
        """The message of `item`, never to be changed by its callers (others send it too)."""
        key = id(item)  # unique while `item` is held here
        held = self._messages.get(key)
        if held is not None:
            self._messages.move_to_end(key)
            return held[1]
        message = convert.changes_response(item, now_ms=0)  # a revision's carries no clock
        self._messages[key] = (item, message)
        self._weight += _weight(item)
        while self._weight > self.max_weight and len(self._messages) > 1:
            _, (evicted, _) = self._messages.popitem(last=False)
            self._weight -= _weight(evicted)
        return message


def _weight(item: RevisionChanges) -> int:
    return 1 + len(item.changes)
