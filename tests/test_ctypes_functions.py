"""ctypes function objects and Cython C functions called from compiled code."""

import ctypes
import ctypes.util
import math

import numpy as np
import pytest

from ember import njit, types
from ember.core.typing import ctypes_utils
from ember.errors import TypingError
from ember.extending import get_cython_function_address

libm = ctypes.CDLL(ctypes.util.find_library("m"))
c_cos = libm.cos
c_cos.restype, c_cos.argtypes = ctypes.c_double, [ctypes.c_double]
c_ldexp = libm.ldexp
c_ldexp.restype, c_ldexp.argtypes = ctypes.c_double, [ctypes.c_double, ctypes.c_int]


@njit
def cosines(xs):
    out = np.empty_like(xs)
    for i in range(xs.shape[0]):
        out[i] = c_cos(xs[i])
    return out


@njit
def scaled(x, e):
    return c_ldexp(x, e)


def test_c_library_functions():
    xs = np.linspace(-3.0, 3.0, 13)
    np.testing.assert_array_equal(cosines(xs), [math.cos(x) for x in xs])
    assert scaled(1.5, 4) == math.ldexp(1.5, 4)


def test_cython_function_from_scipy():
    pytest.importorskip("scipy.special.cython_special")
    address = get_cython_function_address("scipy.special.cython_special", "gammaln")
    gammaln = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double)(address)

    @njit
    def log_gamma(x):
        return gammaln(x)

    for x in (0.5, 4.5, 30.0):
        assert log_gamma(x) == gammaln(x)
    with pytest.raises(ValueError, match="No function .no_such_function. found in __pyx_capi__"):
        get_cython_function_address("scipy.special.cython_special", "no_such_function")


def test_ctypes_function_without_argtypes_is_refused():
    untyped = libm.sin

    @njit
    def call(x):
        return untyped(x)

    with pytest.raises(TypeError, match="doesn't define its argument types"):
        call(1.0)


libc = ctypes.CDLL(ctypes.util.find_library("c"))
c_memset = libc.memset
c_memset.restype = ctypes.c_void_p
c_memset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]
c_frexp = libm.frexp
c_frexp.restype = ctypes.c_double
c_frexp.argtypes = [ctypes.c_double, ctypes.POINTER(ctypes.c_int)]


def test_array_addresses_pass_where_c_takes_a_pointer():
    """`a.ctypes.data` (an integer) and `a.ctypes` convert to the array's data pointer."""

    @njit
    def by_address(a, byte):
        c_memset(a.ctypes.data, byte, a.nbytes)

    @njit
    def by_ctypes(a, byte):
        c_memset(a.ctypes, byte, a.nbytes)

    @njit
    def mantissas(xs, exponents):
        out = np.empty_like(xs)
        for i in range(xs.shape[0]):
            out[i] = c_frexp(xs[i], exponents[i:].ctypes)
        return out

    a, b = np.zeros(5, np.uint8), np.zeros(3, np.uint16)
    by_address(a, 7)
    by_ctypes(b, 1)
    np.testing.assert_array_equal(a, [7] * 5)
    np.testing.assert_array_equal(b, [0x0101] * 3)
    xs = np.array([1.0, 12.0, -0.375])
    exponents = np.zeros(3, np.int32)
    expected = [math.frexp(x) for x in xs]
    np.testing.assert_array_equal(mantissas(xs, exponents), [m for m, _ in expected])
    np.testing.assert_array_equal(exponents, [e for _, e in expected])


c_modf = libm.modf
c_modf.restype = ctypes.c_double
c_modf.argtypes = [ctypes.c_double, ctypes.POINTER(ctypes.c_double)]


@njit
def split_parts(x, whole):
    return c_modf(x, whole.ctypes)


def test_array_ctypes_passes_only_as_a_pointer_to_its_dtype():
    whole = np.zeros(1)
    for x in (2.75, -1.5, 0.0):
        assert split_parts(x, whole) == math.modf(x)[0] and whole[0] == math.modf(x)[1]
    with pytest.raises(TypingError):  # float32 memory read as double would be wrong numbers
        split_parts(2.75, np.zeros(1, np.float32))


def test_a_returned_void_pointer_is_its_address():
    @njit
    def fill(a, byte):
        return c_memset(a.ctypes.data, byte, a.nbytes)

    a = np.zeros(4, np.uint8)
    assert fill(a, 3) == a.ctypes.data
    np.testing.assert_array_equal(a, [3] * 4)


@pytest.mark.parametrize(
    "ctype, ember_type",
    [
        (ctypes.c_double, types.float64),
        (ctypes.c_int, types.intc),
        (ctypes.c_uint16, types.uint16),
        (ctypes.c_size_t, types.size_t),
        (ctypes.c_void_p, types.voidptr),
        (ctypes.POINTER(ctypes.c_float), types.CPointer(types.float32)),
        (
            ctypes.POINTER(ctypes.POINTER(ctypes.c_float)),
            types.CPointer(types.CPointer(types.float32)),
        ),
        (None, types.void),
    ],
)
def test_ctypes_types_convert_both_ways(ctype, ember_type):
    assert ctypes_utils.from_ctypes(ctype) == ember_type
    assert ctypes_utils.to_ctypes(ember_type) == ctype


def test_types_without_a_counterpart_are_refused():
    with pytest.raises(TypeError, match="Unsupported ctypes type"):
        ctypes_utils.from_ctypes(ctypes.c_wchar_p)
    with pytest.raises(TypeError, match="Cannot convert Numba type"):
        ctypes_utils.to_ctypes(types.unicode_type)
