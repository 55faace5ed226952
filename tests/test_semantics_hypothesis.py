"""Issue 2, property-based: integer and float corner cases against CPython.

Each function is compiled once, here at module level, and called with one argument type per
parameter (int64 or float64), so every example runs the same machine code. Integers range over
all of int64 and are compared with CPython's result wrapped to 64 bits; floats include NaN, the
infinities, signed zeros and subnormals, and compare exactly (NaN equal to NaN, 0.0 unequal to
-0.0) wherever CPython defines the sign of a zero.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from oracle import same

from ember import njit

INT64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)
SMALL_INT = st.integers(min_value=-1000, max_value=1000)
FLOAT = st.floats(allow_nan=True, allow_infinity=True)
DIGITS = st.integers(min_value=-22, max_value=22)
FEW = settings(max_examples=150, deadline=None)
MANY = settings(max_examples=400, deadline=None)


def wrap64(value):
    """A 64-bit two's-complement integer's value for the exact integer `value`."""
    if isinstance(value, tuple):
        return tuple(wrap64(v) for v in value)
    if isinstance(value, bool) or not isinstance(value, int):
        return value
    return ((value + 2**63) % 2**64) - 2**63


def outcome(func, *args):
    try:
        return ("value", wrap64(func(*args)))
    except Exception as error:  # noqa: BLE001 - the exception is the outcome
        return ("raises", type(error), str(error))


def assert_agrees(compiled, *args):
    expected = outcome(compiled.py_func, *args)
    got = outcome(compiled, *args)
    assert expected[0] == got[0] and same(expected[1:], got[1:]), (args, expected, got)


# ---------------------------------------------------------------------------- the functions


@njit
def arithmetic(a, b):
    return a + b, a - b, a * b


@njit
def floor_ops(a, b):
    return a // b, a % b


@njit
def builtin_divmod(a, b):
    return divmod(a, b)


@njit
def true_division(a, b):
    return a / b


@njit
def comparisons(a, b):
    return a < b, a <= b, a > b, a >= b, a == b, a != b


@njit
def extremes(a, b):
    return min(a, b), max(a, b), min(b, a), max(b, a)


@njit
def extremes_of_three(a, b, c):
    return min(a, b, c), max(a, b, c)


@njit
def absolute(a):
    return abs(a)


@njit
def negate(a):
    return -a


@njit
def to_int(x):
    return int(x)


@njit
def to_float(x):
    return float(x)


@njit
def rounded(x):
    return round(x)


@njit
def rounded_digits(x, n):
    return round(x, n)


@njit
def power(a, b):
    return a**b


@njit
def shifts(a, b):
    return a << b, a >> b


@njit
def bit_ops(a, b):
    return a & b, a | b, a ^ b, ~a


@njit
def square_root(x):
    return math.sqrt(x)


@njit
def floor_and_ceil(x):
    return math.floor(x), math.ceil(x)


@njit
def predicates(x):
    return math.isnan(x), math.isinf(x), math.isfinite(x), bool(x), not x


# ---------------------------------------------------------------------------- integers


@MANY
@given(INT64, INT64)
@example(2**63 - 1, 1)
@example(-(2**63), -1)
def test_int_arithmetic_wraps(a, b):
    assert_agrees(arithmetic, a, b)


@MANY
@given(INT64, INT64 | SMALL_INT)
@example(-(2**63), -1)
@example(7, 0)
@example(-7, 2)
@example(7, -2)
def test_int_floor_division_and_modulo(a, b):
    assert_agrees(floor_ops, a, b)
    assert_agrees(builtin_divmod, a, b)


@MANY
@given(INT64 | SMALL_INT, INT64 | SMALL_INT)
@example(2**53 + 1, 1)
@example(1, 0)
def test_int_true_division_and_comparisons(a, b):
    assert_agrees(true_division, a, b)
    assert_agrees(comparisons, a, b)
    assert_agrees(extremes, a, b)


@FEW
@given(INT64, INT64, INT64)
def test_int_min_max_of_three(a, b, c):
    assert_agrees(extremes_of_three, a, b, c)


@MANY
@given(INT64)
@example(-(2**63))
def test_int_unary(a):
    assert_agrees(absolute, a)
    assert_agrees(negate, a)
    assert_agrees(to_int, a)
    assert_agrees(rounded, a)


@FEW
@given(INT64, st.integers(min_value=-5, max_value=200))
def test_int_shifts(a, count):
    """Counts of 64 and more act on the 64-bit value: `<<` gives 0, `>>` leaves sign bits."""
    left, right = shifts(a, count) if count >= 0 else (None, None)
    if count < 0:
        assert outcome(shifts, a, count) == ("raises", ValueError, "negative shift count")
        return
    assert left == (wrap64(a << count) if count < 64 else 0)
    assert right == a >> count  # Python's >> already fills with the sign


@FEW
@given(INT64, INT64)
def test_int_bit_operations(a, b):
    assert_agrees(bit_ops, a, b)


@FEW
@given(st.integers(min_value=-50, max_value=50), st.integers(min_value=0, max_value=70))
def test_int_power_wraps(base, exponent):
    assert_agrees(power, base, exponent)


@FEW
@given(INT64, st.integers(min_value=-25, max_value=3))
@example(5_000_000_000_000_000_001, -19)
@example(-15, -1)
def test_int_round_to_digits(x, n):
    assert_agrees(rounded_digits, x, n)


# ---------------------------------------------------------------------------- floats


@MANY
@given(FLOAT, FLOAT)
@example(-0.0, 0.0)
@example(1e308, 1e308)
@example(5e-324, -5e-324)
def test_float_arithmetic(a, b):
    assert_agrees(arithmetic, a, b)
    assert_agrees(true_division, a, b)


@MANY
@given(FLOAT, FLOAT)
@example(-0.0, 5.0)
@example(0.0, -5.0)
@example(5.0, -0.0)
@example(-1e-300, 1e300)
@example(1e308, 1e-308)
@example(math.inf, 3.0)
@example(3.0, -math.inf)
def test_float_floor_division_and_modulo(a, b):
    assert_agrees(floor_ops, a, b)
    assert_agrees(builtin_divmod, a, b)


@MANY
@given(FLOAT, FLOAT)
@example(math.nan, 1.0)
@example(1.0, math.nan)
@example(-0.0, 0.0)
def test_float_comparisons_and_nan_ordering_of_min_max(a, b):
    """min/max keep the first argument unless a later one compares strictly better, so a NaN
    argument wins only in first position, as in CPython."""
    assert_agrees(comparisons, a, b)
    assert_agrees(extremes, a, b)


@FEW
@given(FLOAT, FLOAT, FLOAT)
def test_float_min_max_of_three(a, b, c):
    assert_agrees(extremes_of_three, a, b, c)


@MANY
@given(FLOAT)
@example(-0.0)
@example(2.5)
@example(-2.5)
@example(0.49999999999999994)
@example(4503599627370497.0)
def test_float_unary_and_conversions(x):
    assert_agrees(absolute, x)
    assert_agrees(negate, x)
    assert_agrees(predicates, x)
    assert_agrees(square_root, x)
    if not abs(x) >= 2.0**63:  # beyond int64 ember raises OverflowError (its int is 64-bit)
        assert_agrees(to_int, x)
        assert_agrees(rounded, x)
        assert_agrees(floor_and_ceil, x)


@MANY
@given(FLOAT, DIGITS)
@example(2.675, 2)
@example(0.125, 2)
@example(-6.8532715925492376e16, -1)
@example(5e-324, 22)
def test_float_round_to_digits(x, n):
    """Correctly rounded, as CPython's round(x, n) (exact for |n| <= 22)."""
    assert_agrees(rounded_digits, x, n)


@MANY
@given(FLOAT, FLOAT)
@example(0.0, -1.0)
@example(0.0, -math.inf)
@example(10.0, 400.0)
@example(-8.0, 3.0)
def test_float_power(a, b):
    """Except a negative finite base with a fractional exponent (complex in Python; ember
    raises ValueError, see test_language)."""
    assume(not (a < 0 and math.isfinite(a) and math.isfinite(b) and b != math.floor(b)))
    assert_agrees(power, a, b)


# ---------------------------------------------------------------------------- mixed


@MANY
@given(INT64 | SMALL_INT, FLOAT)
@example(2**53 + 1, 2.0**53)
@example(2**63 - 1, 2.0**63)
@example(-(2**63), -(2.0**63))
def test_int_float_comparisons_are_exact(i, f):
    assert_agrees(comparisons, i, f)
    assert_agrees(comparisons, f, i)


@njit
def against_int_constants(f):
    # Constants up to 2**53 are floats exactly: the comparison is one float comparison. Past
    # that the exact int comparison still decides (2**53 + 1 is not a float64).
    return (f < 0, f >= 1, f > -3, f == 7, f != 2**53, f <= 2**53 + 1, f > 2**62, f < -(2**63))


@njit
def against_narrow_ints(f, values):
    count = 0
    for v in values:
        count += (f < v) + 2 * (f >= v) + 4 * (v == f)
    return count


@MANY
@given(FLOAT)
@example(2.0**53)
@example(2.0**53 + 2)
@example(2.0**62)
@example(-(2.0**63))
@example(-0.0)
def test_float_against_int_constants_and_narrow_ints(f):
    assert against_int_constants(f) == against_int_constants.py_func(f)
    for dtype in (np.int8, np.uint8, np.int32, np.uint32):
        info = np.iinfo(dtype)
        values = np.array([info.min, -1 if info.min else 0, 0, 1, info.max], dtype=dtype)
        expected = against_narrow_ints.py_func(f, [int(v) for v in values])
        assert against_narrow_ints(f, values) == expected, dtype


@njit
def count_below(values, n):
    count = 0
    for v in values:
        count += (v * 100.0 < n) + 2 * (v >= n) + 4 * (n == v)
    return count


@MANY
@given(INT64, st.lists(FLOAT, max_size=8))
@example(2**53 + 1, [2.0**53 / 100, 2.0**53])
@example(2**53, [2.0**53])
@example(-(2**53) - 1, [-(2.0**53)])
def test_loop_comparing_floats_with_an_int_as_python(n, values):
    # The 53-bit test on the int picks the float comparison, hoisted out of the loop.
    assert count_below(np.array(values, dtype=np.float64), n) == count_below.py_func(values, n)


@FEW
@given(SMALL_INT, FLOAT)
def test_int_float_arithmetic(i, f):
    assert_agrees(arithmetic, i, f)
    assert_agrees(floor_ops, f, i)
    assert_agrees(true_division, i, f)


@FEW
@given(st.booleans(), st.booleans() | SMALL_INT)
def test_bool_arithmetic_is_integer_arithmetic(a, b):
    assert_agrees(arithmetic, a, b)
    assert_agrees(floor_ops, a, b)
    assert_agrees(comparisons, a, b)


def test_float_to_float_conversion():
    for value in (0, -5, 2**53 + 1, 2**63 - 1):
        assert same(to_float(value), float(value))
