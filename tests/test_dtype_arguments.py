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
