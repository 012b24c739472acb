"""Hypothesis strategies derived from protobuf descriptors, so a new field is fuzzed unasked.

Every field of a message may be present or not; scalars range over their whole wire type
(int64 extremes included), strings over all of Unicode plus values that look real (ids that
exist on the server under test, so requests get past the first lookup), enums over their
values and unknown ones, nested messages recurse, repeated and map fields get a few items.
`mutated` changes a few fields anywhere in a valid request, to reach the code behind the
first checks; `integer_limits` walks every integer field of one through its edge values.
`malformed_wire` derives undecodable bytes for a message: invalid UTF-8 in each of its string
fields, and truncations of encodings of it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from hypothesis import strategies as st

INT64 = (-(2**63), 2**63 - 1)
INT32 = (-(2**31), 2**31 - 1)
# Where integer handling goes wrong: JSON's 2^53, the signed limits, off-by-ones.
EDGE_INTEGERS = (0, 1, 2, 3, -1, 2**31 - 1, 2**31, 2**53 - 1, 2**53, 2**53 + 1, 2**63 - 1, -(2**63))
MAX_ITEMS = 3
MAX_DEPTH = 4
# Protobuf strings are UTF-8: lone surrogates cannot be set (malformed_wire sends those).
TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=40)

T = FieldDescriptor
INTEGER_RANGES = {
    T.TYPE_INT64: INT64,
    T.TYPE_SINT64: INT64,
    T.TYPE_SFIXED64: INT64,
    T.TYPE_UINT64: (0, 2**64 - 1),
    T.TYPE_FIXED64: (0, 2**64 - 1),
    T.TYPE_INT32: INT32,
    T.TYPE_SINT32: INT32,
    T.TYPE_SFIXED32: INT32,
    T.TYPE_UINT32: (0, 2**32 - 1),
    T.TYPE_FIXED32: (0, 2**32 - 1),
}


def integers(low: int, high: int) -> st.SearchStrategy[int]:
    edges = [n for n in EDGE_INTEGERS if low <= n <= high]
    return st.one_of(st.sampled_from(edges), st.integers(low, high))


def _scalar(field: FieldDescriptor, plausible: Sequence[str]) -> st.SearchStrategy[Any]:
    if field.type in INTEGER_RANGES:
        return integers(*INTEGER_RANGES[field.type])
    if field.type == T.TYPE_BOOL:
        return st.booleans()
    if field.type == T.TYPE_DOUBLE:
        return st.floats()
    if field.type == T.TYPE_FLOAT:
        return st.floats(width=32)
    if field.type == T.TYPE_STRING:
        return st.one_of(st.sampled_from(plausible), TEXT) if plausible else TEXT
    if field.type == T.TYPE_BYTES:
        return st.binary(max_size=64)
    if field.type == T.TYPE_ENUM:  # proto3 enums are open: unknown numbers are legal on the wire
        known = [v.number for v in field.enum_type.values]
        return st.one_of(st.sampled_from(known), integers(*INT32))
    raise AssertionError(f"no strategy for field type {field.type} of {field.full_name}")


def _value(field: FieldDescriptor, plausible: Sequence[str], depth: int) -> st.SearchStrategy[Any]:
    if field.type == T.TYPE_MESSAGE:
        return message(field.message_type, plausible, depth + 1)
    return _scalar(field, plausible)


def _is_map(field: FieldDescriptor) -> bool:
    return field.type == T.TYPE_MESSAGE and field.message_type.GetOptions().map_entry


def _field(field: FieldDescriptor, plausible: Sequence[str], depth: int) -> st.SearchStrategy[Any]:
    if _is_map(field):
        key, value = (
            field.message_type.fields_by_name["key"],
            field.message_type.fields_by_name["value"],
        )
        return st.dictionaries(
            _scalar(key, plausible), _value(value, plausible, depth), max_size=MAX_ITEMS
        )
    item = _value(field, plausible, depth)
    if field.is_repeated:
        return st.lists(item, max_size=MAX_ITEMS)
    return item


def _set(target: Message, field: FieldDescriptor, value: Any) -> None:
    slot = getattr(target, field.name)
    if _is_map(field):
        for key, item in value.items():
            if isinstance(item, Message):
                slot[key].CopyFrom(item)
            else:
                slot[key] = item
    elif field.is_repeated:
        if field.type == T.TYPE_MESSAGE:
            for item in value:
                slot.add().CopyFrom(item)
        else:
            slot.extend(value)
    elif field.type == T.TYPE_MESSAGE:
        slot.CopyFrom(value)
    else:
        setattr(target, field.name, value)


def message(
    descriptor: Descriptor, plausible: Sequence[str] = (), depth: int = 0
) -> st.SearchStrategy[Message]:
    """Instances of the message `descriptor` describes, any subset of fields set."""
    cls = GetMessageClass(descriptor)
    if depth >= MAX_DEPTH:
        return st.just(cls())
    fields = {f.name: _field(f, plausible, depth) for f in descriptor.fields}

    def build(values: dict[str, Any]) -> Message:
        built = cls()
        for name, value in values.items():  # several members of one oneof: the last one wins
            _set(built, descriptor.fields_by_name[name], value)
        return built

    return st.fixed_dictionaries({}, optional=fields).map(build)


# Mostly one: every further change is one more chance to stop at the first check.
MUTATIONS = st.sampled_from([1, 1, 1, 2, 3])


def _slots(request: Message, depth: int = 0) -> list[tuple[Message, FieldDescriptor, int]]:
    """Every (message, field, depth) in the tree of `request`: its own fields, and those of
    the sub-messages and repeated items it holds."""
    found = []
    for field in request.DESCRIPTOR.fields:
        found.append((request, field, depth))
        if field.type != T.TYPE_MESSAGE or _is_map(field) or depth + 1 >= MAX_DEPTH:
            continue
        if field.is_repeated:
            for item in getattr(request, field.name):
                found += _slots(item, depth + 1)
        elif request.HasField(field.name):
            found += _slots(getattr(request, field.name), depth + 1)
    return found


@st.composite
def mutated(draw: st.DrawFn, valid: Message, plausible: Sequence[str] = ()) -> Message:
    """`valid` with one (to three) fields, anywhere in its tree, replaced by generated values:
    a request that passes most checks and is wrong in one place reaches the deep code."""
    request = type(valid)()
    request.CopyFrom(valid)
    for _ in range(draw(MUTATIONS)):
        slots = _slots(request)
        if not slots:
            break
        # Uniformly: Hypothesis's own choices lean to the first field, time after time.
        target, field, depth = draw(st.randoms(use_true_random=False)).choice(slots)
        target.ClearField(field.name)
        _set(target, field, draw(_field(field, plausible, depth)))
    return request


def _path(request: Message, target: Message, field: FieldDescriptor) -> str:
    """`entries[0].artifacts[1].revision`: where `field` of `target` sits in `request`."""
    if target is request:
        return field.name
    for parent, outer, _ in _slots(request):
        if outer.type != T.TYPE_MESSAGE or _is_map(outer):
            continue
        held = getattr(parent, outer.name)
        if outer.is_repeated:
            for n, item in enumerate(held):
                if item is target:
                    return f"{_path(request, parent, outer)}[{n}].{field.name}"
        elif parent.HasField(outer.name) and held is target:
            return f"{_path(request, parent, outer)}.{field.name}"
    raise AssertionError(f"{field.name} is not in the request")


def integer_limits(valid: Message) -> Iterator[tuple[str, int, Message]]:
    """(field path, value, request) for every integer and enum field in the tree of `valid`
    set to each of its type's edge values (enums: also numbers no value has), one at a time:
    every integer must be checked before it is used."""
    for n in range(len(_slots(valid))):
        probe = type(valid)()
        probe.CopyFrom(valid)
        target, field, _ = _slots(probe)[n]
        if field.type == T.TYPE_ENUM:
            values = [v.number for v in field.enum_type.values] + [-1, 2**31 - 1]
        elif field.type in INTEGER_RANGES:
            low, high = INTEGER_RANGES[field.type]
            values = [v for v in EDGE_INTEGERS if low <= v <= high] + [low, high]
        else:
            continue
        path = _path(probe, target, field)
        for value in dict.fromkeys(values):
            request = type(valid)()
            request.CopyFrom(valid)
            target, field, _ = _slots(request)[n]
            target.ClearField(field.name)
            _set(target, field, [value] if field.is_repeated else value)
            yield path, value, request


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


INVALID_UTF8 = (b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"ok\xe2\x82")  # last: truncated


def _length_delimited(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def invalid_utf8(descriptor: Descriptor, depth: int = 0) -> list[tuple[str, bytes]]:
    """(field path, wire bytes) with invalid UTF-8 in each string field of the message, also
    inside its sub-messages and map entries: what protobuf refuses to decode."""
    found: list[tuple[str, bytes]] = []
    for field in descriptor.fields:
        if field.type == T.TYPE_STRING:
            found += [(field.name, _length_delimited(field.number, bad)) for bad in INVALID_UTF8]
        elif field.type == T.TYPE_MESSAGE and depth + 1 < MAX_DEPTH:
            found += [
                (f"{field.name}.{path}", _length_delimited(field.number, inner))
                for path, inner in invalid_utf8(field.message_type, depth + 1)
            ]
    return found


def malformed_wire(
    descriptor: Descriptor, plausible: Sequence[str] = (), valid: Message | None = None
) -> st.SearchStrategy[bytes]:
    """Bytes no correct client sends for this message: invalid UTF-8 in one of its string
    fields, an encoding cut short (of `valid` too, when given), or random bytes."""
    requests = message(descriptor, plausible)
    if valid is not None:
        requests = st.one_of(st.just(valid), requests)
    encoded = requests.map(lambda m: m.SerializeToString())
    random_bytes = st.binary(min_size=1, max_size=64)
    truncated = encoded.flatmap(
        lambda b: (
            st.integers(1, len(b) - 1).map(lambda cut: b[:cut]) if len(b) > 1 else random_bytes
        )
    )
    options = [truncated, random_bytes]
    bad_strings = [wire for _, wire in invalid_utf8(descriptor)]
    if bad_strings:
        options.insert(0, st.sampled_from(bad_strings))
    return st.one_of(options)
