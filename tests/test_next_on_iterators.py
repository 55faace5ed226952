"""`next(it)`, `next(it, default)` and `iter(it)` on the iterators of ranges, arrays, lists,
strings, tuples, dicts, enumerate and zip, checked against CPython running the same code."""

import numpy as np
import pytest

import ember
from ember import njit


def first_two_then_default(n):
    it = iter(range(n))
    a = next(it, -1)
    b = next(it, -1)
    return a, b, next(it, -1)


def head_and_rest(values):
    it = iter(values)
    first = next(it)
    rest = 0
    for x in it:
        rest += x
    return first, rest


def characters(s):
    it = iter(s)
    return next(it), next(it, "z"), next(it, "z")


def paired(a, b):
    pairs = zip(a, b)
    first = next(pairs)
    counted = enumerate(b)
    next(counted)
    return first, next(pairs), next(counted)


def dict_heads():
    d = {1: 2.0, 3: 4.0}
    return next(iter(d)), next(iter(d.values())), next(iter(d.items()))


def tuple_digits(t):
    it = iter(t)
    return next(it) * 10 + next(it)


def rows(m):
    it = iter(m)
    top = next(it)
    return top.sum(), next(it)[0]


def two_items(a):
    it = iter(a)
    return next(it) + next(it)


@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_ranges_with_defaults(n):
    assert njit(first_two_then_default)(n) == first_two_then_default(n)


def test_each_kind_of_iterator():
    assert njit(head_and_rest)([4, 5, 6]) == head_and_rest([4, 5, 6])
    assert njit(head_and_rest)(np.arange(5.0)) == head_and_rest(np.arange(5.0))
    assert njit(characters)("ab") == characters("ab")
    a, b = np.arange(3), np.arange(3.0) + 0.5
    assert njit(paired)(a, b) == paired(a, b)
    assert njit(dict_heads)() == dict_heads()
    assert njit(tuple_digits)((1, 2, 3)) == tuple_digits((1, 2, 3))
    m = np.arange(6.0).reshape(3, 2)
    assert njit(rows)(m) == rows(m)


def test_an_exhausted_iterator_raises_stop_iteration():
    compiled = njit(two_items)
    assert compiled(np.array([1.5, 2.5])) == 4.0
    with pytest.raises(StopIteration):
        compiled(np.array([1.0]))
    with pytest.raises(StopIteration):
        njit(head_and_rest)(np.zeros(0))


def past_the_end(values):
    it = iter(values)
    return [next(it, -1) for _ in range(4)]


def past_the_end_of_range(start, stop, step):
    it = iter(range(start, stop, step))
    return [next(it, -1) for _ in range(4)]


def test_an_exhausted_iterator_stays_exhausted():
    compiled = njit(past_the_end)
    for values in (np.arange(2), [7], np.arange(4).reshape(2, 2)[0]):
        assert compiled(values) == past_the_end(values), values
    ranges = njit(past_the_end_of_range)
    for bounds in ((0, 2, 1), (5, -1, -3), (0, 0, 1), (3, 1, 1)):
        assert ranges(*bounds) == past_the_end_of_range(*bounds), bounds


@njit
def first_array(arrays):
    return next(iter(arrays)).sum()


def test_items_taken_by_next_are_released():
    arrays = ember.typed.List([np.ones(3), np.ones(2)])
    first_array(arrays)
    before = ember.runtime.stats().live
    for _ in range(20):
        assert first_array(arrays) == 3.0
    assert ember.runtime.stats().live == before
