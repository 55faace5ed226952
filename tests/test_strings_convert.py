"""Conversions between strings and numbers in nopython mode (ember/library/strings/convert.py):
`str(int)`, `str(float)`, `str(bool)`, `int(str)`, `int(str, base)`, `float(str)`, checked
against CPython running the same function."""

from __future__ import annotations

import math
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strings_oracle import assert_no_leak, check

from ember import njit


@njit
def to_text(x):
    return str(x)


@njit
def to_int(s):
    return int(s)


@njit
def to_int_base(s, base):
    return int(s, base)


@njit
def to_float(s):
    return float(s)


@settings(max_examples=300, deadline=None)
@given(st.integers(-(2**63), 2**63 - 1))
def test_str_of_int(x):
    check(to_text, x)


@pytest.mark.parametrize("x", [True, False])
def test_str_of_bool(x):
    check(to_text, x)


@settings(max_examples=500, deadline=None)
@given(st.floats(allow_nan=True, allow_infinity=True))
def test_str_of_float_is_cpythons_repr(x):
    check(to_text, x)


@pytest.mark.parametrize(
    "x",
    [0.0, -0.0, 0.1, 1e16, 1e15, 1e-4, 1e-5, 5e-324, 1.7976931348623157e308, 2.5e-7, 123.0],
)
def test_str_of_float_boundaries(x):
    check(to_text, x)


def test_str_of_random_bit_patterns():
    for seed in range(2000):
        (x,) = struct.unpack("<d", struct.pack("<Q", (seed * 0x9E3779B97F4A7C15) % 2**64))
        if math.isfinite(x):
            assert to_text(x) == repr(x)


@settings(max_examples=300, deadline=None)
@given(st.integers(-(2**63), 2**63 - 1), st.sampled_from(["", " ", "\t", "\u3000", "+"]))
def test_int_of_text(x, pad):
    check(to_int, f"{pad}{x}{pad.strip('+')}")


@pytest.mark.parametrize(
    "text",
    [
        "1_000",
        "_1",
        "1__0",
        "1_",
        "",
        " ",
        "abc",
        "+",
        "-",
        "٣٤",
        "1.5",
        "0x10",
        " -0 ",
        "00",
        "٣_٤",
    ],
)
def test_int_syntax(text):
    check(to_int, text)


def test_int_beyond_64_bits_raises_overflow():
    assert to_int("-9223372036854775808") == -(2**63)
    with pytest.raises(OverflowError):
        to_int("9223372036854775808")


@pytest.mark.parametrize(
    "text, base",
    [("ff", 16), ("0x1f", 16), ("0x1f", 0), ("0o17", 0), ("0b101", 0), ("777", 8), ("z", 36),
     ("Z", 36), ("012", 0), ("0", 0), ("000", 0), ("101", 2), ("12", 1), ("12", 37), ("2", 2),
     ("0x_f", 16), ("-0x10", 0)],
)  # fmt: skip
def test_int_with_base(text, base):
    check(to_int_base, text, base)


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False), st.sampled_from(["", " ", "\n"]))
def test_float_of_repr(x, pad):
    check(to_float, pad + repr(x) + pad)


@pytest.mark.parametrize(
    "text",
    ["1.5", " -2e3 ", "inf", "-Infinity", "+INF", "nan", "-NaN", "1_0.5", ".5", "5.", "e5", "1e",
     "abc", "", "0x10", "1_", "  12  ", "1e500", "1e-500", "1_000.000_1", "1._5", "١.٥", "infinit",
     "nan(1)", "1e+5", "1E5", "."],
)  # fmt: skip
def test_float_syntax(text):
    check(to_float, text)


def test_conversions_do_not_leak():
    assert_no_leak(to_text, 12345)
    assert_no_leak(to_text, 0.1)
    assert_no_leak(to_int, " 1_000 ")
    assert_no_leak(to_float, " 1_0.5e3 ")


def test_str_of_powers_of_two():
    # the decimal nearest a power of two may not read back (the interval below is narrower)
    for exponent in range(-1074, 1024):
        x = 2.0**exponent
        assert to_text(x) == repr(x)
        assert to_text(-x * 3) == repr(-x * 3) or not math.isfinite(x * 3)
