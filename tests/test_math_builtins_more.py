"""math.frexp/ldexp/modf/ulp/nextafter/remainder/hypot/dist and cmath.isclose, builtins
(enumerate's start keyword, min/max with key= and default=, reversed strings and tuples, range
indexing) and np.frombuffer over bytes: differential against CPython and NumPy, bit for bit."""

from __future__ import annotations

import cmath
import math
import struct

import numpy as np
import pytest
from hypothesis import example, given, settings
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


def compiled(py_func):
    """One dispatcher per function, shared by the tests (each compiles once per signature)."""
    if py_func not in _compiled:
        _compiled[py_func] = njit(py_func)
    return _compiled[py_func]


def same(py_func, *args):
    """ember's outcome equals CPython's."""
    assert outcome(compiled(py_func), *args) == outcome(py_func, *args), args


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
        compiled(_ldexp)(1.0, 2.0)


@pytest.mark.parametrize("function", [_nextafter, _remainder, _hypot2])
def test_binary_specials(function):
    for x in SPECIAL:
        for y in SPECIAL:
            same(function, x, y)


@settings(max_examples=25, deadline=None)
@given(floats, floats)
@example(1.3362205781951958e-282, 5e-324)  # an exact zero remainder keeps x's sign (+0.0)
@example(-1.3362205781951958e-282, 5e-324)
def test_binary_random(x, y):
    for function in (_nextafter, _remainder, _hypot2):
        same(function, x, y)


@settings(max_examples=25, deadline=None)
@given(st.floats(-1e6, 1e6), st.floats(-1e6, 1e6), st.floats(-1e6, 1e6))
def test_hypot3_random(x, y, z):
    same(_hypot3, x, y, z)


def test_hypot_many_arities():
    cases = [
        (1.0, 2.0, 2.0),
        (math.inf, math.nan, 1.0),
        (math.nan, 1.0, 2.0),
        (5e-324, 1e-310, 0.0),
        (1e308, 1e308, 1e308),
        (-0.0, 0.0, -0.0),
        (3, 4, 12),
    ]
    for x, y, z in cases:
        same(_hypot3, x, y, z)
    same(
        lambda: math.hypot(),
    )
    same(lambda x: math.hypot(x), -2.5)
    same(lambda a, b, c, d: math.hypot(a, b, c, d), 1, 2.5, -3.0, 7)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.floats(-1e200, 1e200), min_size=3, max_size=3),
    st.lists(st.floats(-1e200, 1e200), min_size=3, max_size=3),
)
def test_dist_random(p, q):
    same(_dist, tuple(p), tuple(q))


def test_dist_shapes_and_errors():
    same(_dist, (1.0, 2.0), (4.0, 6.0))
    same(_dist, (1, 2), (4.5, 6.5))
    same(_dist, (1.0,), (-1.0,))
    same(_dist, (math.inf, 0.0), (math.inf, 0.0))
    assert compiled(_dist)(np.array([0.0, 3.0]), np.array([4.0, 0.0])) == 5.0
    with pytest.raises(ValueError, match="same number of dimensions"):
        compiled(_dist)(np.array([0.0, 3.0]), np.array([4.0]))


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


# ---------------------------------------------------------------------------- builtins


def _enumerate_start(items, k):
    total = 0
    for i, x in enumerate(items, start=k):
        total += i * x
    return total


def _enumerate_start_zero(items):
    return [i for i, _ in enumerate(items, start=0)]


@pytest.mark.parametrize("items", [[1, 2, 3], (4, 5, 6, 7), np.arange(5)])
@pytest.mark.parametrize("k", [0, 3, -2])
def test_enumerate_start_keyword(items, k):
    assert compiled(_enumerate_start)(items, k) == _enumerate_start(items, k)
    assert compiled(_enumerate_start_zero)(items) == _enumerate_start_zero(items)


def _extremes_with_default(items, limit):
    kept = [x for x in items if x > limit]
    return min(kept, default=-1), max(kept, default=99), max(kept, key=abs, default=0)


def _extremes_by_key(items):
    return min(items, key=abs), max(items, key=abs), max(items, key=None)


def _longest(words):
    return max(words, key=len), min(words, key=len)


@pytest.mark.parametrize("items", [[3, -7, 2, 7, -3], [5], [-1, 1, -1]])
@pytest.mark.parametrize("limit", [-100, 0, 100])
def test_min_max_default_and_key(items, limit):
    assert compiled(_extremes_with_default)(items, limit) == _extremes_with_default(items, limit)
    assert compiled(_extremes_by_key)(items) == _extremes_by_key(items)
    assert compiled(_extremes_by_key)(tuple(items)) == _extremes_by_key(tuple(items))


def test_min_max_key_len_and_empty_errors():
    words = ["ab", "abc", "x", "xyz"]
    assert compiled(_longest)(words) == _longest(words)
    with pytest.raises(ValueError, match="min\\(\\) arg is an empty sequence"):
        compiled(_extremes_by_key)(np.empty(0))
    empty = np.empty(0)
    assert np.isnan(njit(lambda a: max(a, default=np.nan))(empty))


def _reverse_text(s):
    out = ""
    for c in reversed(s):
        out += c
    return out


def _reverse_tuple(t):
    return [x for x in reversed(t)]


@pytest.mark.parametrize("s", ["", "a", "hello", "héllo wörld"])
def test_reversed_string(s):
    assert compiled(_reverse_text)(s) == _reverse_text(s)


@pytest.mark.parametrize("t", [(1, 2, 3), (1.5,), (True, False)])
def test_reversed_tuple(t):
    assert compiled(_reverse_tuple)(t) == _reverse_tuple(t)


def _range_item(start, stop, step, i):
    return range(start, stop, step)[i]


def _range_slice(start, stop, step, a, b, c):
    r = range(start, stop, step)[a:b:c]
    return r.start, r.stop, r.step, len(r), [x for x in r]


RANGES = [(2, 10, 3), (10, -5, -4), (0, 0, 1), (5, 6, 1), (-3, 40, 7)]


@pytest.mark.parametrize("bounds", RANGES)
def test_range_indexing(bounds):
    length = len(range(*bounds))
    for i in range(-length - 2, length + 2):
        same(_range_item, *bounds, i)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(RANGES), st.integers(-12, 12), st.integers(-12, 12),
       st.integers(-4, 4).filter(bool))  # fmt: skip
def test_range_slicing(bounds, a, b, c):
    assert compiled(_range_slice)(*bounds, a, b, c) == _range_slice(*bounds, a, b, c)


def test_range_len():
    for bounds in RANGES:
        assert njit(lambda a, b, c: len(range(a, b, c)))(*bounds) == len(range(*bounds))


# ---------------------------------------------------------------------------- np.frombuffer


def _frombuffer_u8(b):
    return np.frombuffer(b, dtype=np.uint8)


def _frombuffer_full(b, count, offset):
    return np.frombuffer(b, np.int32, count, offset)


def _frombuffer_default(b):
    return np.frombuffer(b)


def _frombuffer_sum(b):
    return np.frombuffer(b, dtype=np.int16).sum()


@pytest.mark.parametrize("data", [b"", bytes(range(16)), b"\xff" * 24, bytes(range(250, 256)) * 4])
def test_frombuffer_views(data):
    got = compiled(_frombuffer_u8)(data)
    expected = np.frombuffer(data, dtype=np.uint8)
    assert got.dtype == expected.dtype and not got.flags.writeable
    np.testing.assert_array_equal(got, expected)
    if len(data) % 8 == 0:
        np.testing.assert_array_equal(compiled(_frombuffer_default)(data), np.frombuffer(data))
        assert compiled(_frombuffer_sum)(data) == np.frombuffer(data, dtype=np.int16).sum()


@pytest.mark.parametrize("count, offset", [(-1, 0), (2, 4), (-1, 4), (0, 16), (5, 0), (-1, 17),
                                           (-1, 3), (1, -1), (4, 0)])  # fmt: skip
def test_frombuffer_count_offset(count, offset):
    data = bytes(range(16))
    try:
        expected = np.frombuffer(data, np.int32, count, offset)
    except ValueError as error:
        with pytest.raises(ValueError, match=str(error).split(" (")[0]):
            compiled(_frombuffer_full)(data, count, offset)
        return
    np.testing.assert_array_equal(compiled(_frombuffer_full)(data, count, offset), expected)


def test_frombuffer_is_read_only():
    def write(b):
        np.frombuffer(b, dtype=np.uint8)[0] = 1

    with pytest.raises(Exception, match="read-only"):
        njit(write)(b"ab")


@settings(max_examples=25, deadline=None)
@given(st.integers(-1080, -1015), st.lists(st.floats(-1.0, 1.0), min_size=4, max_size=4))
def test_hypot_tiny_random(exponent, mantissas):
    """Subnormal and nearly subnormal inputs: CPython's two scaling paths."""
    values = [m * 2.0**exponent for m in mantissas]
    same(_hypot2, values[0], values[1])
    same(_hypot3, *values[:3])
    same(_dist, tuple(values[:2]), tuple(values[2:]))


def test_hypot_tiny_cases():
    same(_hypot2, -1.95286286357819e-309, 2.208195622542986e-309)
    same(_hypot2, -2.77868239344216e-309, 7.45696410104697e-310)
    same(_hypot3, 6.45819524e-315, 5.32876236e-316, 3.837214848898817e-309)


def test_nextafter_of_float32_steps_in_doubles():
    x, y = np.float32(1.0), np.float32(2.0)
    assert compiled(_nextafter)(x, y) == math.nextafter(float(x), float(y))


def _range_count_index(start, stop, step, value):
    r = range(start, stop, step)
    return r.count(value), r.index(value) if value in r else -1


@pytest.mark.parametrize("bounds", RANGES)
def test_range_count_and_index(bounds):
    for value in [-9, -5, -3, 0, 2, 4, 5, 6, 8, 10, 11, 39, 3.0, 4.5]:
        same(_range_count_index, *bounds, value)
    with pytest.raises(ValueError, match="not in range"):
        compiled(lambda v: range(5).index(v))(7)


@njit
def _extremes_by_lambda_or_default(n, fallback):
    xs = [(i * 7) % 5 for i in range(n)]
    return (
        max(xs, key=lambda x: -x, default=fallback),
        min(xs, key=lambda x: (x - 2) ** 2, default=fallback),
    )


@njit
def _largest_remainder_or_none(n):
    xs = [i for i in range(n)]
    return max(xs, key=lambda x: x % 3, default=None)


@pytest.mark.parametrize("n", [0, 1, 2, 5, 9])
def test_min_max_with_an_inner_lambda_key_and_a_default(n):
    xs = [(i * 7) % 5 for i in range(n)]
    expected = (
        max(xs, key=lambda x: -x, default=-1),
        min(xs, key=lambda x: (x - 2) ** 2, default=-1),
    )
    assert _extremes_by_lambda_or_default(n, -1) == expected
    assert _largest_remainder_or_none(n) == max(range(n), key=lambda x: x % 3, default=None)
