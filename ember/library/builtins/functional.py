"""`map`, `filter` and `functools.reduce` given a jitted or builtin function (an inner function
or lambda is inlined instead, by the same code: library/builtins/key_functions.py), and the
`operator` functions that are builtins under another name (truth, abs, index)."""

from __future__ import annotations

import functools
import operator

from ember import types
from ember.extending import overload, register_jitable
from ember.library.builtins import key_functions
from ember.library.builtins.key_functions import reduce_from_initial, reduce_without_initial

register_jitable(reduce_from_initial)
register_jitable(reduce_without_initial)


def _callable(function) -> bool:
    return not isinstance(function, (types.NoneType, types.Number, types.Array))


@overload(map)
def builtin_map(function, *iterables):
    if not _callable(function):
        return None
    return key_functions.MAP_BY_COUNT.get(len(iterables))


@overload(filter)
def builtin_filter(function, iterable):
    if isinstance(function, types.NoneType):
        return _filter_true
    if not _callable(function):
        return None
    return key_functions.filter_by_function


def _filter_true(function, iterable):
    kept = []
    for item in iterable:
        if item:
            kept.append(item)
    return kept


@overload(functools.reduce)
def functools_reduce(function, iterable, *initial):
    if not _callable(function) or len(initial) > 1:
        return None
    if initial:
        return _reduce_from_initial
    return _reduce_without_initial


def _reduce_without_initial(function, iterable, *initial):
    return reduce_without_initial(function, iterable)


def _reduce_from_initial(function, iterable, *initial):
    return reduce_from_initial(function, iterable, initial[0])


@overload(operator.truth)
def operator_truth(value):
    return lambda value: bool(value)


@overload(operator.abs)
def operator_abs(value):
    return lambda value: abs(value)


@overload(operator.index)
def operator_index(value):
    if isinstance(types.unliteral(value), (types.Integer, types.Boolean)):
        return lambda value: int(value)
    return None
