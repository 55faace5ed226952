"""The functions destructuring calls in the IR: a starred assignment `a, *rest, z = seq`
becomes `$t = unpack_starred(seq, 1, 1)` then `a = $t[0]; rest = $t[1]; z = $t[2]`; a sequence
pattern of `match` (`case (x, y):`) first tests `match_sequence(subject)` (both compiled by
ember/library/builtins/starred.py)."""

from __future__ import annotations

from collections.abc import Sequence
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


def not_enough_message(expected: int, count: int) -> str:
    return f"not enough values to unpack (expected at least {expected}, got {count})"
