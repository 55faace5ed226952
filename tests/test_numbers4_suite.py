"""Differential tests of numbers, builtins and operators: each jitted function against its
py_func (CPython), on many inputs including the corners: negative floor division, the minimum of
each signed width, uint64 above 2**63 - 1 mixed with signed integers, NaN, infinities, -0.0."""

import enum
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import types
from tests.oracle import assert_frees_all

_SIGNED = (np.int8, np.int16, np.int32, np.int64)
_UNSIGNED = (np.uint8, np.uint16, np.uint32, np.uint64)
_FLOAT_CORNERS = (0.0, -0.0, 1.5, -2.5, 1e300, -1e-300, math.inf, -math.inf, math.nan)


def _same(got, expected):
    """Equal values, NaN equal to NaN, and the sign of a zero kept."""
    if isinstance(expected, tuple):
        return len(got) == len(expected) and all(map(_same, got, expected))
    if isinstance(expected, float) and math.isnan(expected):
        return math.isnan(got)
    if isinstance(expected, float) and expected == 0.0:
        return got == 0.0 and math.copysign(1.0, got) == math.copysign(1.0, expected)
    return got == expected


# ------------------------------------------------------------------ text of integers


def _as_text(x):
    return str(x) + "|" + f"{x}" + "|" + repr(x) + "|" + format(x, "d") + "|" + hex(x)


@pytest.mark.parametrize("dtype", _SIGNED + _UNSIGNED)
def test_text_of_each_width_at_its_limits(dtype):
    """str/repr/format/hex of a narrow integer at its minimum: -x wraps in the narrow type, so
    the digits must come from the widened value (np.int8(-128) printed as '-2')."""
    jitted = ember.njit(_as_text)
    info = np.iinfo(dtype)
    for value in (info.min, info.min + 1, -1 if info.min else 0, 0, 1, info.max - 1, info.max):
        x = dtype(value)
        expected = "|".join([str(int(x))] * 4) + "|" + hex(int(x))
        assert jitted(x) == expected


_as_text_jitted = ember.njit(_as_text)


@settings(deadline=None)
@given(st.integers(-(2**63), 2**63 - 1))
def test_text_of_int64_matches_python(value):
    assert _as_text_jitted(value) == _as_text(value)


def test_print_of_narrow_minimum(capfd):
    @ember.njit
    def show(x):
        print(x, -x)

    show(np.int8(-128))
    show(np.int16(-32768))
    assert capfd.readouterr().out == "-128 -128\n-32768 -32768\n"


# ------------------------------------------------------------------ int() keeps the type


def test_int_of_an_integer_keeps_its_type():
    """int(x) of an integer is x itself (Numba types it as x's own type): a uint64 above
    2**63 - 1 stays exact instead of wrapping negative."""
    jitted = ember.njit(lambda x: int(x))
    for value in (np.uint64(2**64 - 1), np.uint64(2**63), np.int8(-128), np.uint8(255)):
        assert jitted(value) == int(value)
    for signature in jitted.signatures:
        # int() makes a Python int: a NumPy scalar argument's plain type
        assert jitted.overloads[signature].signature.return_type is types.unliteral(signature[0])
    assert ember.njit(lambda x: int(x))(True) == 1


def test_int_then_arithmetic_widens_as_python():
    jitted = ember.njit(lambda x: int(x) + 1)
    assert jitted(np.uint8(255)) == 256
    assert jitted(np.int8(127)) == 128
    assert jitted(np.uint32(2**32 - 1)) == 2**32


# ------------------------------------------------------------------ uint64 with signed


def _true_divide(a, b):
    return a / b


_true_divide_jitted = ember.njit(_true_divide)


@settings(deadline=None)
@given(st.integers(0, 2**64 - 1), st.integers(-(2**63), 2**63 - 1).filter(bool))
def test_uint64_divided_by_int64_keeps_its_sign(numerator, denominator):
    """A uint64 above 2**63 - 1 divided by a signed integer: each operand becomes a double (as
    NumPy and Numba do), never the uint64 reread as a negative int64."""
    got = _true_divide_jitted(np.uint64(numerator), np.int64(denominator))
    assert got == float(numerator) / float(denominator)


@settings(deadline=None)
@given(st.integers(-(2**63), 2**63 - 1), st.integers(1, 2**64 - 1))
def test_int64_divided_by_uint64(numerator, denominator):
    got = _true_divide_jitted(np.int64(numerator), np.uint64(denominator))
    assert got == float(numerator) / float(denominator)


def test_uint64_with_uint64_and_small_unsigned_divide_exactly():
    jitted = ember.njit(_true_divide)
    assert jitted(np.uint64(2**64 - 1), np.uint64(3)) == float(2**64 - 1) / 3.0
    assert jitted(np.uint32(10), np.int64(-4)) == -2.5
    with pytest.raises(ZeroDivisionError):
        jitted(np.uint64(2**63), np.int64(0))


def _compare_all(a, b):
    return a < b, a <= b, a == b, a != b, a > b, a >= b


@pytest.mark.parametrize("big", [2**63, 2**63 + 5, 2**64 - 1])
@pytest.mark.parametrize("signed", [-1, 0, 2**63 - 1, -(2**63)])
def test_uint64_compares_with_signed_at_the_edges(big, signed):
    got = ember.njit(_compare_all)(np.uint64(big), np.int64(signed))
    assert got == _compare_all(big, signed)


# ------------------------------------------------------------------ arithmetic on each type


def _arith(a, b):
    return a + b, a - b, a * b, a // b, a % b, divmod(a, b)


_arith_jitted = ember.njit(_arith)


_INT_PAIRS = [
    (7, 2),
    (-7, 2),
    (7, -2),
    (-7, -2),
    (0, 5),
    (-1, 3),
    (2**40 + 1, 3),
    (-(2**40) - 1, 7),
    (2**40 + 1, -(2**20)),
]


@pytest.mark.parametrize("a,b", _INT_PAIRS)
def test_integer_arithmetic_floors_as_python(a, b):
    assert _arith_jitted(a, b) == _arith(a, b)


@settings(deadline=None)
@given(st.integers(-(2**31), 2**31), st.integers(-(2**31), 2**31).filter(bool))
def test_integer_floor_division_and_modulo(a, b):
    assert _arith_jitted(a, b) == _arith(a, b)


@pytest.mark.parametrize("a", _FLOAT_CORNERS)
@pytest.mark.parametrize("b", (2.0, -2.0, 0.5, math.inf, -math.inf, math.nan))
def test_float_floor_division_and_modulo(a, b):
    assert _same(_arith_jitted(a, b), _arith(a, b))


@pytest.mark.parametrize("dtype", _SIGNED[:3])
def test_narrow_signed_operands_compute_at_64_bits(dtype):
    """Scalars of a narrow type compute in int64 (Numba's rule), so 100 + 100 in int8 is 200,
    and the value stored back into an int8 array wraps as NumPy's cast does."""
    info = np.iinfo(dtype)
    x, y = dtype(info.max), dtype(info.min)
    assert _arith_jitted(x, dtype(3)) == _arith(int(x), 3)
    assert _arith_jitted(y, dtype(-3)) == _arith(int(y), -3)

    @ember.njit
    def store_sum(a):
        a[0] = a[0] + a[1]
        return a[0]

    array = np.array([info.max, 1], dtype=dtype)
    expected = np.array([info.max, 1], dtype=dtype)
    with np.errstate(over="ignore"):
        expected[0] = (expected[0].astype(np.int64) + 1).astype(dtype)
    assert store_sum(array) == expected[0] == info.min


def test_integer_division_by_zero_raises():
    jitted = _arith_jitted
    with pytest.raises(ZeroDivisionError):
        jitted(5, 0)
    with pytest.raises(ZeroDivisionError):
        jitted(5.0, 0.0)
    with pytest.raises(ZeroDivisionError):
        jitted(-0.0, -0.0)


# ------------------------------------------------------------------ rounding and conversions


@pytest.mark.parametrize(
    "value", [2.5, -2.5, 0.5, -0.5, 1.5, 2.675, -0.0, 1e15 + 0.5, 123.456, 5e-324]
)
@pytest.mark.parametrize("ndigits", [0, 1, 2, -1, -2, 5, 22])
def test_round_with_digits(value, ndigits):
    assert _same(ember.njit(lambda x, n: round(x, n))(value, ndigits), round(value, ndigits))


@pytest.mark.parametrize("value", [5e-324, -5e-324, 1e-310, 2.5e-320, 1.23456e-300, 7e-315])
def test_round_beyond_308_digits(value):
    """10**ndigits is no double above 308: a subnormal still rounds to its kept digits."""
    jitted = ember.njit(lambda x, n: round(x, n))
    for ndigits in range(309, 324):
        assert _same(jitted(value, ndigits), round(value, ndigits))


def test_float_to_int_of_nan_and_infinity_raise():
    jitted = ember.njit(lambda x: int(x))
    with pytest.raises(ValueError):
        jitted(math.nan)
    with pytest.raises(OverflowError):
        jitted(math.inf)
    assert jitted(-2.7) == -2
    assert jitted(np.float32(3.9)) == 3


def test_integer_key_is_numpy_name():
    """Numba's Integer.key is NumPy's name of the width, so np.iinfo(t.key) gives its limits;
    two spellings of one width are still one type."""
    for typ in (types.int8, types.uint16, types.int64, types.uint64, types.intp, types.uintc):
        assert np.iinfo(typ.key).bits == typ.bitwidth
        assert np.iinfo(typ.key).min == typ.minval
    assert types.Integer("intp", 64, True) is types.int64


def test_core_utils_bit_length():
    from ember.core import utils

    assert utils.PYVERSION >= (3, 10)
    for value, bits in ((0, 0), (1, 1), (127, 7), (-128, 7), (-129, 8), (2**63 - 1, 63)):
        assert utils.bit_length(value) == bits


# ------------------------------------------------------------------ uint64 against signed


_compare_jitted = ember.njit(_compare_all)


@settings(deadline=None)
@given(st.integers(0, 2**64 - 1), st.integers(-(2**63), 2**63 - 1))
def test_uint64_against_int64_compares_exactly(unsigned, signed):
    """Every uint64 against every int64, exactly: a negative is below any uint64, and values
    near 2**63 that float64 would merge stay apart."""
    assert _compare_jitted(np.uint64(unsigned), np.int64(signed)) == _compare_all(unsigned, signed)
    assert _compare_jitted(np.int64(signed), np.uint64(unsigned)) == _compare_all(signed, unsigned)


def test_uint64_in_tuples_compares_exactly():
    jitted = ember.njit(lambda a, b: ((a, 1) < (b, 1), (a, 1) == (b, 1), (b, 0) < (a, 0)))
    big, below = np.uint64(2**63), np.int64(2**63 - 1)
    assert jitted(big, below) == (False, False, True)
    assert jitted(np.uint64(0), np.int64(-1)) == (False, False, True)


# ------------------------------------------------------------------ np.int8(sequence)


def _scalar_classes_of_sequences(values, nested, array0d, array1d):
    return (
        np.int8(values),
        np.float32(nested),
        np.uint8([300.0, -1.0, 7.9]),
        np.complex64(values),
        np.bool_(array0d),
        np.int16(array0d),
        np.float32(array1d),
    )


def test_numpy_scalar_classes_of_sequences_build_arrays():
    """NumPy's scalar classes called on a tuple, list or array build an array of their dtype
    (casting as astype does); on a 0-d array, the scalar it holds."""
    args = ((1, 2.5, -3.9), ((1.0, 2.5), (3.5, 4)), np.array(2.75), np.arange(4))
    got = ember.njit(_scalar_classes_of_sequences)(*args)
    expected = (
        np.array((1, 2.5, -3.9)).astype(np.int8),
        np.array(((1.0, 2.5), (3.5, 4))).astype(np.float32),
        np.array([300.0, -1.0, 7.9]).astype(np.uint8),
        np.complex64(args[0]),
        np.bool_(args[2]),
        np.int16(args[2]),
        np.float32(args[3]),
    )
    for got_item, expected_item in zip(got, expected):
        if np.ndim(expected_item):  # (a scalar returns as a Python number)
            assert got_item.dtype == expected_item.dtype
        np.testing.assert_array_equal(got_item, expected_item)
    jitted = ember.njit(_scalar_classes_of_sequences)
    assert_frees_all(jitted, *(lambda arg=arg: arg for arg in args))


# ------------------------------------------------------------------ IntEnum members as extents


class _Extent(enum.IntEnum):
    ROWS = 2
    COLUMNS = 3
    NONE = 0


def _arrays_shaped_by_enum():
    a = np.empty((_Extent.ROWS, _Extent.COLUMNS), dtype=np.int64)
    b = np.zeros(_Extent.COLUMNS)
    c = np.ones((_Extent.ROWS, 4))
    d = np.full((_Extent.NONE, _Extent.ROWS), 7.0)
    return a.shape, b, c, d.shape


def test_int_enum_members_give_array_shapes():
    got = ember.njit(_arrays_shaped_by_enum)()
    expected = _arrays_shaped_by_enum()
    assert got[0] == expected[0] and got[3] == expected[3]
    np.testing.assert_array_equal(got[1], expected[1])
    np.testing.assert_array_equal(got[2], expected[2])
    assert_frees_all(ember.njit(_arrays_shaped_by_enum))


# ------------------------------------------------------------------ 64-bit wrap


def _wrap_int64(value):
    """Two's complement at 64 bits: what an int64 holds of an exact result."""
    return (value + 2**63) % 2**64 - 2**63


def _add_sub_mul(a, b):
    return a + b, a - b, a * b


_add_sub_mul_jitted = ember.njit(_add_sub_mul)


@settings(deadline=None)
@given(st.integers(-(2**63), 2**63 - 1), st.integers(-(2**63), 2**63 - 1))
def test_int64_overflow_wraps(a, b):
    """int64 arithmetic wraps at 64 bits (Numba's and NumPy's rule), never saturates."""
    expected = tuple(_wrap_int64(v) for v in _add_sub_mul(a, b))
    assert _add_sub_mul_jitted(a, b) == expected


@settings(deadline=None)
@given(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1))
def test_uint64_overflow_wraps(a, b):
    got = _add_sub_mul_jitted(np.uint64(a), np.uint64(b))
    assert got == tuple(v % 2**64 for v in _add_sub_mul(a, b))
