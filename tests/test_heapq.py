"""`heapq` in compiled code: every function against CPython's heapq on the same lists (the
heap's layout, not only what pops out, must match: stability among equal keys depends on it)."""

from __future__ import annotations

import heapq

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import njit
from ember.errors import TypingError

_floats = st.lists(st.floats(-100, 100, allow_nan=False), min_size=1, max_size=30)


def _push_all_then_pop_half(items):
    heap = [items[0]]
    for item in items[1:]:
        heapq.heappush(heap, item)
    popped = [heapq.heappop(heap) for _ in range(len(items) // 2)]
    return heap, popped


def _heapify_replace_pushpop(items, extra):
    heap = list(items)
    heapq.heapify(heap)
    replaced = heapq.heapreplace(heap, extra)
    kept = heapq.heappushpop(heap, extra - 1.0)
    return heap, replaced, kept


_compiled_push_pop = njit(_push_all_then_pop_half)
_compiled_heapify = njit(_heapify_replace_pushpop)


@settings(max_examples=25, deadline=None)
@given(_floats)
def test_push_and_pop_leave_cpythons_heap(items):
    heap, popped = _compiled_push_pop(items)
    assert (list(heap), list(popped)) == _push_all_then_pop_half(items)


@settings(max_examples=25, deadline=None)
@given(_floats, st.floats(-100, 100, allow_nan=False))
def test_heapify_replace_and_pushpop_match_cpython(items, extra):
    heap, replaced, kept = _compiled_heapify(items, extra)
    expected_heap, expected_replaced, expected_kept = _heapify_replace_pushpop(items, extra)
    assert (list(heap), replaced, kept) == (expected_heap, expected_replaced, expected_kept)


def _dijkstra_order(targets, weights):
    heap = [(0.0, 0)]
    order = []
    while len(heap) > 0:
        cost, node = heapq.heappop(heap)
        order.append((cost, node))
        for target, weight in zip(targets, weights):
            if target > node and len(order) < 20:
                heapq.heappush(heap, (cost + weight, target))
    return order


def test_heap_of_tuples_pops_in_cpythons_order():
    targets, weights = [1, 2, 3, 2], [2.0, 1.0, 2.0, 0.5]
    assert njit(_dijkstra_order)(targets, weights) == _dijkstra_order(targets, weights)


@njit
def _select(n, values):
    return heapq.nsmallest(n, values), heapq.nlargest(n, values)


def test_nsmallest_and_nlargest_match_cpython():
    values = [4.0, 1.0, 3.0, 1.0, 9.0, -2.0]
    for n in (0, 2, 5, 9):
        smallest, largest = _select(n, values)
        assert list(smallest) == heapq.nsmallest(n, values)
        assert list(largest) == heapq.nlargest(n, values)
        array_smallest, array_largest = _select(n, np.array(values))
        assert list(array_smallest) == heapq.nsmallest(n, values)
        assert list(array_largest) == heapq.nlargest(n, values)


def test_popping_an_empty_heap_is_an_index_error():
    @njit
    def pop_two(heap):
        heapq.heappop(heap)
        return heapq.heappop(heap)

    with pytest.raises(IndexError):
        pop_two([1])


def test_heap_misuse_is_a_typing_error():
    @njit
    def push_string(heap):
        heapq.heappush(heap, "text")

    with pytest.raises(TypingError, match="heapq.heappush"):
        push_string([1.0])

    @njit
    def pop_array(a):
        return heapq.heappop(a)

    with pytest.raises(TypingError, match="takes a list"):
        pop_array(np.ones(3))
