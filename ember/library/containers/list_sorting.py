"""Ordering lists in compiled code: `list.sort` (a stable merge sort, also sorted()'s), and
`min`/`max` of a list."""

from __future__ import annotations

import operator

from ember import types
from ember.extending import intrinsic, overload, overload_method
from ember.library.builtins import key_functions
from ember.library.containers.list_primitives import _check_mutable, _is_list, _load
from ember.lowering import arrays as refs
from ember.lowering import lists as primitives
from ember.typing.overload import register_jitable
from ember.typing.signature import signature


def _extreme(xs, better_than):
    if not (_is_list(xs) and _sortable(xs.dtype)):  # numbers, strings, tuples of those
        return None
    name = "min" if better_than is operator.lt else "max"
    message = f"{name}() arg is an empty sequence"

    def extreme(xs):
        if len(xs) == 0:
            raise ValueError(message)
        best = _load(xs, 0)
        for index in range(1, len(xs)):
            item = _load(xs, index)
            if better_than(item, best):
                best = item
        return best

    return extreme


@overload(min)
def list_min(xs):
    return _extreme(xs, operator.lt)


@overload(max)
def list_max(xs):
    return _extreme(xs, operator.gt)


def _sortable(item: types.Type) -> bool:
    """Items `<` orders: numbers, booleans, datetimes, strings, and tuples and lists of those
    (compared item by item, as CPython)."""
    if isinstance(item, types.BaseTuple):
        return all(_sortable(member) for member in item)
    if isinstance(item, types.List):
        return _sortable(item.dtype)
    scalars = (types.Number, types.Boolean, types.NPDatetime, types.NPTimedelta, types.UnicodeType)
    return isinstance(item, scalars)


@overload_method(types.List, "sort")
def list_sort(xs, key=None, reverse=False):
    if not _is_list(xs):
        return None
    if not (key is None or isinstance(key, types.NoneType)):
        return key_functions.sort_by_key  # a jitted or builtin key function
    if _sortable(xs.dtype):
        return _sort_maybe_reversed
    return None


def _sort_maybe_reversed(xs, key=None, reverse=False):
    _check_mutable(xs)
    if reverse:  # a stable descending order: equal items keep their order
        xs.reverse()
        _stable_sort(xs)
        xs.reverse()
    else:
        _stable_sort(xs)


_RUN = 16  # items per insertion-sorted run before the merges


@intrinsic
def _store_raw(typingctx, xs, index, item):
    """Store `item` at `index` (below the length) counting no reference: a sort only moves
    items, so the count of each stays as it is once every one is back in place once."""

    def codegen(context, builder, sig, args):
        pointer = primitives.item_pointer(context, builder, sig.args[0], args[0], args[1])
        refs.store_value(builder, sig.args[0].dtype, args[2], pointer)
        return context.get_dummy_value(types.none)

    return signature(types.none, xs, types.int64, xs.dtype), codegen


@intrinsic
def _raw_twin(typingctx, xs):
    """A new list of the items of `xs` (not empty) whose references it does not count: a
    sort's scratch space, to be emptied by `_forget` before it dies."""

    def codegen(context, builder, sig, args):
        list_type = sig.args[0]
        count = primitives.length(builder, args[0])
        twin = primitives.allocate(context, builder, list_type, count)
        primitives.move_items_between(context, builder, list_type, args[0], twin, count)
        primitives.set_length(builder, twin, count)
        return twin

    return signature(xs, xs), codegen


@intrinsic
def _forget(typingctx, xs):
    """Empty `xs` without releasing its items (a `_raw_twin`)."""

    def codegen(context, builder, sig, args):
        primitives.set_length(builder, args[0], refs.const(0))
        return context.get_dummy_value(types.none)

    return signature(types.none, xs), codegen


@register_jitable
def _stable_sort(xs):
    """Stable, like Python's: insertion-sorted runs, then bottom-up merges through a scratch
    list; only `<` compares, and an item moves before an equal one never. Items move without
    counting references (nothing `<` does on sortable items raises midway)."""
    n = len(xs)
    for low in range(0, n, _RUN):
        high = min(low + _RUN, n)
        for i in range(low + 1, high):
            item = _load(xs, i)
            j = i - 1
            while j >= low and item < _load(xs, j):
                _store_raw(xs, j + 1, _load(xs, j))
                j -= 1
            _store_raw(xs, j + 1, item)
    if n <= _RUN:
        return
    source = xs
    target = _raw_twin(xs)
    scratch = target
    in_place = True
    width = _RUN
    while width < n:
        for low in range(0, n, 2 * width):
            middle = min(low + width, n)
            high = min(low + 2 * width, n)
            i, j, k = low, middle, low
            # while both runs last, a select rather than a branch on the data (which
            # mispredicts on unordered items); the left item wins ties: stable
            while i < middle and j < high:
                left = _load(source, i)
                right = _load(source, j)
                take_right = right < left
                _store_raw(target, k, right if take_right else left)
                j += take_right
                i += 1 - take_right
                k += 1
            while i < middle:
                _store_raw(target, k, _load(source, i))
                i += 1
                k += 1
            while j < high:
                _store_raw(target, k, _load(source, j))
                j += 1
                k += 1
        source, target = target, source
        in_place = not in_place
        width *= 2
    if not in_place:
        for k in range(n):
            _store_raw(xs, k, _load(source, k))
    _forget(scratch)
