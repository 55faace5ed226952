"""NumPy scalars, narrow integers and complex numbers meeting arrays and builtins in compiled
code, against NumPy 2 (NEP 50 promotion, npy_cpow) and CPython run on the same inputs: strong
narrow scalars beside arrays, np.clip bounds, array complex powers, integer math at limits."""

import cmath
import math
import warnings

import numpy as np
import pytest

import ember
from tests.oracle import assert_frees_all, assert_same_array, same

U64_MAX = 2**64 - 1


def _ops(a, b):
    return a + b, a - b, a * b, np.maximum(a, b), b - a


def _numpy_ops(a, b):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return _ops(a, b)


def test_narrow_numpy_scalars_promote_strongly_beside_arrays():
    # an int8..int32, uint8..uint32, float32 or complex64 scalar can only be a NumPy scalar,
    # which NumPy 2 keeps strong: int8_array + np.int16(300) is int16 (ember made it int8 and
    # raised OverflowError, or wrapped a value that fits int16 but not int8)
    f = ember.njit(_ops)
    cases = [
        (np.array([-128, -1, 0, 100, 127], np.int8), np.int16(300)),
        (np.array([-128, -1, 0, 100, 127], np.int8), np.int16(100)),
        (np.array([0, 1, 200, 255], np.uint8), np.int8(-3)),
        (np.array([-128, 0, 127], np.int8), np.uint8(200)),
        (np.array([0, 7, 65535], np.uint16), np.int32(-70000)),
        (np.array([-3, 0, 5], np.int16), np.float32(1.5)),
        (np.array([1.5, -2.25], np.float32), np.complex64(1j)),
        # Python's types stay weak (an int64 may be a Python int): the array's dtype is kept
        (np.array([-128, 5, 127], np.int8), 2),
        (np.array([1.5, -2.25, 3e38], np.float32), 2.5),
        (np.array([0, 1, 255], np.uint8), True),
    ]
    for a, b in cases:
        got, expected = f(a, b), _numpy_ops(a, b)
        for g, e in zip(got, expected):
            assert_same_array(g, e)


def test_clip_with_numpy_typed_bounds_promotes_as_numpy():
    clip = ember.njit(lambda a, lo, hi: np.clip(a, lo, hi))
    a8 = np.array([-128, -5, 0, 100, 127], np.int8)
    u8 = np.array([0, 3, 200, 255], np.uint8)
    cases = [
        (a8, np.int16(-300), np.int16(300)),
        (a8, np.int16(-100), np.int16(50)),
        (u8, np.int8(-3), np.int8(100)),
        (u8, -5, 300),  # Python ints beyond uint8 saturate: a no-op, as NumPy 2
        (a8, -100, 50),
    ]
    for a, lo, hi in cases:
        got, expected = clip(a, lo, hi), np.clip(a, lo, hi)
        assert_same_array(got, expected)


def test_complex_array_power_gives_numpy_values_never_python_errors():
    # NumPy's power never raises: ember's kernel called Python's complex ** (OverflowError for
    # an infinite result) and multiplied a ** 1 by 1+0j ((nan+0j) ** 1 became nan+nanj)
    f = ember.njit(lambda a, b: a**b)
    special = [complex(math.inf, 1), complex(math.nan, 0)]
    a = np.array([1 + 0j, -2.5 + 3j, *special, 1e200 + 1e200j, 0j])
    for exponent in (0j, 1 + 0j, 2 + 0j, 3 + 0j, -1 + 0j, 5 + 0j, 0.5 + 0j, 2.5 + 1j):
        with np.errstate(all="ignore"):
            expected = a**exponent
        got = f(a, exponent)
        for x, g, e in zip(a, got, expected):
            if not cmath.isfinite(x) and exponent.real != int(exponent.real):
                continue  # libm's cpow (NumPy) and the polar form differ on infinities
            if cmath.isfinite(x) and cmath.isfinite(e):
                assert cmath.isclose(g, e, rel_tol=1e-13, abs_tol=1e-300), (x, exponent, g, e)
            else:  # the infinities and NaNs of NumPy's products, part by part
                assert same(g.real, e.real) and same(g.imag, e.imag), (x, exponent, g, e)


def test_python_complex_power_keeps_cpythons_errors():
    f = ember.njit(lambda a, b: a**b)
    cases = [
        (2 + 1j, 3 + 0j),
        (2 + 1j, -2 + 0j),
        (1.5 - 0.5j, 0.5 + 2j),
        (0j, 0j),
        (0j, 2 + 0j),
        (0j, -1 + 0j),  # ZeroDivisionError
        (0j, 1j),  # ZeroDivisionError
        (1e-200 + 0j, -3 + 0j),  # the power underflows to 0: ZeroDivisionError
        (1e200 + 1e200j, 101 + 0j),  # OverflowError
        (1e200 + 1e200j, 2.5 + 0j),  # OverflowError
    ]
    for a, b in cases:
        try:
            expected = a**b
        except (ZeroDivisionError, OverflowError) as error:
            with pytest.raises(type(error)):
                f(a, b)
            continue
        assert cmath.isclose(f(a, b), expected, rel_tol=1e-15), (a, b)


def test_numpy_scalar_class_of_complex_is_refused_clearly():
    # NumPy drops the imaginary part with a ComplexWarning; ember asks for .real, as .astype
    for make in (lambda z: np.float64(z), lambda z: np.int32(z), lambda z: np.float32(z)):
        with pytest.raises(ember.errors.TypingError, match="imaginary part"):
            ember.njit(make)(1 + 2j)
    assert ember.njit(lambda z: np.float64(z.real))(1 + 2j) == 1.0
    assert ember.njit(lambda z: np.complex64(z))(1 + 2j) == 1 + 2j


def test_integer_math_at_the_64_bit_limits_matches_cpython():
    isqrt = ember.njit(lambda n: math.isqrt(n))
    bit_length = ember.njit(lambda n: n.bit_length())
    isclose = ember.njit(lambda a, b: math.isclose(a, b))
    for dtype in (np.int8, np.uint8, np.int16, np.int32, np.uint32, np.int64, np.uint64):
        info = np.iinfo(dtype)
        for value in sorted({info.min, info.min + 1, -1, 0, 1, 3, info.max - 1, info.max}):
            if not info.min <= value <= info.max:
                continue
            n = dtype(value)
            # -np.int8(-128) wraps to -128: bit_length looped forever on it
            assert bit_length(n) == value.bit_length(), n
            if value >= 0:
                assert isqrt(n) == math.isqrt(value), n  # 2**64 - 1 gave 2**32
            for other in (1, -1, 0):
                # b - a overflowed int64 and made the extremes "close" to 1
                assert isclose(n, other) == math.isclose(value, other), (n, other)


def test_unsigned_bitwise_with_bool_stays_unsigned():
    f = ember.njit(lambda a, b: (a | b, a ^ b, a & b, b | a))
    for a in (np.uint64(U64_MAX - 1), np.uint64(U64_MAX), np.uint64(2**63), np.uint8(254)):
        for b in (True, False):
            expected = (int(a) | b, int(a) ^ b, int(a) & b, b | int(a))
            assert f(a, b) == expected, (a, b)


def test_strong_scalar_array_results_are_freed():
    f = ember.njit(lambda a, b: (a + b) * np.int16(2))
    assert_frees_all(f, lambda: np.arange(5, dtype=np.int8), lambda: np.int16(300), calls=50)
