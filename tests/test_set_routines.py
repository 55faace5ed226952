"""np.union1d, np.intersect1d, np.setdiff1d and np.setxor1d in compiled code, checked against
NumPy on random and corner-case arrays (empty, NaN, mixed dtypes)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import njit


@njit
def all_four(a, b):
    return np.union1d(a, b), np.intersect1d(a, b), np.setdiff1d(a, b), np.setxor1d(a, b)


ROUTINES = [np.union1d, np.intersect1d, np.setdiff1d, np.setxor1d]


def _check(a, b):
    for got, numpy_routine in zip(all_four(a, b), ROUTINES):
        expected = numpy_routine(a, b)
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
