"""The functions destructuring calls in the IR: a starred assignment `a, *rest, z = seq`
becomes `$t = unpack_starred(seq, 1, 1)` then `a = $t[0]; rest = $t[1]; z = $t[2]`; a sequence
pattern of `match` (`case (x, y):`) first tests `match_sequence(subject)`, a mapping pattern
`match_mapping(subject)`, a class pattern reads `class_pattern_attributes` (all compiled by
ember/library/builtins/starred.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def match_sequence(subject: Any) -> bool:
    """Whether a sequence pattern may match `subject` (CPython's MATCH_SEQUENCE): a sequence
    that is not a str, bytes or bytearray."""
    return isinstance(subject, Sequence) and not isinstance(subject, (str, bytes, bytearray))


def unpack_starred(sequence: Any, before: int, after: int) -> tuple:
    """(the first `before` items, a list of the middle ones, the last `after` items)."""
    items = list(sequence)
    count = len(items)
    if count < before + after:
        raise ValueError(not_enough_message(before + after, count))
    return (*items[:before], items[before : count - after], *items[count - after :])


def unpack_starred_spread(sequence: Any, before: int, after: int) -> tuple:
    """unpack_starred for a starred name the function only spreads (`(last, *init)`): its
    middle is then a tuple, whose length a tuple source tells while compiling."""
    *first, middle = unpack_starred(sequence, before, 0)
    count = len(middle) - after
    return (*first, tuple(middle[:count]), *middle[count:])


def not_enough_message(expected: int, count: int) -> str:
    return f"not enough values to unpack (expected at least {expected}, got {count})"


def match_mapping(subject: Any) -> bool:
    """Whether a mapping pattern (`case {"k": v}:`) may match `subject` (CPython's
    MATCH_MAPPING)."""
    return isinstance(subject, Mapping)


def class_pattern_attributes(subject: Any, cls: type, names: tuple, count: int) -> tuple | None:
    """CPython's MATCH_CLASS: None unless `subject` is a `cls`, else the values `count`
    positional sub-patterns (through `cls.__match_args__`, or the subject itself for int,
    str, tuple...) and the keyword ones (`names`) match against."""
    if not isinstance(subject, cls):
        return None
    wanted = class_pattern_names(cls, names, count)
    if wanted is None:
        return (subject,)
    if not all(hasattr(subject, name) for name in wanted):
        return None
    return tuple(getattr(subject, name) for name in wanted)


SELF_MATCHING = (bool, bytearray, bytes, dict, float, frozenset, int, list, set, str, tuple)


def class_pattern_names(cls: type, names: tuple, count: int) -> tuple | None:
    """The attributes a class pattern reads (None: `int(x)`, which binds the subject itself);
    TypeError for more positional sub-patterns than the class accepts, as CPython."""
    if count == 0:
        return tuple(names)
    match_args = getattr(cls, "__match_args__", None)
    if match_args is None and issubclass(cls, SELF_MATCHING):
        if count == 1 and not names:
            return None
        accepted = 1
    else:
        accepted = len(match_args or ())
    if count > accepted:
        plural = "" if accepted == 1 else "s"
        raise TypeError(
            f"{cls.__name__}() accepts {accepted} positional sub-pattern{plural} ({count} given)"
        )
    return tuple(match_args[:count]) + tuple(names)
