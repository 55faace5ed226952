"""NumPy scalar classes and dtype objects passed as arguments (`f(n, np.float32)`)."""

import numpy as np
import pytest

from ember import njit


@njit
def zeros_of(n, dtype):
    return np.zeros(n, dtype=dtype)


@njit
def converted(x, dtype):
    return dtype(x)


@pytest.mark.parametrize(
    "dtype", [np.float32, np.float64, np.int16, np.uint8, np.complex128, np.dtype("f4")]
)
def test_dtype_argument_chooses_the_result_dtype(dtype):
    made = zeros_of(3, dtype)
    assert made.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(made, np.zeros(3, dtype=dtype))


def test_scalar_class_argument_converts():
    assert converted(3.7, np.int32) == 3
    assert converted(3.7, np.float64) == 3.7


@njit
def dtypes_of_results(a):
    return a.dtype, np.sin(a).dtype, (a // 2).dtype, (a / 2).dtype, a.astype(np.float32).dtype


@njit
def own_dtype(a):
    return a.dtype


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint16, np.float32, np.float64])
def test_a_returned_dtype_is_numpys_dtype_object(dtype):
    a = np.arange(3).astype(dtype)
    expected = (a.dtype, np.sin(a).dtype, (a // 2).dtype, (a / 2).dtype, np.dtype(np.float32))
    got = dtypes_of_results(a)
    assert got == expected
    assert all(isinstance(d, np.dtype) for d in got)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.complex64, np.complex128])
def test_an_arrays_own_dtype_comes_back(dtype):
    assert own_dtype(np.zeros(2, dtype)) == np.dtype(dtype)
