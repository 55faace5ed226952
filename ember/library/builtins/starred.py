"""Starred assignment (`a, *rest = seq`) in compiled code: the overload of
ember/ir/starred.py's `unpack_starred`, for tuples (indexed statically, the middle made a list)
and for any other iterable (collected into a list first, its length checked at run time); and
`match_sequence`, a sequence pattern's test, decided by the subject's type."""

from __future__ import annotations

from ember import types
from ember.errors import TypingError
from ember.extending import overload
from ember.ir.starred import match_sequence, not_enough_message, unpack_starred


def is_sequence_type(typ: types.Type) -> bool:
    """Whether values of `typ` are sequences a `case (x, y):` pattern may match: tuples,
    lists and ranges (not strings; not arrays, which are no collections.abc.Sequence)."""
    sequences = (types.BaseTuple, types.List, types.ListType, types.RangeType)
    return isinstance(typ, sequences) and not isinstance(typ, types.LiteralStrKeyDict)


@overload(match_sequence)
def _match_sequence(subject):
    if is_sequence_type(subject):
        return lambda subject: True
    return lambda subject: False


@overload(unpack_starred, prefer_literal=True)
def _unpack_starred(sequence, before, after):
    if not isinstance(before, types.IntegerLiteral) or not isinstance(after, types.IntegerLiteral):
        return None
    before, after = before.literal_value, after.literal_value
    if isinstance(sequence, types.BaseTuple):
        return _from_tuple(sequence, before, after)
    return _from_iterable(before, after)


def _from_tuple(sequence: types.BaseTuple, before: int, after: int):
    count = len(sequence)
    if count < before + after:
        if isinstance(sequence, types.UniTuple):
            return _from_iterable(before, after)  # raises CPython's ValueError when run
        raise TypingError(not_enough_message(before + after, count))
    middle = [f"sequence[{i}]" for i in range(before, count - after)]
    if middle:
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
