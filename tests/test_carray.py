"""carray/farray: arrays over memory a C pointer points at, in @cfunc code and in Python."""

import ctypes
import math

import numpy as np
import pytest

from ember import carray, cfunc, farray, njit, types
from ember.errors import TypingError

DOUBLE_P = ctypes.POINTER(ctypes.c_double)


@cfunc(types.float64(types.CPointer(types.float64), types.intc))
def weighted_total(ptr, n):
    a = carray(ptr, n)
    total = 0.0
    for i in range(n):
        total += a[i] * (i + 1)
    return total


@cfunc(types.void(types.voidptr, types.intc, types.intc))
def fill_codes(ptr, rows, cols):
    c_view = carray(ptr, (rows, cols), dtype=np.float64)
    f_view = farray(ptr, (cols, rows), dtype=np.float64)
    for i in range(rows):
        for j in range(cols):
            c_view[i, j] = i * 10 + j
    f_view[0, 0] += 0.5  # the same first element seen through the transposed view


def test_cpointer_view_reads_the_callers_memory():
    x = np.linspace(-2.0, 3.0, 7)
    expected = sum(v * (i + 1) for i, v in enumerate(x))
    assert weighted_total.ctypes(x.ctypes.data_as(DOUBLE_P), len(x)) == pytest.approx(expected)


def test_voidptr_views_in_c_and_fortran_order_write_through():
    out = np.zeros((3, 4))
    fill_codes.ctypes(out.ctypes.data_as(ctypes.c_void_p), 3, 4)
    expected = np.array([[i * 10 + j for j in range(4)] for i in range(3)], dtype=float)
    expected[0, 0] += 0.5
    np.testing.assert_array_equal(out, expected)


def test_python_side_views():
    x = np.arange(6.0)
    pointer = x.ctypes.data_as(DOUBLE_P)
    np.testing.assert_array_equal(carray(pointer, (2, 3)), x.reshape(2, 3))
    np.testing.assert_array_equal(farray(pointer, (2, 3)), x.reshape(2, 3, order="F"))
    with pytest.raises(TypeError, match="dtype"):
        carray(pointer, 6, dtype=np.float32)


def test_scipy_low_level_callable_integrates():
    integrate = pytest.importorskip("scipy.integrate")
    from scipy import LowLevelCallable

    @cfunc(types.float64(types.intc, types.CPointer(types.float64)))
    def integrand(n, xx):
        values = carray(xx, n)
        return math.exp(-values[0] * values[1])

    value, _ = integrate.quad(LowLevelCallable(integrand.ctypes), 0.0, 1.0, args=(2.0,))
    assert value == pytest.approx((1.0 - math.exp(-2.0)) / 2.0)


def test_a_void_pointer_without_dtype_is_refused():
    with pytest.raises(TypingError, match="dtype"):

        @cfunc(types.float64(types.voidptr, types.intc))
        def first(ptr, n):
            return carray(ptr, n)[0]


def test_mismatching_dtype_is_refused_in_compiled_code():
    @njit
    def view(ptr):
        return carray(ptr, 3, dtype=np.int32)[0]

    with pytest.raises(TypingError, match="mismatching dtype"):
        view.compile((types.CPointer(types.float64),))
