"""`ufunc.accumulate` and `ufunc.outer` in jitted code (an ember extension: Numba 0.68 refuses
both) give NumPy's values and dtypes, for NumPy's ufuncs and ember's @vectorize/DUFunc."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import njit, vectorize
from ember.errors import TypingError


@vectorize(["float64(float64, float64)", "int64(int64, int64)"])
def typed_add(a, b):
    return a + b


@vectorize
def lazy_max(a, b):
    return a if a > b else b


UFUNCS = [np.add, np.maximum, np.subtract, typed_add, lazy_max]


def accumulate_default(ufunc):
    return njit(lambda a: ufunc.accumulate(a))


def accumulate_axis(ufunc):
    return njit(lambda a, axis: ufunc.accumulate(a, axis=axis))


def outer(ufunc):
    return njit(lambda a, b: ufunc.outer(a, b))


def check_same(got, expected):
    assert got.dtype == expected.dtype
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("ufunc", UFUNCS, ids=lambda u: u.__name__)
@pytest.mark.parametrize("dtype", [np.int8, np.float64, np.bool_])
def test_accumulate_1d_matches_numpy(ufunc, dtype):
    if dtype is np.bool_ and ufunc is np.subtract:
        pytest.skip("NumPy refuses boolean subtract")
    a = np.array([3, 1, 4, 1, 5, 9, 2], dtype=dtype)
    if dtype is np.bool_ and ufunc is typed_add:  # no bool loop: NumPy casts to int64
        a = a.astype(np.int64)
    check_same(accumulate_default(ufunc)(a), ufunc.accumulate(a))
    check_same(accumulate_default(ufunc)(a[:0]), ufunc.accumulate(a[:0]))


@settings(max_examples=25, deadline=None)
@given(
    shape=st.lists(st.integers(0, 4), min_size=1, max_size=3),
    axis_seed=st.integers(-3, 2),
    seed=st.integers(0, 1000),
)
def test_accumulate_along_any_axis(shape, axis_seed, seed):
    a = np.random.default_rng(seed).integers(-50, 50, size=shape)
    axis = axis_seed % len(shape) - (len(shape) if axis_seed < 0 else 0)
    for ufunc in (np.add, lazy_max):
        check_same(accumulate_axis(ufunc)(a, axis), ufunc.accumulate(a, axis=axis))


def test_accumulate_dtype_and_errors():
    a = np.arange(6.0).reshape(2, 3) + 0.25
    got = njit(lambda x: np.add.accumulate(x, axis=1, dtype=np.float32))(a)
    expected = np.add.accumulate(a, axis=1, dtype=np.float32)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    with pytest.raises(ValueError, match="out of bounds"):
        accumulate_axis(np.add)(a, 2)
    with pytest.raises(ValueError, match="multiple axes"):
        njit(lambda x: np.add.accumulate(x, axis=None))(a)
    with pytest.raises(TypingError, match="two inputs and one output"):
        njit(lambda x: np.negative.accumulate(x))(a)


@pytest.mark.parametrize("ufunc", [np.add, typed_add, lazy_max], ids=lambda u: u.__name__)
@pytest.mark.parametrize(
    ("first", "second"),
    [
        (np.arange(4), np.arange(3) * 2),
        (np.arange(6.0).reshape(2, 3), np.array([0.5, -1.5])),
        (np.arange(3), 7),
        (2.5, np.arange(4.0).reshape(2, 2)),
        (np.array([True, False]), np.arange(3, dtype=np.int8)),
    ],
)
def test_outer_matches_numpy(ufunc, first, second):
    # jitted code compiles a DUFunc loop for exactly the input dtypes (Numba), where a Python
    # call may borrow an earlier loop by safe casting: NumPy's maximum is that exact loop
    reference = np.maximum if ufunc is lazy_max else ufunc
    check_same(outer(ufunc)(first, second), reference.outer(first, second))


@vectorize("float64(float64, int64)", identity=0)
def mixed_add(acc, x):
    return acc + x


@vectorize(["int64(int64, int64)", "float32(float32, float32)"])
def two_loop_add(a, b):
    return a + b


@pytest.mark.parametrize(
    ("ufunc", "dtype", "initial"),
    [
        (mixed_add, np.float64, None),
        (two_loop_add, np.float32, None),
        (two_loop_add, np.float32, 3),
    ],
)
def test_reduce_with_dtype_uses_numpys_loop(ufunc, dtype, initial):
    # NumPy folds in dtype with a (dtype, X) -> dtype loop, the elements cast to X
    reduce = njit(lambda a, axis: ufunc.reduce(a, axis=axis, dtype=dtype, initial=initial))
    for array in (np.arange(5), np.arange(40).reshape(5, 4, 2)):
        for axis in range(array.ndim):
            if initial is None:
                expected = ufunc.reduce(array, axis=axis, dtype=dtype)
            else:
                expected = ufunc.reduce(array, axis=axis, dtype=dtype, initial=initial)
            got = reduce(array, axis)
            if array.ndim > 1:  # a scalar result returns as a Python number (Numba)
                assert got.dtype == expected.dtype
            np.testing.assert_array_equal(got, expected)
