"""SharedMessages: a revision's Changes message is built once for every stream sending that
very revision object, and a revision read afresh gets its own."""

from __future__ import annotations

from powercontext_memory.api import MemoryChange, RevisionChanges
from powercontext_memory.domain.models import ArtifactRef, ChangeOp
from powercontext_memory.transport import convert
from powercontext_memory.transport.shared_messages import SharedMessages


def _revision(revision: int) -> RevisionChanges:
    return RevisionChanges(ArtifactRef("mem_1", revision), f"hash{revision}", (), 1000 + revision)


def test_the_same_revision_gets_the_same_message() -> None:
    messages = SharedMessages()
    item = _revision(1)
    message = messages.message(item)
    assert message == convert.changes_response(item, now_ms=0)
    assert message.revision.memory_ref.revision == 1
    assert messages.message(item) is message


def test_a_revision_read_afresh_gets_a_message_of_its_own() -> None:
    messages = SharedMessages()
    first = messages.message(_revision(1))
    again = messages.message(_revision(1))  # equal, but another read
    assert again == first
    assert again is not first


def test_only_the_newest_messages_are_kept() -> None:
    messages = SharedMessages(max_weight=2)  # a revision without changes weighs 1
    one, two, three = _revision(1), _revision(2), _revision(3)
    first_one = messages.message(one)
    first_two = messages.message(two)
    assert messages.message(one) is first_one  # used again: now the newest
    messages.message(three)  # the least recently used (two) goes
    assert len(messages) == 2
    assert messages.message(one) is first_one
    assert messages.message(two) is not first_two  # built again


def test_a_revision_of_many_changes_weighs_them() -> None:
    messages = SharedMessages(max_weight=4)
    small = _revision(1)
    messages.message(small)
    change = MemoryChange(ChangeOp.ADD, "mem_ent_1", None, "mem_ver_1")
    large = RevisionChanges(ArtifactRef("mem_1", 2), "hash2", (change,) * 3, 1002)
    message = messages.message(large)  # weighs 4: the small one goes, the large one stays
    assert len(message.revision.changes) == 3
    assert len(messages) == 1
    assert messages.message(large) is message
