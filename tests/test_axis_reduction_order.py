"""Axis reductions of F-ordered arrays (ember/library/numpy/reductions.py) read their items in
memory order, and give NumPy's results for every axis and layout, NaNs included."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ember


@ember.njit
def sums(a, axis):
    return a.sum(axis=axis)


@ember.njit
def maxima(a, axis):
    return np.max(a, axis=axis)


@ember.njit
def means(a, axis):
    return a.mean(axis=axis)


@ember.njit
def fortran_row_sums(m):
    return np.asfortranarray(m).sum(axis=1)


LAYOUTS = {
    "C": lambda a: np.ascontiguousarray(a),
    "F": lambda a: np.asfortranarray(a),
    "strided": lambda a: a[..., ::-1],
}
elements = st.one_of(
    st.floats(-1e6, 1e6, allow_subnormal=False), st.sampled_from([np.nan, np.inf, -np.inf])
)


@settings(max_examples=25, deadline=None)
@given(
    hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=2, max_dims=3, min_side=1, max_side=5),
        elements=elements,
    ),  # fmt: skip
    st.sampled_from(sorted(LAYOUTS)),
    st.data(),
)
def test_same_as_numpy_for_every_axis_and_layout(values, layout, data):
    a = LAYOUTS[layout](values)
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    with np.errstate(invalid="ignore"):
        expected = [a.sum(axis=axis), np.max(a, axis=axis), a.mean(axis=axis)]
    got = [sums(a, axis), maxima(a, axis), means(a, axis)]
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("shape", [(1, 1), (3, 1), (1, 4), (7, 5), (64, 33)])
def test_fortran_row_sums_as_numpy(shape):
    m = np.arange(np.prod(shape), dtype=np.float64).reshape(shape) * 0.5 - 3.0
    np.testing.assert_array_equal(fortran_row_sums(m), np.asfortranarray(m).sum(axis=1))


def test_fortran_rows_add_in_order():
    """Each row's items are added left to right, as one sequential fold does: 1e16 + 1 + 1
    rounds to 1e16 twice, where a pairwise sum (1 + 1 first) would give 1e16 + 2."""
    m = np.asfortranarray(np.array([[1e16, 1.0, 1.0], [1.0, 1.0, 1e16]]))
    assert sums(m, 1).tolist() == [1e16 + 1.0 + 1.0, 1.0 + 1.0 + 1e16]
