"""Numba's `numba.np.ufunc` path under ember: DUFunc(py_func, targetoptions=...), the
Vectorize / GUVectorize builders (.add then .build_ufunc, is_dynamic=True), each checked
against NumPy on the same inputs, from Python and from jitted code."""

import numpy as np

from ember import njit
from ember.np.ufunc import GUFunc, GUVectorize, Vectorize
from ember.np.ufunc import gufunc as gufunc_module
from ember.np.ufunc.dufunc import DUFunc


def add(a, b):
    return a + b


def axpy(a, x, y, out):
    out[0] = a * x + y


def row_sum(a, out):
    total = 0.0
    for v in a:
        total += v
    out[0] = total


def test_dufunc_with_numba_constructor_arguments():
    dynamic = DUFunc(add, identity=0, targetoptions=dict(nopython=True))
    assert dynamic.ntypes == 0 and dynamic.identity == 0

    @njit
    def into(a, b, out):
        dynamic(a, b, out)

    a, b = np.linspace(0, 1, 6), np.linspace(1, 2, 6)
    out = np.zeros(6)
    into(a, b, out)
    np.testing.assert_array_equal(out, a + b)
    assert dynamic.reduce(np.arange(5)) == 10  # identity 0 and a loop for int64


def test_vectorize_builder():
    builder = Vectorize(add, target="cpu")
    builder.add("float32(float32, float32)")
    builder.add("int64(int64, int64)")
    ufunc = builder.build_ufunc()
    assert isinstance(ufunc, np.ufunc) and ufunc.ntypes == 2
    x = np.arange(5, dtype=np.float32)
    got = ufunc(x, x)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, x + x)
    assert isinstance(Vectorize(add).build_ufunc(), DUFunc.__mro__[1])  # no signature: dynamic


def test_guvectorize_builder_and_dynamic_gufunc():
    builder = GUVectorize(row_sum, "(n)->()", target="cpu")
    builder.add("void(f8[:], f8[:])")
    gufunc = builder.build_ufunc()
    m = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(gufunc(m), m.sum(axis=1))

    dynamic = GUVectorize(axpy, "(),(),() -> ()", is_dynamic=True)
    assert isinstance(dynamic, GUFunc) and GUFunc is gufunc_module.GUFunc

    @njit
    def axpy_jit(a, x, y, out):
        dynamic(a, x, y, out)

    x = np.arange(10, dtype=np.intp)
    out = np.zeros_like(x)
    axpy_jit(x, x, x, out)
    np.testing.assert_array_equal(out, x * x + x)
