"""np.argmax / np.argmin along an axis (the two-pass line search in arg_extremes.py)
equal NumPy's on C, Fortran and strided arrays, with ties, NaN and signed zeros."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from oracle import for_types

import ember


@ember.njit
def argmax_along(a, axis):
    return np.argmax(a, axis=axis)


@ember.njit
def argmin_along(a, axis):
    return np.argmin(a, axis=axis)


def check(a):
    argmax, argmin = for_types(argmax_along, a, 0), for_types(argmin_along, a, 0)
    for axis in range(-a.ndim, a.ndim):
        np.testing.assert_array_equal(argmax(a, axis), np.argmax(a, axis=axis))
        np.testing.assert_array_equal(argmin(a, axis), np.argmin(a, axis=axis))


float_items = st.sampled_from([0.0, -0.0, 1.5, -2.0, 3.0, np.nan, np.inf, -np.inf])


@settings(max_examples=15, deadline=None)
@given(
    hnp.arrays(
        np.float64, hnp.array_shapes(min_dims=2, max_dims=3, max_side=6), elements=float_items
    )
)
def test_float_lines_equal_numpy(a):
    check(a)
    check(np.asfortranarray(a))
    check(a[..., ::-1])


@settings(max_examples=15, deadline=None)
@given(
    hnp.arrays(
        np.int32, hnp.array_shapes(min_dims=2, max_dims=2, max_side=40), elements=st.integers(-3, 3)
    )
)
def test_integer_lines_equal_numpy(a):
    check(a)
    check(a[::2, ::-3])


@pytest.mark.parametrize("dtype", [np.float32, np.uint8, np.int64])
def test_long_rows(dtype):
    a = (np.random.default_rng(1).standard_normal((7, 301)) * 50).astype(dtype)
    check(a)
