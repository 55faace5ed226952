"""List comprehensions in compiled code: filters, nesting, closures over enclosing variables,
arrays and tuples, against CPython running the same function; memory released."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import njit
from ember.runtime import stats


@njit
def _squares(n, k):
    evens = [i * k for i in range(n) if i % 2 == 0]
    pairs = [(i, j) for i in range(n) for j in range(i) if (i + j) % 3]
    nested = [[j - i for j in range(i)] for i in range(n)]
    return evens, pairs, nested


@njit
def _over_arrays(a, scale):
    exps = [math.exp(x) for x in a]
    scaled = np.array([x * scale for x in a if x > 0])
    rows = [row.sum() for row in a.reshape((-1, 1))]
    return exps, scaled, rows


@njit
def _reads_enclosing(a, shift):
    offset = shift * 2
    shifted = [a[i] + offset for i in range(a.shape[0])]
    offset = -1.0  # the comprehension ran already: CPython's order of effects
    return shifted, offset


def test_filters_nesting_and_tuples():
    for n, k in [(0, 1), (1, 3), (7, 3), (12, -2)]:
        assert _squares(n, k) == _squares.py_func(n, k)


def test_over_arrays_and_enclosing_variables():
    a = np.array([-1.0, 0.5, 2.0, 3.5])
    exps, scaled, rows = _over_arrays(a, 2.0)
    expected = _over_arrays.py_func(a, 2.0)
    assert exps == expected[0]
    np.testing.assert_array_equal(scaled, expected[1])
    assert rows == [float(r) for r in expected[2]]
    assert _reads_enclosing(a, 1.5) == tuple(_reads_enclosing.py_func(a, 1.5))


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 30), st.integers(-1000, 1000))
def test_hypothesis_comprehensions(n, k):
    assert _squares(n, k) == _squares.py_func(n, k)


def test_comprehensions_release_their_lists():
    a = np.linspace(-1, 1, 16)
    _over_arrays(a, 2.0)
    _squares(10, 3)
    before = stats()
    for _ in range(200):
        _over_arrays(a, 2.0)
        _squares(10, 3)
    after = stats()
    assert after.alloc - before.alloc == after.free - before.free


@njit
def _built_by_comprehension(n):
    values = [((i * 37) % 101) * 1.0 for i in range(n)]
    return len(values), sum(values)


def test_comprehension_loop_does_no_reference_counting():
    """The list sits on the stack through the loop; its copy for the loop's exit is made on
    that edge, not on every iteration (an atomic increment and decrement each)."""
    for n in (0, 1, 5, 1000):
        assert _built_by_comprehension(n) == _built_by_comprehension.py_func(n)
    llvm_ir = "\n".join(_built_by_comprehension.inspect_llvm().values())
    function = llvm_ir[: llvm_ir.index("define", llvm_ir.index("define") + 1)]  # (not helpers)
    assert "NRT_incref" not in function
