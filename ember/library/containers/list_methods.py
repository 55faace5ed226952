"""List methods in compiled code: append, extend, insert, pop, clear, copy, reverse, index,
remove, count, and `item in xs`."""

from __future__ import annotations

import operator

from ember import types
from ember.errors import TypingError
from ember.extending import overload, overload_method
from ember.library.builtins.enumerate_zip import iterator_of
from ember.library.containers.hashtables import carried_by_exceptions
from ember.library.containers.list_primitives import (
    _check_mutable,
    _fits,
    _index,
    _is_list,
    _length,
    _load,
    _move,
    _refuse_bad_index,
    _release,
    _reserve,
    _set_length,
    _shrink_to,
    _store_new,
    _take,
)
from ember.typing.conversions import can_convert
from ember.typing.overload import register_jitable

# ---------------------------------------------------------------------------- growing and shrinking


@overload_method(types.List, "append")
def list_append(xs, item):
    if not _is_list(xs):
        return None
    call = f"Invalid use of BoundFunction(list.append for {xs}) with ({types.unliteral(item)}): "
    if _fits(xs, item, call):

        def append(xs, item):
            _check_mutable(xs)
            n = _length(xs)
            _reserve(xs, n + 1)
            _store_new(xs, n, item)
            _set_length(xs, n + 1)

        return append


@overload_method(types.List, "extend")
def list_extend(xs, other):
    if _is_list(xs) and iterator_of(other) is None:
        raise TypingError(f"extend argument must be iterable, not {types.unliteral(other)}")
    if _is_list(xs) and iterator_of(other) is not None:
        if not _fits(xs, iterator_of(other).yield_type):
            return None

        def extend(xs, other):
            _check_mutable(xs)
            for item in other:
                xs.append(item)

        def extend_from_list(xs, other):
            _check_mutable(xs)
            count = _length(other)  # once: `xs.extend(xs)` doubles xs, as in Python
            _reserve(xs, _length(xs) + count)
            for index in range(count):
                xs.append(_load(other, index))

        return extend_from_list if _is_list(other) else extend


@overload_method(types.List, "insert")
def list_insert(xs, index, item):
    if _is_list(xs):
        _refuse_bad_index(index, "list insert indices must be integers")
    if _is_list(xs) and _index(index) and _fits(xs, item):

        def insert(xs, index, item):
            _check_mutable(xs)
            n = _length(xs)
            if index < 0:
                index = max(index + n, 0)
            index = min(index, n)
            _reserve(xs, n + 1)
            _move(xs, index, index + 1, n - index)
            _store_new(xs, index, item)
            _set_length(xs, n + 1)

        return insert


@overload_method(types.List, "pop")
def list_pop(xs, index=None):
    if _is_list(xs) and index is not None:
        _refuse_bad_index(index, "argument for pop must be an integer")
    if _is_list(xs) and (index is None or _index(index)):

        def pop(xs, index=-1):
            _check_mutable(xs)
            n = _length(xs)
            if n == 0:
                raise IndexError("pop from empty list")
            if index < 0:
                index += n
            if index < 0 or index >= n:
                raise IndexError("pop index out of range")
            item = _take(xs, index)
            _move(xs, index + 1, index, n - index - 1)
            _shrink_to(xs, n - 1)
            return item

        return pop


@overload_method(types.List, "clear")
def list_clear(xs):
    if _is_list(xs):

        def clear(xs):
            _check_mutable(xs)
            for index in range(_length(xs)):
                _release(xs, index)
            _shrink_to(xs, 0)

        return clear


@overload_method(types.List, "copy")
def list_copy(xs):
    if _is_list(xs):
        return lambda xs: xs[:]


@overload_method(types.List, "reverse")
def list_reverse(xs):
    if _is_list(xs):

        def reverse(xs):
            _check_mutable(xs)
            low = 0
            high = _length(xs) - 1
            while low < high:
                first = _take(xs, low)
                last = _take(xs, high)
                _store_new(xs, low, last)  # the variables' references go when they do
                _store_new(xs, high, first)
                low += 1
                high -= 1

        return reverse


# ---------------------------------------------------------------------------- searching


@overload(operator.contains)
def list_contains(xs, item):
    if _is_list(xs) and can_convert(types.unliteral(item), xs.dtype) is not None:

        def contains(xs, item):
            for candidate in xs:
                if candidate == item:
                    return True
            return False

        return contains


_MAX_INDEX = (1 << 63) - 1


@overload_method(types.List, "index")
def list_index(xs, item, start=0, end=_MAX_INDEX):
    """(CPython's list.index takes no keywords; Numba's typed list names its bounds `start`
    and `end` in compiled code.)"""
    if not _is_list(xs):
        return None
    for name, bound in (("start", start), ("end", end)):
        if not _is_int(bound):  # Numba's words, for its typed and its reflected lists
            if isinstance(xs, types.ListType):
                raise TypingError(f"{name} argument for index must be an integer")
            reflected_name = "stop" if name == "end" else name
            raise TypingError(f'arg "{reflected_name}" must be an Integer.')

    def index(xs, item, start=0, end=_MAX_INDEX):
        length = _length(xs)
        for position in range(_clamp_index(start, length), _clamp_index(end, length)):
            if _load(xs, position) == item:
                return position
        not_in_list(item)
        return -1  # (not reached)

    return index


class NotInList(ValueError):
    """Made by compiled code that raises it with the item: CPython 3.11's
    `ValueError("3 is not in list")` (a plain ValueError, with the item's repr)."""

    def __new__(cls, item):
        return ValueError(f"{item!r} is not in list")


def not_in_list(item):
    raise NotInList(item)


@overload(not_in_list)
def _not_in_list_overload(item):
    if carried_by_exceptions(item):
        return not_in_list

    def raise_without_item(item):
        raise ValueError("list.index(x): x not in list")

    return raise_without_item


def _is_int(typ) -> bool:
    return isinstance(typ, int) or isinstance(types.unliteral(typ), (types.Integer, types.Boolean))


@register_jitable
def _clamp_index(position, length):
    """A start or stop of list.index as CPython clamps it: negative from the end, into
    [0, length]."""
    if position < 0:
        return max(position + length, 0)
    return min(position, length)


@overload_method(types.List, "remove")
def list_remove(xs, item):
    if _is_list(xs):

        def remove(xs, item):
            for position in range(_length(xs)):
                if _load(xs, position) == item:
                    xs.pop(position)  # the popped item's reference is released here
                    return
            raise ValueError("list.remove(x): x not in list")

        return remove


@overload_method(types.List, "count")
def list_count(xs, item):
    if _is_list(xs):

        def count(xs, item):
            found = 0
            for candidate in xs:
                if candidate == item:
                    found += 1
            return found

        return count
