"""Generator expressions in nopython mode (ember/frontend/genexpr.py) and the builtins that
consume any iterator (`sum min max any all list sorted next`, `for`): each compiled function
gives what CPython gives running the same source (`py_func`), and nothing leaks."""

from __future__ import annotations

import gc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ember.runtime
from ember import njit
from tests.oracle import same


def _sum(a, k):
    return sum(x * k for x in a)


def _max(a, k):
    return max(abs(x - k) for x in a)


def _min(a, k):
    return min(x + k for x in a if x > k)


def _any_all(a, k):
    return any(x > k for x in a), all(x > k for x in a)


def _list(a, k):
    return list(x - k for x in a)


def _sorted(a, k):
    return sorted(x * k for x in a)


def _nested(a, k):
    return sum(x * y for x in a for y in a if y > k)


def _enumerate_zip(a, k):
    return sum(i * x for i, x in enumerate(a)) + sum(x * y for x, y in zip(a, a[::-1]))


def _for_loop(a, k):
    total = 0.0
    for value in (x * x for x in a if x < k):
        total += value
    return total


def _next(a, k):
    return next(x for x in a if x > k)


def _chained(a, k):
    evens = (int(x) for x in a if int(x) % 2 == 0)
    return sum(v * v for v in evens)


def _range(a, k):
    n = len(a)
    return max(i * i % 7 for i in range(n)), min(range(n, 0, -1)) if n else 0


def _array_of(a, k):
    return np.array(list(x + k for x in a))


CONSUMERS = [_sum, _max, _min, _any_all, _list, _sorted, _nested, _enumerate_zip, _for_loop,
             _chained, _range, _array_of, _next]  # fmt: skip


COMPILED = {function: njit(function) for function in CONSUMERS}


def _outcome(function, *args):
    try:
        result = function(*args)
    except (ValueError, StopIteration) as error:
        return type(error).__name__
    return _plain(result)


def _compared(compiled, function, *args):
    mine, theirs = _outcome(compiled, *args), _outcome(function, *args)
    if isinstance(theirs, int) and isinstance(mine, float):  # sum() of nothing is int 0:
        theirs = float(theirs)  # compiled code keeps the items' type (as Numba does)
    return mine, theirs


def _plain(value):
    """Values as compiled code returns them: NumPy scalars as Python numbers."""
    if isinstance(value, np.ndarray):
        return ("array", value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    return value


@pytest.mark.parametrize("function", CONSUMERS, ids=lambda f: f.__name__)
def test_consumers_match_cpython(function):
    compiled = COMPILED[function]
    for a in (np.array([3.0, -1.0, 4.0, 1.5, -2.5]), np.arange(7.0), np.empty(0)):
        for k in (0.0, 1.0, -3.0, 10.0):
            mine, theirs = _compared(compiled, function, a, k)
            assert same(mine, theirs), (function.__name__, a, k, mine, theirs)


def test_next_of_an_exhausted_expression_raises_stop_iteration():
    compiled = COMPILED[_next]
    with pytest.raises(StopIteration):
        compiled(np.arange(3.0), 5.0)


def test_empty_min_and_max_raise_value_error_as_cpython():
    with pytest.raises(ValueError, match=r"min\(\) arg is an empty sequence"):
        COMPILED[_min](np.arange(3.0), 10.0)


@settings(max_examples=60, deadline=None)
@given(
    hnp.arrays(np.float64, st.integers(0, 12), elements=st.floats(-1e6, 1e6)),
    st.floats(-1e3, 1e3),
)
def test_hypothesis_arrays(a, k):
    for function in (_sum, _max, _nested, _for_loop, _list):
        compiled = COMPILED[function]
        assert same(*_compared(compiled, function, a, k)), function.__name__


def test_integers_and_captured_variables():
    @njit
    def weighted(n, step, offset):
        return sum(i * step + offset for i in range(0, n, step))

    for n in (0, 1, 10, 33):
        for step in (1, 3):
            assert weighted(n, step, -2) == weighted.py_func(n, step, -2)


def test_nothing_leaks():
    a = np.arange(5.0)
    for function in CONSUMERS:
        COMPILED[function](a, 1.0)
    gc.collect()
    before = ember.runtime.stats().live
    for _ in range(200):
        for function in CONSUMERS:
            COMPILED[function](a, 1.0)
    gc.collect()
    assert ember.runtime.stats().live == before
