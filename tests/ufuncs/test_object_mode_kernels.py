"""@vectorize / @guvectorize with forceobj=True: the kernel runs as Python (it may use anything
Python can), driven by the ufunc's loops. Expected values come from calling the Python kernel
element by element (or sub-array by sub-array) and from NumPy."""

import fractions

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import guvectorize, vectorize
from ember.errors import TypingError
from ember.np.ufunc.dufunc import DUFunc


class Unsupported:
    """A Python class nopython mode cannot type: its use forces object mode."""

    def __init__(self, value):
        self.value = value


def add_via_object(a, b):
    return Unsupported(a).value + b


def exact_ratio(a, b):
    return float(fractions.Fraction(int(a), int(b)) * 3)


def scaled_rows(matrix, factor, out):
    Unsupported(None)
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = matrix[i, j] * factor


def row_total(row, out):
    out[0] = sum(float(x) for x in row)


class KernelFailed(Exception):
    pass


def always_fails(a, out):
    raise KernelFailed("from the kernel")


def expected_elementwise(fn, dtype, *operands):
    broadcast = np.broadcast_arrays(*operands)
    flat = [fn(*values) for values in zip(*(op.ravel() for op in broadcast))]
    return np.array(flat, dtype=dtype).reshape(broadcast[0].shape)


def test_nopython_kernel_is_refused_without_forceobj():
    with pytest.raises(TypingError):
        vectorize(["int64(int64, int64)"])(add_via_object)


@pytest.mark.parametrize("target", ["cpu", "parallel"])
def test_vectorize_forceobj_runs_python(target):
    ufunc = vectorize(["int32(int32, int32)", "float64(float64, float64)"], forceobj=True,
                      target=target)(add_via_object)  # fmt: skip
    a = np.arange(10, dtype=np.int32)
    got = ufunc(a, a[::-1])
    np.testing.assert_array_equal(got, a + a[::-1])
    assert got.dtype == np.int32
    x = np.linspace(0.0, 2.0, 7)
    np.testing.assert_array_equal(ufunc(x, 0.5), x + 0.5)


def test_vectorize_forceobj_converts_result_as_numpy():
    truncate = vectorize(["int32(float64)"], forceobj=True)(lambda a: a * 1.5)
    x = np.array([0.0, 1.0, 2.0, -3.0])
    np.testing.assert_array_equal(truncate(x), (x * 1.5).astype(np.int32))


exact_ratio_ufunc = vectorize(["float64(int64, int64)"], forceobj=True)(exact_ratio)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-50, 50), min_size=1, max_size=12),
       st.integers(1, 9))  # fmt: skip
def test_vectorize_forceobj_matches_python(numerators, denominator):
    a = np.array(numerators, dtype=np.int64)
    expected = expected_elementwise(exact_ratio, np.float64, a, np.int64(denominator))
    np.testing.assert_array_equal(exact_ratio_ufunc(a, denominator), expected)


def test_vectorize_forceobj_raises_kernel_exception():
    def checked(a):
        if a > 1:
            raise ValueError(f"too big: {a}")
        return a

    ufunc = vectorize(["float64(float64)"], forceobj=True)(checked)
    np.testing.assert_array_equal(ufunc(np.array([0.0, 1.0])), [0.0, 1.0])
    with pytest.raises(ValueError, match="too big: 2.0"):
        ufunc(np.arange(3.0))
    with pytest.raises(TypeError):  # None is no float64 (NumPy would make it NaN)
        vectorize(["float64(float64)"], forceobj=True)(lambda a: None)(np.ones(2))


def test_forceobj_with_nopython_is_a_value_error():
    with pytest.raises(ValueError, match="Only one of 'nopython' or 'forceobj'"):
        vectorize(["float64(float64)"], forceobj=True, nopython=True)(lambda a: a)


def test_dufunc_forceobj_needs_a_return_type():
    dynamic = vectorize(forceobj=True)(add_via_object)
    with pytest.raises(TypeError, match="return type must be specified for object mode"):
        dynamic(np.arange(3), 1)
    builder = DUFunc(add_via_object, targetoptions={"forceobj": True})
    compiled = builder.add("int64(int64, int64)")
    assert compiled.objectmode
    assert builder.build_ufunc() is builder
    np.testing.assert_array_equal(builder(np.arange(4), 2), np.arange(4) + 2)


def test_dufunc_add_reports_nopython_loops():
    builder = DUFunc(lambda a, b: a - b)
    compiled = builder.add("float32(float32, float32)")
    assert not compiled.objectmode
    assert str(compiled.signature.return_type) == "float32"


@pytest.mark.parametrize("target", ["cpu", "parallel"])
def test_guvectorize_forceobj_writes_through_views(target):
    gufunc = guvectorize(["void(int32[:,:], int32, int32[:,:])", "void(float64[:,:], float64, "
                          "float64[:,:])"], "(x,y),()->(x,y)", forceobj=True,
                         target=target)(scaled_rows)  # fmt: skip
    a = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    np.testing.assert_array_equal(gufunc(a, 3), a * 3)
    strided = np.arange(60.0).reshape(3, 4, 5)[:, ::2, 1::2]
    np.testing.assert_array_equal(gufunc(strided, 0.5), strided * 0.5)


def test_guvectorize_forceobj_scalar_output_and_error():
    totals = guvectorize(["void(float64[:], float64[:])"], "(n)->()", forceobj=True)(row_total)
    m = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(totals(m), m.sum(axis=1))
    failing = guvectorize(["void(int32[:], int32[:])"], "(n)->(n)", forceobj=True)(always_fails)
    with pytest.raises(KernelFailed, match="from the kernel"):
        failing(np.arange(4, dtype=np.int32))


def test_forceobj_ufunc_called_from_jitted_code():
    from ember import njit

    def doubled_below_two(a):
        Unsupported(a)
        if a > 1:
            raise ValueError("above one")
        return a * 2

    ufunc = vectorize(["float64(float64)"], forceobj=True)(doubled_below_two)
    serial = njit(lambda x: ufunc(x))
    parallel = njit(parallel=True)(lambda x: ufunc(x) + 1.0)
    x = np.array([0.0, 0.5, 1.0])
    expected = expected_elementwise(doubled_below_two, np.float64, x)
    np.testing.assert_array_equal(serial(x), expected)
    np.testing.assert_array_equal(parallel(x), expected + 1.0)
    with pytest.raises(ValueError, match="above one"):
        serial(np.arange(3.0))


def test_lazy_forceobj_gufunc_called_from_jitted_code():
    from ember import njit

    @guvectorize("(n),()->(n)", forceobj=True)
    def shifted(x, y, res):
        Unsupported(y)
        for i in range(x.shape[0]):
            res[i] = x[i] + y

    def call(x, y, res):
        shifted(x, y, res)

    x = np.arange(40, dtype=np.int64).reshape(4, 2, 5)
    res = np.zeros_like(x)
    njit(call)(x, np.int32(100), res)
    np.testing.assert_array_equal(res, x + 100)
