"""Reductions and array methods against NumPy: sum, prod, min, max, mean, std, var, argmin,
argmax, cumsum, cumprod, all, any (whole array and along an axis, as methods and np.*
functions), reshape (with -1), ravel, flatten, transpose, astype, fill, sort, argsort."""

from __future__ import annotations

import numpy as np
import pytest
from oracle import for_types
from test_arrays_support import LAYOUTS, assert_same, live_allocations, sample

from ember import TypingError, njit


def close(got, expected):
    got_array, expected_array = np.asarray(got), np.asarray(expected)
    assert got_array.shape == expected_array.shape
    if isinstance(expected, np.ndarray):
        assert got_array.dtype == expected_array.dtype, (got_array.dtype, expected_array.dtype)
    single = expected_array.dtype in (np.float32, np.complex64)
    np.testing.assert_allclose(got_array, expected_array, rtol=1e-5 if single else 1e-12,
                               atol=1e-5 if single else 1e-12, equal_nan=True)  # fmt: skip


def _jit(fn):
    return njit(fn)


REDUCTIONS = {
    "sum": lambda a: a.sum(),
    "np.sum": lambda a: np.sum(a),
    "prod": lambda a: a.prod(),
    "min": lambda a: a.min(),
    "np.max": lambda a: np.max(a),
    "mean": lambda a: a.mean(),
    "np.mean": lambda a: np.mean(a),
    "var": lambda a: a.var(),
    "std": lambda a: np.std(a),
    "std_ddof": lambda a: a.std(ddof=1),
    "argmin": lambda a: a.argmin(),
    "np.argmax": lambda a: np.argmax(a),
    "all": lambda a: a.all(),
    "np.any": lambda a: np.any(a),
    "cumsum": lambda a: a.cumsum(),
    "np.cumprod": lambda a: np.cumprod(a),
}
_REDUCTIONS_JIT = {name: _jit(fn) for name, fn in REDUCTIONS.items()}
_NO_COMPLEX = {"min", "np.max", "argmin", "np.argmax"}


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.uint8, np.float32, np.float64,
                                   np.complex128])  # fmt: skip
@pytest.mark.parametrize("layout", ["C", "F", "N"])
def test_reductions_over_all_elements(name, dtype, layout):
    if dtype is np.complex128 and name in _NO_COMPLEX:
        pytest.skip("NumPy orders complex numbers; ember does not reduce them with min/max")
    a = sample(dtype, (3, 5), layout)
    if name in ("np.cumprod", "prod") and dtype is not np.bool_:
        a = (np.abs(a) % 3 + 1).astype(dtype)  # keep products small
    close(for_types(_REDUCTIONS_JIT[name], a)(a), REDUCTIONS[name](a))


AXIS_REDUCTIONS = {
    "sum": lambda a, axis: a.sum(axis=axis),
    "np.sum": lambda a, axis: np.sum(a, axis),
    "prod": lambda a, axis: np.prod(a, axis=axis),
    "max": lambda a, axis: a.max(axis=axis),
    "np.min": lambda a, axis: np.min(a, axis=axis),
    "mean": lambda a, axis: a.mean(axis=axis),
    "argmax": lambda a, axis: a.argmax(axis=axis),
    "np.argmin": lambda a, axis: np.argmin(a, axis=axis),
    "all": lambda a, axis: (a > 0).all(axis=axis),
    "any": lambda a, axis: np.any(a > 3, axis=axis),
}
_AXIS_JIT = {name: _jit(fn) for name, fn in AXIS_REDUCTIONS.items()}


@pytest.mark.parametrize("name", AXIS_REDUCTIONS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_reductions_along_an_axis(name, layout):
    a = sample(np.float64, (3, 4, 2), layout)
    with live_allocations():
        for axis in (0, 1, 2, -1):
            close(for_types(_AXIS_JIT[name], a, axis)(a, axis), AXIS_REDUCTIONS[name](a, axis))
    v = sample(np.int64, (5,), layout)
    close(for_types(_AXIS_JIT[name], v, 0)(v, 0), AXIS_REDUCTIONS[name](v, 0))


def test_axis_out_of_range_raises():
    with pytest.raises(np.exceptions.AxisError):
        _AXIS_JIT["sum"](np.zeros((2, 3)), 2)


def test_nan_propagation_and_empty_arrays():
    a = np.array([1.0, np.nan, -2.0])
    for name in ("min", "np.max", "sum", "mean"):
        close(_REDUCTIONS_JIT[name](a), REDUCTIONS[name](a))
    assert _REDUCTIONS_JIT["np.argmax"](a) == np.argmax(a)
    empty = np.zeros((0,))
    close(_REDUCTIONS_JIT["sum"](empty), 0.0)
    assert _REDUCTIONS_JIT["all"](empty) and not _REDUCTIONS_JIT["np.any"](empty)
    with pytest.raises(ValueError, match="zero-size"):
        _REDUCTIONS_JIT["min"](empty)
    with pytest.raises(ValueError, match="empty"):
        _REDUCTIONS_JIT["argmin"](empty)


def test_axis_reduction_of_a_vector_is_a_scalar():
    got = _AXIS_JIT["sum"](np.arange(4.0), 0)  # as NumPy (and Numba): not a 0-d array
    assert not isinstance(got, np.ndarray) and got == np.sum(np.arange(4.0), 0)


# ---------------------------------------------------------------------------- shape methods

SHAPES = {
    "reshape": lambda a: a.reshape(4, 3),
    "reshape_tuple": lambda a: a.reshape((2, -1)),
    "reshape_minus1": lambda a: a.reshape(-1, 2),
    "np.reshape": lambda a: np.reshape(a, (3, 2, 2)),
    "ravel": lambda a: a.ravel(),
    "np.ravel": lambda a: np.ravel(a),
    "flatten": lambda a: a.flatten(),
    "transpose": lambda a: a.transpose(),
    "transpose_axes": lambda a: a.transpose(1, 0),
    "np.transpose": lambda a: np.transpose(a, (1, 0)),
    "T": lambda a: a.T,
    "astype": lambda a: a.astype(np.int16),
    "astype_complex": lambda a: a.astype(np.complex64),
}
_SHAPES_JIT = {name: _jit(fn) for name, fn in SHAPES.items()}


@pytest.mark.parametrize("name", SHAPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_shape_methods(name, layout):
    a = sample(np.float64, (3, 4), layout)
    with live_allocations():
        assert_same(_SHAPES_JIT[name](a), SHAPES[name](a))


def test_reshape_of_contiguous_arrays_is_a_view():
    a = np.arange(12.0)
    view = _SHAPES_JIT["reshape"](a)
    assert np.shares_memory(view, a)
    strided = np.arange(24.0)[::2]
    copy = _SHAPES_JIT["reshape"](strided)
    assert not np.shares_memory(copy, strided)
    assert_same(copy, strided.reshape(4, 3))


def test_reshape_errors():
    with pytest.raises(ValueError, match="reshape"):
        _SHAPES_JIT["reshape"](np.arange(10.0))
    with pytest.raises(ValueError, match="unknown"):
        njit(lambda a: a.reshape(-1, -1))(np.arange(4.0))


@njit
def fill(a, value):
    a.fill(value)
    return a


def test_fill():
    a = sample(np.int32, (3, 4), "F")
    expected = a.copy()
    expected.fill(7)
    assert_same(fill(a, 7.9), expected)


# ---------------------------------------------------------------------------- sorting


@njit
def sort_in_place(a):
    a.sort()
    return a


@njit
def np_sort(a):
    return np.sort(a)


@njit
def np_sort_flat(a):
    return np.sort(a, axis=None)


@njit
def argsort(a):
    return np.argsort(a)


@njit
def method_argsort(a):
    return a.argsort()


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.uint8, np.float32])
@pytest.mark.parametrize("n", [0, 1, 5, 17, 100, 1000])
def test_sorting_matches_numpy(dtype, n):
    rng = np.random.default_rng(n)
    values = rng.permutation(n).astype(dtype)
    assert_same(np_sort(values), np.sort(values))
    copy = values.copy()
    assert_same(sort_in_place(copy), np.sort(values))
    if len(np.unique(values)) == n:  # distinct: argsort has one right answer
        assert_same(argsort(values), np.argsort(values))
        assert_same(method_argsort(values[::-1]), np.argsort(values[::-1]))
    else:  # uint8 wraps around: any order that sorts, stably
        order = argsort(values)
        assert_same(values[order], np.sort(values))
        assert_same(order, np.argsort(values, kind="stable"))


def test_sorting_with_duplicates_nans_and_rows():
    rng = np.random.default_rng(7)
    values = rng.integers(0, 5, 200).astype(np.float64)
    values[::17] = np.nan
    assert_same(np_sort(values), np.sort(values))
    order = argsort(values)
    assert_same(values[order], np.sort(values))  # a valid (stable) order
    matrix = rng.standard_normal((4, 9))
    assert_same(np_sort(matrix), np.sort(matrix))
    assert_same(np_sort_flat(matrix), np.sort(matrix, axis=None))
    assert_same(sort_in_place(np.asfortranarray(matrix)), np.sort(matrix))


def test_sort_of_readonly_array_is_a_typing_error():
    a = np.arange(3.0)
    a.flags.writeable = False
    with pytest.raises(TypingError, match="read-only"):
        sort_in_place(a)


_AXIS_REDUCTIONS = [
    lambda a, axis: a.sum(axis=axis),
    lambda a, axis: a.prod(axis=axis),
    lambda a, axis: a.max(axis=axis),
    lambda a, axis: np.min(a, axis=axis),
    lambda a, axis: np.argmax(a, axis=axis),
    lambda a, axis: a.argmin(axis=axis),
    lambda a, axis: a.mean(axis=axis),
    lambda a, axis: np.all(a > 0, axis=axis),
]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("axis", [0, 1, 2, -1])
@pytest.mark.parametrize("func", _AXIS_REDUCTIONS)
def test_axis_reductions_of_3d_arrays_in_every_layout(func, axis, layout):
    """Whichever loop runs (a fold along a fast axis, or rows streamed into accumulators for a
    slow one), each output element folds its items in order: NumPy's values, NaN included."""
    values = sample(np.float64, (4, 5, 6), layout, seed=axis + 7)
    values[1, 2, 3] = np.nan
    expected = func(values, axis)
    got = njit(func)(values, axis)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-13)


def test_streamed_axis_reductions_release_their_accumulators():
    column_means = njit(lambda a: a.mean(axis=0))
    values = sample(np.float64, (30, 20))
    column_means(values)
    with live_allocations():
        for _ in range(1000):
            np.testing.assert_allclose(column_means(values), values.mean(axis=0), rtol=1e-13)
