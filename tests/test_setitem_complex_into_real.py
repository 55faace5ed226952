"""Storing a complex number into a real array is a typing error naming the fix (as in Numba;
NumPy drops the imaginary part with a ComplexWarning), not an internal lowering error; complex
arrays take it."""

import numpy as np
import pytest

import ember


@ember.njit
def _add_complex(a):
    a[0] += (-2.25) ** 0.5  # CPython folds this to a complex constant
    return a


@ember.njit
def _store_complex(a, z):
    a[1] = z
    return a


def test_complex_into_float_array_is_a_typing_error():
    with pytest.warns(np.exceptions.ComplexWarning):  # what NumPy does with the same statement
        _add_complex.py_func(np.zeros(2))
    with pytest.raises(ember.errors.TypingError, match="store `.real`"):
        _add_complex(np.zeros(2))
    with pytest.raises(ember.errors.TypingError, match="complex128 in an array of int64"):
        _store_complex(np.zeros(3, dtype=np.int64), 1j)


def test_complex_arrays_take_complex_values():
    expected = _store_complex.py_func(np.zeros(3, dtype=np.complex64), 2 - 1j)
    np.testing.assert_array_equal(_store_complex(np.zeros(3, dtype=np.complex64), 2 - 1j), expected)
    expected = _add_complex.py_func(np.ones(2, dtype=np.complex128))
    np.testing.assert_array_equal(_add_complex(np.ones(2, dtype=np.complex128)), expected)
