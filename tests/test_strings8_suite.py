"""Number formatting's ASCII fast path (format specs of ints and floats with a width, sign,
grouping or alternate form; printf-style %-formatting) against CPython's own text, on many
values per compiled function: int64's extremes, zero, negatives, NaN, infinities, -0.0,
subnormals, 1e16."""

# ruff: noqa: UP031, UP032 - the %-formatting and str.format under test are the point

import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ember import njit
from tests.oracle import assert_frees_all

INT_SPECS = (
    "5d", ",", "08x", "_b", "#o", "#X", "+d", " d", "<6", "^7", "*>9,", "=+10", "010,", "_x",
    "#010b", "n", "-^11_", "012_", "0=+12,d", "#_o", "é^9", "#x", "c", "b", "o", "X",
)  # fmt: skip
FLOAT_SPECS = (
    "10.4g", ">12.3e", ",", "_", "012,.2f", "+.3%", " 10", "<15.6G", "^+14,.1f", "=12.3E",
    "10.0", ".3", "015", "+,", "#10.0f", "010.2e", "x^12,.2f", "-<9g", "020,", "08.3",
    "€>11.2f", "%", ".0%", "#.3g", "12", "F", "+", "#21", "#_.9", "+#.10", "#", "€^#12.3",
)  # fmt: skip


def _formatter(specs):
    """A jitted function returning the tuple of `format(x, spec)` for each spec (one compile)."""
    body = ", ".join(f"format(x, {spec!r})" for spec in specs)
    namespace = {}
    exec(f"def all_specs(x):\n    return ({body},)\n", namespace)  # noqa: S102
    return njit(namespace["all_specs"])


_format_ints = _formatter([s for s in INT_SPECS if s != "c"])
_format_floats = _formatter(FLOAT_SPECS)

# a loaded machine draws slowly; a few dozen lists of values per test is plenty
_SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])

INT64 = st.integers(-(2**63), 2**63 - 1)
FLOATS = st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True)

INT_CORNERS = [0, 1, -1, 7, -7, 999, 1000, -1000, 123456789, 2**63 - 1, -(2**63), -(2**63) + 1]
FLOAT_CORNERS = [
    0.0, -0.0, math.nan, -math.nan, math.inf, -math.inf, 1e16, -1e16, 1e22, 5e-324, -5e-324,
    2.2250738585072014e-308, 1.7976931348623157e308, 0.5, 1234567.891, -0.0001234, 9.9999,
    999999.5, 0.1, 1e-5, 123456789012345.6,
]  # fmt: skip


def _check_ints(values):
    specs = [s for s in INT_SPECS if s != "c"]
    for value in values:
        expected = tuple(format(value, spec) for spec in specs)
        assert _format_ints(value) == expected, value


def _check_floats(values):
    for value in values:
        expected = tuple(format(value, spec) for spec in FLOAT_SPECS)
        assert _format_floats(value) == expected, value


def test_int_specs_corners():
    _check_ints(INT_CORNERS)


@_SETTINGS
@given(st.lists(INT64, min_size=1, max_size=20))
def test_int_specs_match_cpython(values):
    _check_ints(values)


def test_float_specs_corners():
    _check_floats(FLOAT_CORNERS)


@_SETTINGS
@given(st.lists(FLOATS, min_size=1, max_size=20))
def test_float_specs_match_cpython(values):
    _check_floats(values)


def test_specs_of_other_number_types():
    """uint64 above int64's range, bool, and an int with a float spec."""

    @njit
    def formats(u, b, n):
        return (
            format(u, ",") + format(u, "#x") + format(u, ">25_b") + format(u, "+d"),
            format(b, "5d") + format(b, "+"),
            format(n, "10.3f") + format(n, "+,.2e"),
        )

    for u, b, n in ((2**64 - 1, True, -(2**63)), (0, False, 12345), (2**63, True, 0)):
        expected = (
            format(u, ",") + format(u, "#x") + format(u, ">25_b") + format(u, "+d"),
            format(b, "5d") + format(b, "+"),
            format(n, "10.3f") + format(n, "+,.2e"),
        )
        assert formats(np.uint64(u), b, n) == expected


def test_fstrings_and_str_format_of_numbers():
    @njit
    def texts(n, x):
        return f"{n:5d}|{n:,}|{n:08x}|{x:10.4g}|{x:,}", "{:>12.3e}|{:+,}".format(x, n)

    for n, x in ((42, 3.14159), (-1234567, -1234567.5), (0, 0.0), (2**63 - 1, 1e16)):
        expected = f"{n:5d}|{n:,}|{n:08x}|{x:10.4g}|{x:,}", "{:>12.3e}|{:+,}".format(x, n)
        assert texts(n, x) == expected


PERCENT_INT = "%d %i %u|%5d|%-4x|%+.3d|%#o|%05d|% d|%X|%-6i|%#010x|%+05d|%.0d|%3.5o"
PERCENT_FLOAT = "%e %10.3f %-+8.2g %G %#.0f %05.1f % .2E %F|%d|%x"


@njit
def _percent_ints(n):
    return PERCENT_INT % (n, n, n, n, n, n, n, n, n, n, n, n, n, n, n)


@njit
def _percent_floats(x, n):
    return PERCENT_FLOAT % (x, x, x, x, x, x, x, x, n, n)


@njit
def _percent_mixed(a, b, c):
    return "%d %s %.2f" % (a, b, c)


@_SETTINGS
@given(st.lists(INT64, min_size=1, max_size=20))
def test_percent_ints_match_cpython(values):
    for n in values + INT_CORNERS:
        assert _percent_ints(n) == PERCENT_INT % ((n,) * 15), n


@_SETTINGS
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=20))
def test_percent_floats_match_cpython(values):
    for x in values + [v for v in FLOAT_CORNERS if math.isfinite(v)]:
        n = int(x) if abs(x) < 2**63 else 5
        assert _percent_floats(x, n) == PERCENT_FLOAT % (x, x, x, x, x, x, x, x, n, n), x


def test_percent_mixed_and_bool():
    for a, b, c in ((3, "ab", 2.5), (-(2**63), "é", -0.0), (0, "", 1e16)):
        assert _percent_mixed(a, b, c) == "%d %s %.2f" % (a, b, c)

    @njit
    def of_bool(t, u):
        return "%d|%s|%5i|%u" % (t, t, t, u)

    assert of_bool(True, np.uint64(2**64 - 1)) == "%d|%s|%5i|%u" % (True, True, True, 2**64 - 1)


def test_int_spec_c_and_overflow():
    @njit
    def char(n):
        return format(n, "c") + format(n, "^5c")

    assert char(233) == format(233, "c") + format(233, "^5c")
    try:
        char(-1)
    except OverflowError:
        pass
    else:
        raise AssertionError("format(-1, 'c') must raise OverflowError")


def test_formatting_frees_all():
    assert_frees_all(_percent_mixed, lambda: -12, lambda: "x", lambda: 1.5)
    assert_frees_all(_format_floats, lambda: -1234.5)


FLOAT_TEXTS = [
    "1.5e3", " -0.0 ", "+inf", "-Infinity", "nAn", "-nan", "1_000.000_1", "\u0663.\u0661\u0664",
    "\u00a012\u2003", "1e-400", "1e400", ".5", "5.", "0x10", "1__0", "_1", "1_", "", " ", "e5",
    "1e", "1.e+5", "infinit", "inf inity", "1\u20002", "١٢e٣", "-.e1", "+-1", "1.5\x00", "٣x",
]  # fmt: skip


def test_float_of_str_matches_cpython():
    @njit
    def parse(s):
        return float(s)

    for text in FLOAT_TEXTS:
        try:
            expected = float(text)
        except ValueError as error:
            try:
                parse(text)
            except ValueError as raised:
                assert str(raised) == str(error), text
            else:
                raise AssertionError(f"float({text!r}) must raise") from None
            continue
        got = parse(text)
        assert math.copysign(1.0, got) == math.copysign(1.0, expected), text
        assert got == expected or (math.isnan(got) and math.isnan(expected)), text
