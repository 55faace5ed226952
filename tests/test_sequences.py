"""sorted, reversed, min/max of arrays, `in` for ranges, range attributes, isinstance and
pow(a, b, m) against CPython running the same functions."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import njit
from tests.oracle import same


@njit
def _ordered(xs, a):
    return (sorted(xs), sorted(xs, reverse=True), sorted(a), list(reversed(xs)),
            [x for x in reversed(a)], max(a), min(a))  # fmt: skip


@njit
def _ranges(start, stop, step, x):
    r = range(start, stop, step)
    return x in r, list(reversed(r)), r.start, r.stop, r.step, len(r)


@njit
def _kinds(i, f, c, t, a):
    return (isinstance(i, int), isinstance(f, float), isinstance(f, int), isinstance(c, complex),
            isinstance(t, tuple), isinstance(a, np.ndarray), isinstance(i, (float, int)),
            isinstance(True, int), isinstance(a, list))  # fmt: skip


@njit
def _power(base, exp, mod):
    return pow(base, exp, mod)


def _python_values(result):
    return tuple(
        [v.item() if isinstance(v, np.generic) else v for v in part]
        if isinstance(part, list)
        else (part.item() if isinstance(part, np.generic) else part)
        for part in result
    )


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(allow_nan=False, width=64) | st.sampled_from([0.0, -0.0]), min_size=1,
                max_size=12))  # fmt: skip
def test_sorted_reversed_min_max(values):
    xs, a = list(values), np.array(values)
    assert same(_ordered(list(xs), a), _python_values(_ordered.py_func(list(xs), a)))


def test_min_max_follow_pythons_nan_rules():
    for values in ([1.0, math.nan, 3.0], [math.nan, 1.0], [2.0, -1.0]):
        a = np.array(values)
        assert same(_ordered(list(values), a)[5:], _python_values(_ordered.py_func(values, a))[5:])


def test_min_of_empty_array_raises():
    with pytest.raises(ValueError, match="empty sequence"):
        _ordered([1.0], np.array([], np.float64))


@settings(max_examples=100, deadline=None)
@given(st.integers(-20, 20), st.integers(-20, 20), st.integers(-5, 5).filter(bool),
       st.integers(-25, 25))  # fmt: skip
def test_ranges(start, stop, step, x):
    assert _ranges(start, stop, step, x) == _ranges.py_func(start, stop, step, x)


def test_isinstance_is_decided_at_compile_time():
    args = (3, 2.5, 1j, (1, 2), np.zeros(2))
    assert _kinds(*args) == _kinds.py_func(*args)


@settings(max_examples=100, deadline=None)
@given(st.integers(-(2**40), 2**40), st.integers(0, 200),
       st.integers(-(2**62), 2**62).filter(bool))  # fmt: skip
def test_three_argument_pow(base, exp, mod):
    assert _power(base, exp, mod) == pow(base, exp, mod)


def test_three_argument_pow_errors():
    with pytest.raises(ValueError, match="cannot be 0"):
        _power(2, 3, 0)
