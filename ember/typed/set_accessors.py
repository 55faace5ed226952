"""What Python uses to work on a native set held by an `ember.typed.Set`: direct reads of its
header and entries (ember/typed/accessors.py) and, per set type, accessors compiled once that
take the set as its meminfo address (the dispatcher's fast native entry)."""

from __future__ import annotations

import functools

from ember import types
from ember.typed.accessors import size  # noqa: F401  (the length, read from the header)


def set_at(address, set_type_ref):
    """The native set whose meminfo is at `address` (an int), borrowed from the Python
    `typed.Set` that the caller keeps alive during the call."""
    raise NotImplementedError("runs only in compiled code (library/containers/typed_sets.py)")


def set_address(items):
    """The meminfo address of a set, with one new reference for the Python caller."""
    raise NotImplementedError("runs only in compiled code (library/containers/typed_sets.py)")


class Accessors:
    """The operations Python runs on sets of one type, compiled once."""

    def __init__(self, set_type: types.SetType) -> None:
        from ember.decorators import njit
        from ember.typed.typedset import Set

        typ = set_type  # constants of the functions below
        item = set_type.dtype
        plain = types.Set(item)  # a set made from Python items in bulk (update_from)

        def add(address, value):
            set_at(address, typ).add(value)

        def discard(address, value):
            set_at(address, typ).discard(value)

        def contains(address, value):
            return value in set_at(address, typ)

        def pop(address):
            return set_at(address, typ).pop()

        def clear(address):
            set_at(address, typ).clear()

        def update_from(address, other):
            set_at(address, typ).update(set_at(other, plain))

        def new():
            return set_address(Set.empty(item))

        self.add = njit(add)
        self.discard = njit(discard)
        self.contains = njit(contains)
        self.pop = njit(pop)
        self.clear = njit(clear)
        self.update_from = njit(update_from)
        self.new = njit(new)


@functools.cache
def for_type(set_type: types.SetType) -> Accessors:
    return Accessors(set_type)
