"""np.union1d, np.intersect1d, np.setdiff1d and np.setxor1d in compiled code, checked against
NumPy on random and corner-case arrays (empty, NaN, mixed dtypes)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import njit


@njit
def union(a, b):
    return np.union1d(a, b)


@njit
def intersection(a, b):
    return np.intersect1d(a, b)


@njit
def difference(a, b):
    return np.setdiff1d(a, b)


@njit
def symmetric_difference(a, b):
    return np.setxor1d(a, b)


ROUTINES = [
    (union, np.union1d),
    (intersection, np.intersect1d),
    (difference, np.setdiff1d),
    (symmetric_difference, np.setxor1d),
]


def _check(a, b):
    for compiled, numpy_routine in ROUTINES:
        got, expected = compiled(a, b), numpy_routine(a, b)
        assert got.dtype == expected.dtype, numpy_routine.__name__
        np.testing.assert_array_equal(got, expected, err_msg=numpy_routine.__name__)


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.integers(-5, 5), max_size=12),
    st.lists(st.integers(-5, 5), max_size=12),
)
def test_integer_sets_match_numpy(a, b):
    _check(np.array(a, np.int64), np.array(b, np.int64))


@pytest.mark.parametrize(
    "a, b",
    [
        (np.array([], np.int64), np.array([1, 1])),
        (np.array([1.0, np.nan, 2.0, np.nan]), np.array([np.nan, 2.0, 3.0])),
        (np.array([1, 2], np.int32), np.array([2.5, 1.0])),
    ],
    ids=["empty", "nan", "mixed"],
)
def test_corner_cases_match_numpy(a, b):
    _check(a, b)
