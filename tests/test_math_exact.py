"""math.isclose/fsum/prod/comb/perm/factorial/gcd/lcm/isqrt, int.bit_length, float.is_integer
and the builtins sum/any/all over arrays and ranges, against CPython on the same inputs.

Compiled integers are 64-bit: where CPython's exact result exceeds int64, ember must raise
OverflowError (never wrap)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import njit
from tests.oracle import same

INT64_MAX = 2**63 - 1


def _run(func, *args):
    try:
        return func(*args), None
    except (ValueError, OverflowError) as error:
        return None, type(error)


def check(compiled, *args):
    """Equal to CPython, or OverflowError exactly when CPython's integer exceeds int64."""
    expected, expected_error = _run(compiled.py_func, *args)
    result, error = _run(compiled, *args)
    if isinstance(expected, int) and not isinstance(expected, bool) and expected > INT64_MAX:
        assert error is OverflowError, (args, result)
        return
    assert error == expected_error, (args, error, expected_error)
    if expected_error is None:
        assert same(result, expected), (args, result, expected)


factorial = njit(lambda n: math.factorial(n))
comb = njit(lambda n, k: math.comb(n, k))
perm = njit(lambda n, k: math.perm(n, k))
perm_all = njit(lambda n: math.perm(n))
gcd = njit(lambda a, b: math.gcd(a, b))
lcm = njit(lambda a, b: math.lcm(a, b))
isqrt = njit(lambda n: math.isqrt(n))
bit_length = njit(lambda n: n.bit_length())
is_integer = njit(lambda x: x.is_integer())
isclose = njit(lambda a, b: math.isclose(a, b))
isclose_tol = njit(lambda a, b, r, t: math.isclose(a, b, rel_tol=r, abs_tol=t))
fsum = njit(lambda xs: math.fsum(xs))
prod = njit(lambda xs: math.prod(xs))
fsum_range = njit(lambda n: math.fsum(range(n)))


def test_factorial_comb_perm_edges():
    for n in range(-1, 23):
        check(factorial, n)
        check(perm_all, n)
    for n in (-1, 0, 5, 30, 62, 66, 67, 68, 100):
        for k in (-1, 0, 1, 3, 10, 31, 34, 50, 70):
            check(comb, n, k)
            check(perm, n, k)


def test_gcd_lcm_isqrt_bit_length_edges():
    for a, b in [(12, 8), (-12, 8), (0, 0), (0, 5), (7, -21), (2**62, 6), (-(2**63) + 1, 3)]:
        check(gcd, a, b)
        check(lcm, a, b)
    edges = [0, 1, 15, 16, 17, 2**52 + 1, (2**26 + 1) ** 2 - 1, INT64_MAX, 3037000499**2]
    for n in edges + [-1, 3037000499**2 - 1]:
        check(isqrt, n)
        check(bit_length, n)
        check(bit_length, -n)
    check(bit_length, -(2**63))


def test_is_integer_and_isclose():
    for x in [1.0, 1.5, -2.0, math.inf, -math.inf, math.nan, 1e300, -0.0, 2.0**53 + 2]:
        check(is_integer, x)
    pairs = [(1.0, 1.0 + 1e-10), (1.0, 1.1), (math.inf, math.inf), (0.0, 1e-300), (math.nan, 1.0)]
    for a, b in pairs:
        check(isclose, a, b)
        check(isclose_tol, a, b, 0.2, 1e-3)
    check(isclose_tol, 1.0, 1.0, -1.0, 0.0)


def test_fsum_is_exactly_rounded():
    rng = np.random.default_rng(1)
    samples = [
        np.array([0.1] * 10),
        np.array([1e100, 1.0, -1e100, 1e-100]),
        np.array([], np.float64),
        np.array([math.inf, 1.0]),
        np.array([math.inf, -math.inf]),
        np.array([math.nan, 1.0]),
        rng.normal(size=1000) * 1e10,
        np.array([2.0**53, 1.0, 1.0, -(2.0**53)]),
    ]
    for xs in samples:
        check(fsum, xs)
    check(fsum_range, 100)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), max_size=40))
def test_fsum_hypothesis(values):
    check(fsum, np.array(values, np.float64))


@settings(max_examples=80, deadline=None)
@given(st.integers(-(2**63) + 1, INT64_MAX), st.integers(-(2**63) + 1, INT64_MAX))
def test_gcd_lcm_hypothesis(a, b):
    check(gcd, a, b)
    check(lcm, a, b)


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 200), st.integers(0, 200))
def test_comb_perm_hypothesis(n, k):
    check(comb, n, k)
    check(perm, n, k)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, INT64_MAX))
def test_isqrt_hypothesis(n):
    check(isqrt, n)


def test_prod_of_an_array():
    for xs in (np.array([1.5, -2.0, 3.0]), np.array([], np.float64), np.arange(1, 8)):
        expected = prod.py_func(xs)
        assert same(prod(xs), float(expected) if xs.dtype.kind == "f" else int(expected))


@pytest.mark.parametrize("values", [np.linspace(-0.5, 2, 5), np.arange(4), np.array([], float)])
def test_sum_any_all_over_arrays_and_ranges(values):
    @njit
    def summary(a, n):
        return sum(a), sum(a, 1.5), any(a > 1), all(a > -1), sum(range(n)), any(range(n))

    expected = [x.item() if isinstance(x, np.generic) else x for x in summary.py_func(values, 4)]
    if values.dtype.kind == "f":  # the result type is static: sum of no floats is 0.0
        expected[0] = float(expected[0])
    assert same(summary(values, 4), tuple(expected))
