"""Starred assignment (`a, *rest = seq`) in compiled code: the overload of
ember/ir/starred.py's `unpack_starred`, for tuples (indexed statically, the middle made a list)
and for any other iterable (collected into a list first, its length checked at run time); and
the tests of `match` patterns: `match_sequence` and `match_mapping` (decided by the subject's
type), a mapping pattern's keys (`keys_matcher`: their values, or None) and a class pattern's
attributes (`class_matcher`: decided by the subject's type)."""

from __future__ import annotations

import functools

from ember import types
from ember.errors import TypingError
from ember.extending import intrinsic, overload
from ember.ir.starred import (
    class_pattern_attributes,
    class_pattern_names,
    match_mapping,
    match_sequence,
    not_enough_message,
    unpack_starred,
    unpack_starred_spread,
)
from ember.typing.signature import signature


def is_sequence_type(typ: types.Type) -> bool:
    """Whether values of `typ` are sequences a `case (x, y):` pattern may match: tuples,
    lists and ranges (not strings; not arrays, which are no collections.abc.Sequence)."""
    sequences = (types.BaseTuple, types.List, types.ListType, types.RangeType)
    return isinstance(typ, sequences) and not isinstance(typ, types.LiteralStrKeyDict)


def refuse_optional_subject(subject: types.Type, pattern: str) -> None:
    """A sequence or mapping pattern cannot test a value that may be None at run time."""
    if isinstance(subject, types.Optional):
        raise TypingError(
            f"a {pattern} pattern of `match` on a value of type {subject} (it may be None) is "
            "not supported in nopython mode; match a value that is never None (test `x is "
            "None` before the match statement)"
        )


def _decided_by_type(subject: types.Type, pattern: str, is_kind):
    """The test of a sequence or mapping pattern: a constant of the subject's type."""
    refuse_optional_subject(subject, pattern)
    if is_kind(subject):
        return lambda subject: True
    return lambda subject: False


@overload(match_sequence)
def _match_sequence(subject):
    return _decided_by_type(subject, "sequence", is_sequence_type)


def is_mapping_type(typ: types.Type) -> bool:
    """Whether values of `typ` are mappings a `case {"k": v}:` pattern may match: dicts."""
    return isinstance(typ, (types.DictType, types.LiteralStrKeyDict))


@overload(match_mapping)
def _match_mapping(subject):
    return _decided_by_type(subject, "mapping", is_mapping_type)


@functools.cache
def keys_matcher(keys: tuple):
    """A function of the subject for the keys of one mapping pattern: the tuple of their
    values when all are in the subject, else None (CPython's MATCH_KEYS)."""

    def match_keys(subject):
        if all(key in subject for key in keys):
            return tuple(subject[key] for key in keys)
        return None

    @overload(match_keys)
    def _match_keys(subject):
        namespace = {f"_key{i}": key for i, key in enumerate(keys)}
        values = "".join(f"subject[_key{i}], " for i in range(len(keys)))
        if isinstance(subject, types.LiteralStrKeyDict):  # its keys are known: no test
            known = {literal.literal_value for literal in subject.literal_value}
            if not all(key in known for key in keys):
                return lambda subject: None
            return _compile_matcher(f"    return ({values})", namespace)
        if not isinstance(subject, types.DictType):
            return lambda subject: None
        keys_found = [_key_of_type(key, subject.key_type) for key in keys]
        if _ABSENT in keys_found:  # `case {"a": v}` of a dict of int keys: never there
            body = f"    return _no_values(subject, {len(keys)})"
            return _compile_matcher(body, {"_no_values": _no_values})
        namespace = {f"_key{i}": key for i, key in enumerate(keys_found)}
        present = " and ".join(f"_key{i} in subject" for i in range(len(keys))) or "True"
        body = f"    if {present}:\n        return ({values})\n    return None"
        return _compile_matcher(body, namespace)

    return match_keys


_ABSENT = object()


def _key_of_type(key: object, key_type: types.Type) -> object:
    """`key` as a key of a dict of `key_type` keys, or _ABSENT when no such key can equal it
    (a string in a dict of numbers, 1.5 in a dict of ints)."""
    if isinstance(key_type, types.UnicodeType):
        return key if isinstance(key, str) else _ABSENT
    if isinstance(key_type, (types.Integer, types.Boolean)):
        if isinstance(key, float):
            return int(key) if key.is_integer() else _ABSENT
        return key if isinstance(key, int) else _ABSENT
    if isinstance(key_type, types.Float):
        return float(key) if isinstance(key, (int, float)) else _ABSENT
    return key


@functools.cache
def class_matcher(cls: type, names: tuple, count: int):
    """A function of the subject for one class pattern (`case Point(x, y=0):`): the
    attributes its sub-patterns match, or None when the subject is no `cls` (decided by the
    subject's type; rewrites/prune_none.py drops the branch that cannot be taken)."""
    from ember.library.builtins.sequences import is_instance_of

    wanted = class_pattern_names(cls, names, count)  # TypeError: too many positional ones

    def match_class(subject):
        return class_pattern_attributes(subject, cls, names, count)

    match_class.class_pattern = cls

    @overload(match_class)
    def _match_class(subject):
        maybe_none = isinstance(subject, types.Optional)  # decided when the code runs
        if not is_instance_of(subject.type if maybe_none else subject, (cls,)):
            return lambda subject: None
        value = "_value_of(subject)" if maybe_none else "subject"
        if wanted is None:  # `case int(x):` binds the subject itself
            values = f"{value}, "
        else:
            values = "".join(f"{value}.{name}, " for name in wanted)
        body = f"    return ({values})"
        if maybe_none:
            body = f"    if subject is None:\n        return None\n{body}"
        return _compile_matcher(body, {"_value_of": _value_of})

    return match_class


@intrinsic
def _no_values(typingctx, subject, count):
    """None, as the values of `count` keys of the dict `subject` would be typed (the case's
    unpacking types; it is never reached)."""
    if not isinstance(count, types.IntegerLiteral):
        return None
    result = types.Optional(types.UniTuple(subject.value_type, count.literal_value))

    def codegen(context, builder, sig, args):
        from ember.lowering.optional import none_value

        return none_value(context, sig.return_type)

    return signature(result, subject, count), codegen


@intrinsic
def _value_of(typingctx, subject):
    """The value inside an Optional the matcher tested for None."""
    if not isinstance(subject, types.Optional):
        return None

    def codegen(context, builder, sig, args):
        from ember.lowering import arrays as refs
        from ember.lowering.optional import unwrap

        value = unwrap(context, builder, sig.args[0], args[0], TypeError, "unexpected None")
        refs.incref(builder, sig.return_type, value)  # a call returns a new reference
        return value

    return signature(subject.type, subject), codegen


def _compile_matcher(body: str, namespace: dict):
    source = f"def impl(subject):\n{body}\n"
    exec(compile(source, "<ember match pattern>", "exec"), namespace)  # noqa: S102
    return namespace["impl"]


@overload(unpack_starred, prefer_literal=True)
def _unpack_starred(sequence, before, after):
    return _unpacker(sequence, before, after, middle_as_tuple=False)


@overload(unpack_starred_spread, prefer_literal=True)
def _unpack_starred_spread(sequence, before, after):
    return _unpacker(sequence, before, after, middle_as_tuple=True)


def _unpacker(sequence, before, after, middle_as_tuple: bool):
    if not isinstance(before, types.IntegerLiteral) or not isinstance(after, types.IntegerLiteral):
        return None
    before, after = before.literal_value, after.literal_value
    if isinstance(sequence, types.BaseTuple):
        return _from_tuple(sequence, before, after, middle_as_tuple)
    return _from_iterable(before, after)


def _from_tuple(sequence: types.BaseTuple, before: int, after: int, middle_as_tuple: bool):
    count = len(sequence)
    if count < before + after:
        if isinstance(sequence, types.UniTuple):
            return _from_iterable(before, after)  # raises CPython's ValueError when run
        raise TypingError(not_enough_message(before + after, count))
    middle = [f"sequence[{i}]" for i in range(before, count - after)]
    if middle_as_tuple:  # only spread (`(last, *init)`): a tuple, of any item types
        rest = f"({''.join(item + ', ' for item in middle)})"
    elif middle:
        rest = f"[{', '.join(middle)}]"
    elif isinstance(sequence, types.UniTuple):
        rest = "[sequence[0]][:0]"  # an empty list of the tuple's item type
    else:
        raise TypingError(
            "a, *rest = t: the starred name would be an empty list whose item type the "
            f"tuple {sequence} does not tell"
        )
    items = [f"sequence[{i}]" for i in range(before)]
    items += [rest] + [f"sequence[{i}]" for i in range(count - after, count)]
    return _compile(f"    return ({', '.join(items)},)", {})


def _from_iterable(before: int, after: int):
    items = [f"items[{i}]" for i in range(before)]
    items += ["items[before : count - after]"]
    items += [f"items[count - {after - i}]" for i in range(after)]
    body = (
        "    items = list(sequence)\n"
        "    count = len(items)\n"
        f"    if count < {before + after}:\n"
        "        raise ValueError(_message(count))\n"
        f"    return ({', '.join(items)},)"
    )
    return _compile(body, {"_message": _short_message(before + after)})


def _short_message(expected: int):
    from ember.extending import register_jitable

    prefix = f"not enough values to unpack (expected at least {expected}, got "

    @register_jitable
    def message(count):
        return prefix + str(count) + ")"

    return message


def _compile(body: str, namespace: dict):
    source = f"def impl(sequence, before, after):\n{body}\n"
    exec(compile(source, "<ember starred assignment>", "exec"), namespace)  # noqa: S102
    return namespace["impl"]
