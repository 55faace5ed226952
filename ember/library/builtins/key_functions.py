"""`sorted`, `min`, `max` and `list.sort` with a `key=` function, written as plain Python that
the inner-function inliner (ember/frontend/inline_closures.py) copies into the caller with the
key function bound: an inner function or lambda can only be called where it is inlined."""

from __future__ import annotations

import builtins


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


#: Builtins whose keyword function argument the inliner binds by inlining these.
BY_BUILTIN = {builtins.sorted: sorted_by_key, builtins.min: min_by_key, builtins.max: max_by_key}
#: Methods likewise, by name: the receiver becomes the first argument.
BY_METHOD = {"sort": sort_by_key}
