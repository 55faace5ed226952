"""Where Numba's semantics differ from CPython's, ember follows Numba (`import ember as numba`
must run Numba programs): `~` on booleans, float32 ** int, mixed-signedness integers, the
loop a vectorize ufunc picks, recursion through None, typed-container stores, np.append.

Expected values come from CPython/NumPy where they agree with Numba, or are worked by hand
from Numba's documented rule (each case says which); numba 0.68 gave the same on each.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ember import njit, types, vectorize
from ember.errors import NumbaTypeSafetyWarning
from ember.typed import Dict, List

# ---------------------------------------------------------------------------- ~ on booleans


def invert(b):
    return ~b


@pytest.mark.parametrize("value", [True, False, np.bool_(True), np.bool_(False)])
def test_invert_of_a_bool_is_logical_not(value):
    # NumPy's ~ on np.bool_ is logical not, and Numba applies it to Python bools too
    assert njit(invert)(value) == (not value)
    assert njit(invert)(value) == np.invert(np.bool_(value))


def test_invert_of_isnan_filters_nans_as_in_the_scipy_nanmean_program():
    @njit
    def nanmean(values):
        total, count = 0.0, 0
        for v in values:
            if ~np.isnan(v):
                total += v
                count += 1
        return total / count

    values = np.array([1.0, np.nan, 3.0, np.nan, 8.0])
    assert nanmean(values) == np.nanmean(values)


def test_invert_of_a_bool_array_is_elementwise_not():
    mask = np.array([True, False, False, True])
    np.testing.assert_array_equal(njit(invert)(mask), np.logical_not(mask))


def test_invert_of_integers_is_still_bitwise():
    for value in (0, 5, -7, np.int8(3), np.uint8(3)):
        assert njit(invert)(value) == ~value


# ---------------------------------------------------------------------------- float32 ** int


def test_float32_to_a_literal_int_power_stays_float32():
    @njit
    def squared(x):
        return np.array([x**2])

    result = squared(np.float32(1.5))
    assert result.dtype == np.float32 and result[0] == np.float32(2.25)


@pytest.mark.parametrize("exponent", [2, 3, -2, np.int32(5), np.int64(3)])
def test_float32_to_an_int_variable_stays_float32(exponent):
    @njit
    def power(x, n):
        return np.array([x**n])

    base = np.float32(1.1)
    result = power(base, exponent)
    assert result.dtype == np.float32
    # computed in double and rounded once to float32 (at least as exact as Numba's float32)
    assert result[0] == np.float32(float(base) ** int(exponent))


def test_float32_overflowing_power_is_inf_as_numpy():
    with np.errstate(over="ignore"):
        expected = np.float32(3e38) ** 2
    assert njit(lambda x: x**2)(np.float32(3e38)) == expected == np.inf


def test_other_float32_arithmetic_with_ints_follows_numpy_promotion():
    # Numba and NumPy 2 agree here: float32 with a (Python or int64) integer is float64
    as_arrays = [
        njit(lambda x: np.array([x * 2])),
        njit(lambda x: np.array([x + 1])),
        njit(lambda x: np.array([x / 2])),
        njit(lambda x: np.array([x**2.0])),
    ]
    for jitted in as_arrays:
        assert jitted(np.float32(1.5)).dtype == np.float64
    assert njit(lambda x: x**2)(1.5) == 2.25


# ---------------------------------------------------------------------------- mixed signedness


def _wrapped_int64(value: int) -> int:
    return (value + 2**63) % 2**64 - 2**63


OPERATORS = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
    "&": lambda a, b: a & b,
    "|": lambda a, b: a | b,
    "^": lambda a, b: a ^ b,
}


@pytest.mark.parametrize("symbol", list(OPERATORS))
@pytest.mark.parametrize("unsigned", [np.uint8, np.uint32, np.uint64])
@pytest.mark.parametrize("signed", [np.int8, np.int64])
def test_unsigned_with_signed_integers_compute_in_int64(symbol, unsigned, signed):
    # Numba's scalar rule: any unsigned with any signed integer gives int64 (Python ints'
    # results, wrapped to 64 bits); NumPy 2 would give float64 for uint64 with int64
    op = OPERATORS[symbol]
    jitted = njit(op)
    for a, b in ((unsigned(7), signed(3)), (signed(-7), unsigned(3))):
        result = jitted(a, b)
        assert type(result) is int
        assert result == _wrapped_int64(op(int(a), int(b)))


def test_uint64_minus_int_literal_and_the_minhash_shift():
    assert njit(lambda x, k: x - k)(np.uint64(7), 3) == 4
    assert njit(lambda x, k: x - k)(np.uint64(2), 3) == -1  # int64, as Numba

    prime = np.uint64(61)

    @njit
    def shifted(value):
        return value >> (prime - 3)

    assert shifted(np.uint64(2**62)) == 2**62 >> 58


def test_unsigned_with_unsigned_stays_uint64():
    result = njit(lambda a, b: a - b)(np.uint8(2), np.uint32(3))
    assert result == 2**64 - 1


def test_uint64_compared_with_a_signed_integer_is_exact_for_large_values():
    # the comparison's answer is Python's (Numba would wrap 2**63 to a negative int64)
    assert njit(lambda x: x > -1)(np.uint64(2**63)) is True
    assert njit(lambda x, y: x < y)(np.uint64(3), np.int64(-2)) is False


# ---------------------------------------------------------------------------- vectorize loops


def add_one(x):
    return x + 1


def test_vectorize_picks_the_first_loop_the_inputs_cast_to_safely():
    # NumPy's legacy search, which Numba's DUFunc gets: f4 casts safely to f8, listed first
    f = vectorize(["f8(f8)", "f4(f4)"])(add_one)
    assert f(np.ones(3, np.float32)).dtype == np.float64
    assert np.asarray(f(np.float32(1.0))).dtype == np.float64
    assert njit(lambda a: f(a))(np.ones(3, np.float32)).dtype == np.float64
    g = vectorize(["f4(f4)", "f8(f8)"])(add_one)
    assert g(np.ones(3, np.float32)).dtype == np.float32
    assert g(np.ones(3, np.int32)).dtype == np.float64  # int32 -> f4 is not safe
    h = vectorize(["i8(i8)", "f8(f8)"])(add_one)
    assert h(np.ones(3, np.int32)).dtype == np.int64
    assert h(np.ones(3, np.float32)).dtype == np.float64


# ---------------------------------------------------------------------------- recursion


@njit
def orbital(i, p):
    if i < 0:
        return 0
    elif i == 0:
        return 1
    elif i > 5:
        if i == 7:
            return p * orbital(i - 1, p)
    else:
        return p * orbital(i - 1, p)


def test_recursion_returning_int_float_and_none_is_optional_float():
    # Numba types the paths int, float and None as Optional(float64): ints come back as
    # floats, p ** i for 1 <= i <= 5, None past 5 (hand-worked from the code)
    expected = {-1: 0.0, 0: 1.0, 1: 0.5, 3: 0.125, 5: 0.5**5, 6: None, 8: None}
    for i, value in expected.items():
        result = orbital(i, 0.5)
        assert result == value and type(result) is type(value), i


# ---------------------------------------------------------------------------- typed containers


def test_int_stored_into_an_int32_dict_is_cast_with_numbas_warning():
    d = Dict.empty(types.unicode_type, types.int32)

    @njit
    def put(d):
        d["123"] = 123
        d["x"] = np.int64(-5)
        return d["123"] + d["x"]

    with pytest.warns(NumbaTypeSafetyWarning):
        assert put(d) == 118
    assert dict(d) == {"123": 123, "x": -5}


def test_int_keys_and_list_items_are_cast_too():
    keys = Dict.empty(types.int32, types.float64)
    items = List.empty_list(types.int32)

    @njit
    def fill(keys, items):
        keys[7] = 1.5
        items.append(5)
        items.append(np.int64(2**32 + 6))  # wraps to int32, as a cast does
        return keys[7]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NumbaTypeSafetyWarning)
        assert fill(keys, items) == 1.5
    assert dict(keys) == {7: 1.5}
    assert list(items) == [5, int(np.int64(2**32 + 6).astype(np.int32))]


def test_a_float_is_not_truncated_into_an_int_list():
    @njit
    def append_float(xs):
        xs.append(2.5)
        return xs

    with pytest.raises(Exception, match="cannot store a float64"):
        append_float([1, 2])


def test_empty_containers_from_numpy_scalar_classes():
    @njit
    def build():
        d = Dict.empty(key_type=np.int64, value_type=np.float64)
        d[1] = 2.0
        xs = List.empty_list(np.float64)
        xs.append(1.25)
        return d[1] + xs[0]

    assert build() == 3.25


# ---------------------------------------------------------------------------- np.append


@pytest.mark.parametrize(
    "arr, values",
    [
        ([0], np.array([1, 2])),
        ((1.5, 2.0), [3]),
        (1, np.arange(3.0)),
        (np.arange(3), [7, 8]),
        (np.arange(3), (7.5, 8)),
    ],
)
def test_append_of_array_likes_as_numpy(arr, values):
    result = njit(lambda a, v: np.append(a, v))(arr, values)
    expected = np.append(arr, values)
    assert result.dtype == expected.dtype
    np.testing.assert_array_equal(result, expected)


def test_append_of_a_list_display_and_an_array():
    np.testing.assert_array_equal(
        njit(lambda: np.append([0], np.array([1, 2])))(), np.append([0], np.array([1, 2]))
    )


@pytest.mark.parametrize("value", [np.float64(2.5), np.int32(-7), np.uint8(200), np.bool_(True)])
def test_scalar_item_is_the_value(value):
    # NumPy's `.item()` of a scalar: the same value as a Python number.
    expected = value.item()
    result = njit(lambda x: x.item())(value)
    assert result == expected and type(result) is type(expected)
