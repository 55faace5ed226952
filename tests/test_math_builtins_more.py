"""math.frexp/ldexp/modf/ulp/nextafter/remainder/hypot/dist and cmath.isclose, builtins
(enumerate's start keyword, min/max with key= and default=, reversed strings and tuples, range
indexing) and np.frombuffer over bytes: differential against CPython and NumPy, bit for bit."""

from __future__ import annotations

import cmath
import math
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import njit

SPECIAL = [0.0, -0.0, 1.0, -1.5, 0.1, 2.5, -2.5, 1e300, -1e308, 1.7976931348623157e308, 5e-324,
           -5e-324, 2.2250738585072014e-308, 1e-310, math.inf, -math.inf, math.nan, 3.0, 1e16,
           4503599627370495.5]  # fmt: skip
floats = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(SPECIAL)


def bits(value):
    """A float's bits (so -0.0 differs from 0.0 and a NaN equals a NaN), recursively."""
    if isinstance(value, tuple):
        return tuple(bits(v) for v in value)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else struct.pack("<d", value)
    return (type(value).__name__, value)


def outcome(function, *args):
    """What `function(*args)` returns (as bits) or raises (class and message)."""
    try:
        return bits(function(*args))
    except (ValueError, OverflowError, IndexError, TypeError) as error:
        return type(error), str(error)


_compiled: dict = {}


def same(py_func, *args):
    """ember's outcome equals CPython's (one dispatcher per function, shared by the tests)."""
    if py_func not in _compiled:
        _compiled[py_func] = njit(py_func)
    assert outcome(_compiled[py_func], *args) == outcome(py_func, *args), args


def _frexp(x):
    return math.frexp(x)


def _ldexp(x, i):
    return math.ldexp(x, i)


def _modf(x):
    return math.modf(x)


def _ulp(x):
    return math.ulp(x)


def _nextafter(x, y):
    return math.nextafter(x, y)


def _remainder(x, y):
    return math.remainder(x, y)


def _hypot2(x, y):
    return math.hypot(x, y)


def _hypot3(x, y, z):
    return math.hypot(x, y, z)


def _dist(p, q):
    return math.dist(p, q)


@pytest.mark.parametrize("function", [_frexp, _modf, _ulp])
@pytest.mark.parametrize("x", SPECIAL)
def test_unary_specials(function, x):
    same(function, x)


@settings(max_examples=25, deadline=None)
@given(floats)
def test_unary_random(x):
    for function in (_frexp, _modf, _ulp):
        same(function, x)


@pytest.mark.parametrize("x", [7, 0, -3, True])
def test_unary_integers(x):
    for function in (_frexp, _modf, _ulp):
        same(function, x)


@pytest.mark.parametrize("x", SPECIAL)
@pytest.mark.parametrize("i", [0, 1, -1, 52, -1074, -1075, 1023, 1024, 2000, -2000, 2**40,
                               -(2**40)])  # fmt: skip
def test_ldexp(x, i):
    same(_ldexp, x, i)


def test_ldexp_rejects_a_float_exponent():
    with pytest.raises(Exception, match="integer"):
        njit(_ldexp)(1.0, 2.0)


@pytest.mark.parametrize("function", [_nextafter, _remainder, _hypot2])
def test_binary_specials(function):
    for x in SPECIAL:
        for y in SPECIAL:
            same(function, x, y)


@settings(max_examples=25, deadline=None)
@given(floats, floats)
def test_binary_random(x, y):
    for function in (_nextafter, _remainder, _hypot2):
        same(function, x, y)


@settings(max_examples=25, deadline=None)
@given(st.floats(-1e6, 1e6), st.floats(-1e6, 1e6), st.floats(-1e6, 1e6))
def test_hypot3_random(x, y, z):
    same(_hypot3, x, y, z)


def test_hypot_many_arities():
    for x, y, z in [(1.0, 2.0, 2.0), (math.inf, math.nan, 1.0), (math.nan, 1.0, 2.0),
                    (5e-324, 1e-310, 0.0), (1e308, 1e308, 1e308), (-0.0, 0.0, -0.0), (3, 4, 12)]:  # fmt: skip
        same(_hypot3, x, y, z)
    same(lambda: math.hypot(), )
    same(lambda x: math.hypot(x), -2.5)
    same(lambda a, b, c, d: math.hypot(a, b, c, d), 1, 2.5, -3.0, 7)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(-1e200, 1e200), min_size=3, max_size=3), st.lists(
    st.floats(-1e200, 1e200), min_size=3, max_size=3))
def test_dist_random(p, q):
    same(_dist, tuple(p), tuple(q))


def test_dist_shapes_and_errors():
    same(_dist, (1.0, 2.0), (4.0, 6.0))
    same(_dist, (1, 2), (4.5, 6.5))
    same(_dist, (1.0,), (-1.0,))
    same(_dist, (math.inf, 0.0), (math.inf, 0.0))
    assert njit(_dist)(np.array([0.0, 3.0]), np.array([4.0, 0.0])) == 5.0
    with pytest.raises(ValueError, match="same number of dimensions"):
        njit(_dist)(np.array([0.0, 3.0]), np.array([4.0]))


def _cisclose(a, b):
    return cmath.isclose(a, b)


def _cisclose_tol(a, b, rel, absolute):
    return cmath.isclose(a, b, rel_tol=rel, abs_tol=absolute)


@pytest.mark.parametrize(
    "a, b",
    [(1 + 1j, 1 + 1j), (1 + 1j, 1 + 1.0000000001j), (1 + 1j, 1 + 1.001j),
     (complex(math.inf, 0), complex(math.inf, 0)), (complex(math.inf, 0), 1j),
     (complex(math.nan, 0), complex(math.nan, 0)), (0j, 1e-300j), (2, 2 + 0j)],
)  # fmt: skip
def test_cmath_isclose(a, b):
    same(_cisclose, a, b)
    same(_cisclose_tol, a, b, 1e-3, 0.0)
    same(_cisclose_tol, a, b, 0.0, 1e-2)
    same(_cisclose_tol, a, b, -1.0, 0.0)
