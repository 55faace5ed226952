"""An iterator made again in each turn of an outer loop (ember/lowering/iterators.py) keeps its
reference when it iterates the same array or list again, and exchanges it otherwise: results
equal CPython's and no block is leaked or freed early."""

import numpy as np
import pytest

import ember
from ember.typed import List


def horner(coeffs, x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        acc = 0.0
        for c in coeffs:
            acc = acc * x[i] + c
        out[i] = acc
    return out


def alternating(a, b, turns):
    """The iterator's array changes every turn (a, b, a, ...), then stays the same."""
    total = 0.0
    for k in range(turns):
        source = a if k % 2 == 0 or k > turns // 2 else b
        for v in source:
            total = total * 0.5 + v
    return total


def fresh_each_turn(n):
    """A new array per turn, iterated and dropped: each turn frees the previous one."""
    total = 0
    for k in range(n):
        for v in np.arange(k):
            total += v * k
    return total


def rows_of(m):
    """A 2-d array's rows (views holding references of their own)."""
    total = 0.0
    for _ in range(3):
        for row in m:
            for v in row:
                total += v
    return total


def list_twice(values, turns):
    total = 0
    for k in range(turns):
        for v in values:
            total += v * k
    return total


@pytest.mark.parametrize(
    "x", [np.array([]), np.array([0.5]), np.array([np.nan, np.inf, -np.inf, -2.0, 1e308])]
)
@pytest.mark.parametrize("coeffs", [np.array([]), np.array([3.0]), np.linspace(-1, 1, 9)])
def test_inner_array_iterator(x, coeffs):
    expected = horner(coeffs, x)
    np.testing.assert_array_equal(ember.njit(horner)(coeffs, x), expected)


@pytest.mark.parametrize("turns", [0, 1, 2, 7])
def test_iterated_array_changes_between_turns(turns):
    a, b = np.array([1.0, -2.0, np.inf]), np.array([0.25, np.nan])
    compiled = ember.njit(alternating)
    compiled(a, b, 1)  # (compiled before counting)
    before = ember.runtime.stats()
    got = compiled(a, b, turns)
    assert ember.runtime.stats().live == before.live
    np.testing.assert_equal(got, alternating(a, b, turns))


def test_fresh_array_per_turn_is_freed():
    compiled = ember.njit(fresh_each_turn)
    compiled(2)
    before = ember.runtime.stats()
    assert compiled(30) == fresh_each_turn(30)
    assert ember.runtime.stats().live == before.live


def test_rows_and_lists():
    m = np.arange(12.0).reshape(4, 3)
    assert ember.njit(rows_of)(m) == rows_of(m)
    values = List([3, -1, 2**40])
    assert ember.njit(list_twice)(values, 4) == list_twice(list(values), 4)


def tails(a):
    """A new view of the same array each turn (same block, other start and length)."""
    total = 0.0
    for k in range(a.shape[0] + 2):
        for v in a[k:]:
            total = total * 0.5 + v * k
    return total


@pytest.mark.parametrize("n", [0, 1, 9])
def test_views_of_one_array_per_turn(n):
    a = np.linspace(-1.0, 2.0, n)
    compiled = ember.njit(tails)
    compiled(np.ones(2))
    before = ember.runtime.stats()
    assert compiled(a) == tails(a)
    assert ember.runtime.stats().live == before.live
