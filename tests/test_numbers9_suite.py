"""Narrow and unsigned integers in compiled code against independently computed answers
(CPython on exact ints, NumPy's wrapping, Numba's documented typing rules): divmod, rounding,
gcd, powers and shifts where a uint64 meets a signed integer or a bool."""

import math

import numpy as np

import ember
from tests.oracle import same

U64_MAX = 2**64 - 1


def _wrap_int64(value: int) -> int:
    """value modulo 2**64 as a signed int64 (the bits compiled code keeps)."""
    value %= 2**64
    return value - 2**64 if value >= 2**63 else value


def test_divmod_of_uint64_and_signed_is_exact():
    # divmod(uint64, signed) is CPython's exact pair wrapped to int64 (numbers11; Numba divides
    # as floats, and an int64 wrapping the uint64 first gave divmod(np.int8(-128),
    # np.uint64(2**64 - 2)) == (64, 0))
    f = ember.njit(lambda a, b: divmod(a, b))
    cases = [
        (np.int8(-128), np.uint64(U64_MAX - 1)),
        (np.int64(-7), np.uint64(3)),
        (np.uint64(U64_MAX), np.int64(3)),
        (np.uint64(U64_MAX), np.int64(-2)),
        (np.uint64(7), np.int32(-2)),
    ]
    for a, b in cases:
        expected = tuple(_wrap_int64(v) for v in divmod(int(a), int(b)))
        assert same(f(a, b), expected), (a, b)
    literal = ember.njit(lambda a: divmod(a, 3))
    assert same(literal(np.uint64(U64_MAX)), divmod(U64_MAX, 3))
    # both unsigned, or a bool with a uint64: integers, exact
    for a, b in [(np.uint64(U64_MAX), np.uint64(2)), (True, np.uint64(3)), (np.uint8(7), 2)]:
        assert same(f(a, b), divmod(int(a), int(b))), (a, b)


def test_integer_rounding_keeps_unsigned():
    # math.floor/ceil/trunc and round() of an unsigned integer stay uint64 (as Numba types
    # floor/ceil/trunc); int64 would turn 2**64 - 1 into -1
    f = ember.njit(lambda a: (math.floor(a), math.ceil(a), math.trunc(a), round(a)))
    for value in (np.uint64(U64_MAX), np.uint64(2**63), np.uint32(2**32 - 1), np.uint8(255)):
        assert f(value) == (int(value),) * 4, value
    for value in (np.int64(-(2**63)), np.int8(-128), True):
        assert f(value) == (int(value),) * 4, value


def test_round_unsigned_to_negative_digits():
    f = ember.njit(lambda a, n: round(a, n))
    values = [0, 5, 15, 25, 254, 255, 10**19 - 1, 5 * 10**18, 15 * 10**18, 2**63 + 5, U64_MAX]
    for value in values:
        for digits in (-1, -2, -5, -19, -20, -25, 0, 3):
            got = f(np.uint64(value), digits)
            assert got == round(value, digits) % 2**64, (value, digits, got)
    assert f(np.uint8(255), -1) == 260  # computed in 64 bits, not wrapped to uint8


def test_gcd_with_a_uint64():
    f = ember.njit(lambda a, b: math.gcd(a, b))
    cases = [
        (np.uint64(U64_MAX), 12),
        (np.uint64(U64_MAX - 1), -12),
        (np.uint64(0), -12),
        (np.int64(-(2**63)), np.uint64(2**63)),
        (np.uint64(U64_MAX), np.uint64(U64_MAX)),
        (np.uint64(3 * 2**62), np.int8(-6)),
    ]
    for a, b in cases:
        got = f(a, b)
        assert isinstance(got, int) and got == math.gcd(int(a), int(b)), (a, b, got)
    signed = ember.njit(lambda a, b: math.gcd(a, b))
    for a, b in [(np.int8(-128), 12), (np.uint32(3 * 2**30), np.int32(-6)), (0, 0)]:
        assert signed(a, b) == math.gcd(int(a), int(b))


def test_power_with_an_unsigned_exponent():
    # an unsigned exponent above 2**63 - 1 is no negative power (ember raised ValueError)
    f = ember.njit(lambda a, b: a**b)
    for base, exponent in [(2, U64_MAX), (3, 2**63 + 1), (-1, U64_MAX), (3, 3), (-2, 7)]:
        got = f(base, np.uint64(exponent))
        assert got == _wrap_int64(pow(base, exponent, 2**64)), (base, exponent)
    assert f(np.int8(-2), np.uint8(7)) == -128


def test_shift_by_a_bool():
    # the count may be a bool (ember crashed typing it)
    f = ember.njit(lambda a, b: (a << b, a >> b))
    for a in (np.int8(-3), np.uint8(200), np.int64(5), True):
        for b in (True, False):
            assert f(a, np.bool_(b)) == (int(a) << b, int(a) >> b), (a, b)


def test_uint16_and_float32_compute_in_float64():
    # Numba's operator rule (NumPy would keep float32): int8, uint8 and int16 keep float32
    f = ember.njit(lambda a, b: (a + b, a / b, b - a, a * b))
    x, y = np.uint16(65534), np.float32(0.1)
    fx, fy = float(x), float(y)
    assert f(x, y) == (fx + fy, fx / fy, fy - fx, fx * fy)
    narrow = f(np.int16(3), y)
    assert narrow == tuple(float(v) for v in (y + 3, np.int16(3) / y, y - 3, 3 * y))
    assert float(np.float32(3) / y) != 3 / fy  # (the float32 answer differs from float64's)
    as_complex = ember.njit(lambda a, b: a * b)
    assert as_complex(np.uint16(3), np.complex64(0.1 + 1j)) == 3 * complex(np.complex64(0.1 + 1j))


def test_float_power_with_a_uint64_exponent():
    # a float to a uint64 power above 2**63 - 1 was a negative power (3.5 ** (2**64 - 1) gave
    # 1 / 3.5); CPython converts a huge int exponent to a float, so (-1.0) ** odd is 1.0 too
    f = ember.njit(lambda a, b: a**b)
    for base in (0.5, -0.5, 1.0, -1.0, 0.0, 1.5, -2.0):
        for exponent in (U64_MAX, 2**63, 2**63 + 1, 0, 3, 10):
            try:
                expected = base**exponent
            except OverflowError:
                continue
            assert same(f(base, np.uint64(exponent)), expected), (base, exponent)
    assert f(np.float32(0.5), np.uint64(U64_MAX)) == 0.0
    assert f(2.0, np.uint8(10)) == 1024.0 and f(1.5, True) == 1.5


def test_arange_of_float_kind_computes_in_floats_as_numpy():
    # a uint64 bound with an int64 one gives float64 values; the bounds were subtracted as
    # int64 (np.arange(np.int64(-6), np.uint64(2**64 - 1), 2**62) wrapped), and NumPy's fill
    # steps by (start + step) - start
    f = ember.njit(lambda a, b, c: np.arange(a, b, c))
    cases = [
        (np.int64(-6), np.uint64(U64_MAX), np.uint64(2**62)),
        (np.int8(-3), np.uint64(3), 1),
        (3.0, 0, -0.7),
        (0.0, 1.0, 0.1),
        (-2.25, 7.5, 0.3),
        (1, 2.5, 0.5),
        (np.float32(0.1), np.float32(1.0), np.float32(0.1)),
    ]
    for args in cases:
        got, expected = f(*args), np.arange(*args)
        assert got.dtype == expected.dtype and got.tolist() == expected.tolist(), args


def test_unary_operators_of_narrow_ints_are_64_bit():
    # Numba types -x, +x, ~x of a narrow int as int64/uint64 (the value computed at x's width,
    # as NumPy wraps it): a container made of one holds 64-bit values, so a later 1000 fits
    def f(x):
        d = {1: ~x}
        d[2] = 1000
        values = [-x]
        values.append(1000)
        return d[2], values[1], -x, ~x, +x, ~x * 1000

    jitted = ember.njit(f)
    with np.errstate(over="ignore"):
        for x in (np.int8(-128), np.int8(5), np.uint8(5), np.int16(-32768), np.uint32(1)):
            negated, inverted = int(np.negative(x)), int(np.invert(x))
            got = jitted(x)
            assert got == (1000, 1000, negated, inverted, int(x), inverted * 1000), x
    assert str(jitted.nopython_signatures[0].return_type) == "UniTuple(int64 x 6)"
