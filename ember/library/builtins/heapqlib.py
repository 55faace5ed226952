"""Python's `heapq` module in compiled code: heappush, heappop, heapify, heapreplace,
heappushpop, nsmallest and nlargest on lists, sifting as CPython's Lib/heapq.py does so that the
heap's order (and which of equal items comes out first) is the interpreter's."""

from __future__ import annotations

import heapq

from ember import types
from ember.errors import TypingError
from ember.extending import overload, register_jitable


def _check_heap(heap: types.Type, function: str) -> None:
    if not isinstance(heap, types.List):
        raise TypingError(
            f"heapq.{function}() takes a list as the heap (heap argument must be a list), "
            f"not {heap}"
        )
    if isinstance(heap.dtype, types.Complex):  # CPython's TypeError, found while typing
        raise TypingError(
            f"heapq.{function}(): '<' not supported between instances of 'complex' and 'complex'"
        )


def _check_item(heap: types.List, item: types.Type, function: str) -> None:
    """An item joins the heap's items: it must have (or convert to) their type."""
    from ember.typing.conversions import unify_pair

    if unify_pair(heap.dtype, types.unliteral(item)) != heap.dtype:
        raise TypingError(
            f"heapq.{function}(): an item of type {item} cannot join a heap of {heap.dtype} "
            "(heap type must be the same as item type)"
        )


@register_jitable
def _sift_down(heap, start, pos):
    """Move heap[pos] towards the root (index `start`) while it is smaller than its parent."""
    item = heap[pos]
    while pos > start:
        parent_pos = (pos - 1) >> 1
        parent = heap[parent_pos]
        if item < parent:
            heap[pos] = parent
            pos = parent_pos
            continue
        break
    heap[pos] = item


@register_jitable
def _sift_up(heap, pos):
    """Move the smaller child up until a leaf is free at heap[pos]'s path end, then place
    heap[pos]'s item there and sift it down (CPython's bottom-up variant)."""
    end = len(heap)
    start = pos
    item = heap[pos]
    child = 2 * pos + 1
    while child < end:
        right = child + 1
        if right < end and not heap[child] < heap[right]:
            child = right
        heap[pos] = heap[child]
        pos = child
        child = 2 * pos + 1
    heap[pos] = item
    _sift_down(heap, start, pos)


@overload(heapq.heappush)
def heappush(heap, item):
    _check_heap(heap, "heappush")
    _check_item(heap, item, "heappush")

    def impl(heap, item):
        heap.append(item)
        _sift_down(heap, 0, len(heap) - 1)

    return impl


@overload(heapq.heappop)
def heappop(heap):
    _check_heap(heap, "heappop")

    def impl(heap):
        last = heap.pop()  # IndexError on an empty heap, as in Python
        if len(heap) == 0:
            return last
        smallest = heap[0]
        heap[0] = last
        _sift_up(heap, 0)
        return smallest

    return impl


@overload(heapq.heapify)
def heapify(x):
    _check_heap(x, "heapify")

    def impl(x):
        for i in range(len(x) // 2 - 1, -1, -1):
            _sift_up(x, i)

    return impl


@overload(heapq.heapreplace)
def heapreplace(heap, item):
    _check_heap(heap, "heapreplace")
    _check_item(heap, item, "heapreplace")

    def impl(heap, item):
        if len(heap) == 0:
            raise IndexError("index out of range")
        smallest = heap[0]
        heap[0] = item
        _sift_up(heap, 0)
        return smallest

    return impl


@overload(heapq.heappushpop)
def heappushpop(heap, item):
    _check_heap(heap, "heappushpop")
    _check_item(heap, item, "heappushpop")

    def impl(heap, item):
        if len(heap) > 0 and heap[0] < item:
            smallest = heap[0]
            heap[0] = item
            _sift_up(heap, 0)
            return smallest
        return item

    return impl


def _check_selection(n: types.Type, iterable: types.Type, function: str) -> None:
    if not isinstance(types.unliteral(n), (types.Integer, types.Boolean)):  # True counts as 1
        raise TypingError(f"heapq.{function}(): First argument 'n' must be an integer, not {n}")
    if not isinstance(iterable, _SELECTABLE):
        raise TypingError(
            f"heapq.{function}() takes a list, an array, a tuple of one type, a set or a "
            f"range, not {iterable} (Second argument 'iterable' must be iterable)"
        )


_SELECTABLE = (types.List, types.Array, types.UniTuple, types.Set, types.RangeType)  # sorted()'s


@overload(heapq.nsmallest)
def nsmallest(n, iterable):
    """The n smallest items, smallest first: sorted(iterable)[:n], as Python documents."""
    _check_selection(n, iterable, "nsmallest")

    def impl(n, iterable):
        return sorted(iterable)[: max(n, 0)]

    return impl


@overload(heapq.nlargest)
def nlargest(n, iterable):
    """The n largest items, largest first: sorted(iterable, reverse=True)[:n]."""
    _check_selection(n, iterable, "nlargest")

    def impl(n, iterable):
        return sorted(iterable, reverse=True)[: max(n, 0)]

    return impl
