"""Scalar numbers in compiled code against independently computed answers (CPython on exact
ints and floats): float -> int conversions beyond int64, floor division and modulo of a uint64
with a signed integer, and the math/cmath/builtin corners numbers11 fixed."""

import math

import numpy as np
import pytest

import ember

INT64_MIN, INT64_MAX, U64_MAX = -(2**63), 2**63 - 1, 2**64 - 1


def _wrap_int64(value: int) -> int:
    """value modulo 2**64 as a signed int64 (the bits compiled code keeps)."""
    value %= 2**64
    return value - 2**64 if value >= 2**63 else value


# ---------------------------------------------------------------- float -> int beyond int64


def _conversions(x):
    return int(x), math.floor(x), math.ceil(x), math.trunc(x), round(x)


def test_float_to_int_beyond_int64_raises_overflow_error():
    """CPython's big int does not fit compiled code's int64: OverflowError, never a saturated
    or wrapped value; the int64 range itself (-2**63 and the largest double below 2**63)
    converts exactly; NaN and infinity raise CPython's own errors."""
    compiled = ember.njit(_conversions)
    inside = [0.0, -0.0, 2.5, -2.5, -(2.0**63), 2.0**63 - 1024.0, -(2.0**63) + 1024.0, 1e18]
    for x in inside:
        assert compiled(x) == _conversions(x), x
    for x in [2.0**63, -(2.0**63) - 2048.0, 1e19, -1e19, 1e300, -1e308, math.inf, -math.inf]:
        with pytest.raises(OverflowError, match="beyond int64|infinity"):
            compiled(x)
    with pytest.raises(ValueError, match="cannot convert float NaN to integer"):
        compiled(math.nan)
    f32 = ember.njit(lambda x: int(x))
    assert f32(np.float32(2.0**62)) == 2**62
    with pytest.raises(OverflowError, match="beyond int64"):
        f32(np.float32(1e19))


def test_float_to_int_beyond_int64_in_loops_raises_at_the_first():
    """A loop of conversions (vectorized, its checks deferred) raises what CPython raises
    first: OverflowError for the huge value, unless a NaN comes before it."""

    def scaled(a):
        out = np.empty(a.shape[0], np.int64)
        for i in range(a.shape[0]):
            out[i] = int(a[i] * 255.0)
        return out

    def total(a):
        s = 0
        for i in range(a.shape[0]):
            s += round(a[i])
        return s

    compiled_scaled, compiled_total = ember.njit(scaled), ember.njit(total)
    a = np.linspace(-1.0, 1.0, 300)
    np.testing.assert_array_equal(compiled_scaled(a), [int(x * 255.0) for x in a.tolist()])
    assert compiled_total(a * 1e6) == sum(round(x) for x in (a * 1e6).tolist())
    for position in (0, 7, 150, 299):
        b = a.copy()
        b[position] = 1e300
        for func in (compiled_scaled, compiled_total):
            with pytest.raises(OverflowError, match="beyond int64"):
                func(b)
        nan_at = position // 2 if position else 1
        b[nan_at] = math.nan
        expected = ValueError if nan_at < position else OverflowError
        for func in (compiled_scaled, compiled_total):
            with pytest.raises(expected):
                func(b)


def test_error_model_numpy_saturates_float_to_int():
    """Under error_model='numpy' (as in @vectorize kernels) the conversion never raises: it
    saturates at int64, NaN giving 0."""
    compiled = ember.njit(lambda x: int(x), error_model="numpy")
    assert compiled(1e300) == INT64_MAX
    assert compiled(-1e300) == INT64_MIN
    assert compiled(12.9) == 12


# ---------------------------------------------------------------- uint64 with signed ints


def _floor_ops(a, b):
    return a // b, a % b, divmod(a, b)


def _edges(dtype) -> list:
    info = np.iinfo(dtype)
    values = {info.min, info.max, 0, 1, 2, 3, 7, info.max - 1, info.max // 3}
    if info.min < 0:
        values |= {-1, -2, -3, -7, info.min + 1}
    return [dtype(v) for v in sorted(values)]


def test_floor_division_and_modulo_of_uint64_and_signed_are_exact():
    """CPython's exact floor quotient and remainder, wrapped to int64 only where they do not
    fit it (the uint64 was wrapped to int64 first: `np.uint64(2**64 - 2) // 3` was -1 and
    `% -3` was -2, Numba's values); division by zero raises ZeroDivisionError."""
    compiled = ember.njit(_floor_ops)
    signed = [np.int8, np.int16, np.int32, np.int64, np.bool_]
    checked = 0
    for other in signed:
        others = _edges(other) if other is not np.bool_ else [np.True_, np.False_]
        for u in _edges(np.uint64):
            for s in others:
                for a, b in ((u, s), (s, u)):
                    if int(b) == 0:
                        with pytest.raises(ZeroDivisionError):
                            compiled(a, b)
                        continue
                    q, r = divmod(int(a), int(b))
                    expected = (_wrap_int64(q), _wrap_int64(r), (_wrap_int64(q), _wrap_int64(r)))
                    assert compiled(a, b) == expected, (a, b)
                    checked += 1
    assert checked > 300


def test_floor_division_of_uint64_by_literals_and_in_place():
    def by_literals(u):
        return u // -3, u % -3, u // 3, u % 7, divmod(u, -2)

    def in_place(u, s):
        u //= s
        return u

    compiled = ember.njit(by_literals)
    for u in (U64_MAX, U64_MAX - 1, 2**63, 5, 0):
        expected = tuple(
            tuple(_wrap_int64(x) for x in v) if isinstance(v, tuple) else _wrap_int64(v)
            for v in by_literals(u)
        )
        assert compiled(np.uint64(u)) == expected, u
    assert ember.njit(in_place)(np.uint64(U64_MAX - 1), np.int64(-3)) == (U64_MAX - 1) // -3


# ---------------------------------------------------------------- methods of ints and floats


def _int_methods(a):
    return a.bit_count(), a.bit_length(), a.numerator, a.denominator, a.as_integer_ratio()


def test_int_bit_count_numerator_denominator_and_ratio():
    compiled = ember.njit(_int_methods)
    for dtype in (np.int8, np.uint8, np.int32, np.int64, np.uint64):
        for value in _edges(dtype):
            exact = int(value)
            assert compiled(value) == _int_methods(exact), (dtype, value)
    for value in (0, 5, -5, 12345, -(2**62), INT64_MAX, INT64_MIN):
        assert compiled(value) == _int_methods(value), value


def test_float_as_integer_ratio_is_exact_or_overflows():
    """CPython's exact ratio (a power-of-two denominator) where both parts fit int64;
    OverflowError where CPython's big ints would not; CPython's errors for NaN and infinity."""
    compiled = ember.njit(lambda x: x.as_integer_ratio())
    fits = [0.0, -0.0, 0.5, 0.1, -2.5, 1e18, 2.0**62, 3.0 * 2**61, 2.0**-62, 1.0 / 3.0, -(2.0**63)]
    for x in fits:
        assert compiled(x) == x.as_integer_ratio(), x
    assert compiled(np.float32(0.1)) == float(np.float32(0.1)).as_integer_ratio()
    for x in (2.0**63, 1e19, -1e300, 1e-20, 5e-324, 2.0**-63):
        numerator, denominator = x.as_integer_ratio()
        assert not (abs(numerator) <= INT64_MAX and denominator <= INT64_MAX)
        with pytest.raises(OverflowError, match="does not fit int64"):
            compiled(x)
    with pytest.raises(ValueError, match="cannot convert NaN to integer ratio"):
        compiled(math.nan)
    with pytest.raises(OverflowError, match="cannot convert Infinity to integer ratio"):
        compiled(-math.inf)


def test_compile_time_get_string_data_reads_cpythons_string():
    """numba.cpython.unicode's helper (test modules and extensions import it): the code
    points' bytes at the narrowest kind, and the hash CPython caches once hash() ran."""
    from ember.cpython.unicode import compile_time_get_string_data

    text = "".join(["ab", "c"])  # built at run time: no hash cached yet
    assert compile_time_get_string_data(text) == (b"abc", 3, 1, True, -1)
    expected_hash = hash(text)
    assert compile_time_get_string_data(text)[-1] == expected_hash
    data, length, kind, is_ascii, _ = compile_time_get_string_data("é眼")
    assert (data, length, kind, is_ascii) == ("é眼".encode("utf-16-le"), 2, 2, False)
    assert compile_time_get_string_data("\U0001f600")[:3] == (
        "\U0001f600".encode("utf-32-le"),
        1,
        4,
    )


def test_float32_math_overflows_only_where_cpythons_double_does():
    """math.exp/expm1/exp2/cosh/sinh of a float32 compute in float32 (Numba's type): between
    float32's overflow and double's, the result is inf (Numba's value; CPython's finite double
    does not fit), and OverflowError only where CPython's double overflows too."""
    for name in ("exp", "expm1", "exp2", "cosh", "sinh"):
        compiled = ember.njit(eval(f"lambda x: math.{name}(x)"))  # noqa: S307 - a fixed name
        for x in (1.0, -3.5, 300.7, 720.0, -720.0, 1030.0, math.inf, -math.inf):
            x32 = np.float32(x)
            try:
                with np.errstate(over="ignore"):  # inf beyond float32
                    expected = np.float32(getattr(math, name)(float(x32)))
            except OverflowError:
                with pytest.raises(OverflowError, match="math range error"):
                    compiled(x32)
                continue
            got = compiled(x32)
            assert isinstance(got, float)
            assert got == pytest.approx(float(expected), rel=1e-6), (name, x)
