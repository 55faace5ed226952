"""`sorted`, `min`, `max` and `list.sort` with a `key=` function, and `map`, `filter` and
`functools.reduce` with a function, written as plain Python that the inner-function inliner
(ember/frontend/inline_closures.py) copies into the caller with the function bound: an inner
function or lambda can only be called where it is inlined. library/builtins/functional.py
compiles the same code for jitted and builtin functions."""

from __future__ import annotations

import builtins
import functools


def sorted_by_key(iterable, key=None, reverse=False):
    """Python's order: by key, ties in their original order (also when reversed)."""
    items = []
    for item in iterable:
        items.append(item)
    keyed = []
    for position in range(len(items)):
        tie = -position if reverse else position
        keyed.append((key(items[position]), tie))
    keyed.sort()
    result = []
    for index in range(len(keyed)):
        at = len(keyed) - 1 - index if reverse else index
        tie = keyed[at][1]
        result.append(items[-tie if reverse else tie])
    return result


def sort_by_key(xs, key=None, reverse=False):
    """`xs.sort(key=..., reverse=...)` in place."""
    ordered = sorted(xs, key=key, reverse=reverse)  # inlined as sorted_by_key
    for position in range(len(ordered)):
        xs[position] = ordered[position]


def min_by_key(iterable, key=None):
    """The first item whose key is smallest, as Python's min."""
    best, best_score, empty = None, None, True
    for item in iterable:
        score = key(item)
        if empty or score < best_score:
            best, best_score, empty = item, score, False
    if empty:
        raise ValueError("min() arg is an empty sequence")
    return best


def max_by_key(iterable, key=None):
    """The first item whose key is largest, as Python's max."""
    best, best_score, empty = None, None, True
    for item in iterable:
        score = key(item)
        if empty or score > best_score:
            best, best_score, empty = item, score, False
    if empty:
        raise ValueError("max() arg is an empty sequence")
    return best


def min_by_key_or_default(iterable, key=None, default=None):
    """min(iterable, key=..., default=...): `default` for an empty iterable."""
    best, best_score, empty = default, None, True
    for item in iterable:
        score = key(item)
        if empty or score < best_score:
            best, best_score, empty = item, score, False
    return best


def max_by_key_or_default(iterable, key=None, default=None):
    """max(iterable, key=..., default=...): `default` for an empty iterable."""
    best, best_score, empty = default, None, True
    for item in iterable:
        score = key(item)
        if empty or score > best_score:
            best, best_score, empty = item, score, False
    return best


# map and filter run when called and give a list of their results (an iterator's state lives
# in its function's frame, so it could not be returned): what programs do with them (loop,
# list(), sum(), sorted()) sees the same items, unless the function has side effects that the
# loop over the results observes.


def map_one(function, *iterables):
    results = []
    for item in iterables[0]:
        results.append(function(item))
    return results


def map_two(function, *iterables):
    results = []
    for first, second in zip(iterables[0], iterables[1]):
        results.append(function(first, second))
    return results


def map_three(function, *iterables):
    results = []
    for first, second, third in zip(iterables[0], iterables[1], iterables[2]):
        results.append(function(first, second, third))
    return results


#: map's implementation by the number of iterables
MAP_BY_COUNT = {1: map_one, 2: map_two, 3: map_three}


def filter_by_function(function, iterable):
    kept = []
    for item in iterable:
        if function(item):
            kept.append(item)
    return kept


def reduce_without_initial(function, iterable):
    iterator = iter(iterable)
    for first in iterator:
        result = first
        for item in iterator:
            result = function(result, item)
        return result
    raise TypeError("reduce() of empty iterable with no initial value")


def reduce_from_initial(function, iterable, initial):
    result = initial
    for item in iterable:
        result = function(result, item)
    return result


#: Builtins whose function argument the inliner binds by inlining these; a dict chooses by
#: the number of positional arguments of the call.
BY_BUILTIN = {
    builtins.sorted: sorted_by_key,
    builtins.min: min_by_key,
    builtins.max: max_by_key,
    builtins.map: {count + 1: impl for count, impl in MAP_BY_COUNT.items()},
    builtins.filter: filter_by_function,
    functools.reduce: {2: reduce_without_initial, 3: reduce_from_initial},
}
#: The implementation taking a `default=` keyword, for those that can take one.
WITH_DEFAULT = {min_by_key: min_by_key_or_default, max_by_key: max_by_key_or_default}
#: Those that also take their items as arguments (`max(a, b, key=f)`): given as one tuple.
ITEMS_AS_ARGUMENTS = frozenset({min_by_key, max_by_key})
#: Methods likewise, by name: the receiver becomes the first argument.
BY_METHOD = {"sort": sort_by_key}
