"""Python's `bisect` module in compiled code: bisect_left, bisect_right (bisect), insort_left
and insort_right (insort) on lists, tuples and 1-d arrays, with CPython's `lo`, `hi` and `key`
arguments and its ValueError for a negative `lo`."""

from __future__ import annotations

import bisect

from ember import types
from ember.errors import TypingError
from ember.extending import overload, register_jitable


def _check_sequence(a: types.Type, function: str, insert: bool = False) -> None:
    sequences = (types.List,) if insert else (types.List, types.BaseTuple, types.Array)
    if not isinstance(a, sequences) or (isinstance(a, types.Array) and a.ndim != 1):
        what = "a list" if insert else "a list, tuple or 1-d array"
        raise TypingError(f"bisect.{function}() takes {what} as its first argument, not {a}")


@register_jitable
def _search(a, x, lo, hi, key, right):
    """The index where `x` goes in the sorted a[lo:hi]: after the items equal to it when
    `right`, before them otherwise (each item compared through `key`, when given)."""
    if lo < 0:
        raise ValueError("lo must be non-negative")
    if hi == -1:  # CPython's C module reads an explicit -1 as "no bound" too
        hi = len(a)
    while lo < hi:
        middle = (lo + hi) // 2
        item = a[middle] if key is None else key(a[middle])
        if (x < item) if right else not (item < x):
            hi = middle
        else:
            lo = middle + 1
    return lo


def _bisect_overload(function: str, right: bool):
    def overload_function(a, x, lo=0, hi=None, key=None):
        _check_sequence(a, function)

        def impl(a, x, lo=0, hi=None, key=None):
            return _search(a, x, lo, -1 if hi is None else hi, key, right)

        return impl

    return overload_function


def _insort_overload(function: str, right: bool):
    def overload_function(a, x, lo=0, hi=None, key=None):
        _check_sequence(a, function, insert=True)

        def impl(a, x, lo=0, hi=None, key=None):
            probe = x if key is None else key(x)
            a.insert(_search(a, probe, lo, -1 if hi is None else hi, key, right), x)

        return impl

    return overload_function


for _name, _right in (("bisect_left", False), ("bisect_right", True), ("bisect", True)):
    overload(getattr(bisect, _name))(_bisect_overload(_name, _right))
for _name, _right in (("insort_left", False), ("insort_right", True), ("insort", True)):
    overload(getattr(bisect, _name))(_insort_overload(_name, _right))
