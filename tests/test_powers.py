"""A float raised to an integer: CPython's `**` correctly rounded (README: the C pow may differ
by one unit in the last place), with its signed zeros, NaN, OverflowError and ZeroDivisionError,
for constant and run-time exponents; under fastmath, the multiplications Numba uses, within a
few units in the last place."""

import math
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import njit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools.fuzzing.reference import correctly_rounded_power, square_root_power  # noqa: E402

CONSTANT_EXPONENTS = (0, 1, 2, 3, 4, 5, 6, 7, 10, 17, 33, 64, 65, 100, -1, -2, -3, -7, -64, -65)
SPECIAL_BASES = (0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan, 5e-324, -2.2e-308,
                 1e-300, 1e103, -1e103, 1e200, 1.0000001, 0.9999999, 2.0, 0.5, -3.5)  # fmt: skip


def _outcome(function, *args):
    try:
        return ("value", function(*args))
    except (OverflowError, ZeroDivisionError) as error:
        return (type(error).__name__, str(error))


def _same(mine, theirs) -> bool:
    if mine[0] != "value" or theirs[0] != "value":
        return mine[0] == theirs[0]
    a, b = mine[1], theirs[1]
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if 0 < abs(b) < 2.0**-969:  # README: a result this small is within one unit in the last place
        return abs(a - b) <= math.ulp(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def _constant_power(n: int):
    namespace: dict = {}
    exec(f"def power(x):\n    return x ** {n}\n", namespace)
    return njit(namespace["power"])


CONSTANT_POWERS = {n: _constant_power(n) for n in CONSTANT_EXPONENTS}


@njit
def variable_power(x, n):
    return x**n


@pytest.mark.parametrize("n", CONSTANT_EXPONENTS)
def test_constant_exponents_on_special_bases(n):
    power = CONSTANT_POWERS[n]
    for x in SPECIAL_BASES:
        assert _same(_outcome(power, x), _outcome(correctly_rounded_power, x, n)), (x, n)


@pytest.mark.parametrize("n", [*range(-12, 13), 1000, -1000, 2**30, -(2**30), 2**63 - 1, -(2**63)])
def test_run_time_exponents_on_special_bases(n):
    for x in SPECIAL_BASES:
        expected = _outcome(correctly_rounded_power, x, n)
        assert _same(_outcome(variable_power, x, n), expected), (x, n)


def test_many_random_bases_are_correctly_rounded():
    """Near a rounding tie CPython's C pow may be one unit off; the compiled code is not."""
    rng = np.random.default_rng(5)
    for scale in (1.0, 10.0, 1e-3, 1e30):
        bases = rng.uniform(-scale, scale, 4000).tolist()
        for n in (2, 3, 5, 7, 17, -1, -3, -5, 100, -100):
            power = CONSTANT_POWERS.get(n) or _constant_power(n)
            for x in bases:
                expected = _outcome(correctly_rounded_power, x, n)
                assert _same(_outcome(power, x), expected), (x, n)
                assert _same(_outcome(variable_power, x, n), expected), (x, n)


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=True, allow_infinity=True), st.integers(-300, 300))
def test_hypothesis_bases_and_exponents(x, n):
    assert _same(_outcome(variable_power, x, n), _outcome(correctly_rounded_power, x, n))


@njit
def powers_of_array(a, n):
    cubes, powers = np.empty_like(a), np.empty_like(a)
    for i in range(a.size):
        cubes[i] = a[i] ** 3
        powers[i] = a[i] ** n
    return cubes, powers


def test_float32_elements_follow_numpys_float32_power():
    a = np.random.default_rng(2).uniform(-4, 4, 500).astype(np.float32)
    cubes, powers = powers_of_array(a, -2)
    np.testing.assert_array_max_ulp(cubes, np.array([x**3 for x in a]), maxulp=1)
    np.testing.assert_array_max_ulp(powers, np.array([x**-2 for x in a]), maxulp=1)


@njit(fastmath=True)
def fast_powers(x, n):
    return x**3, x**-2, x**n


def test_fastmath_multiplies_within_a_few_ulps():
    for x in np.random.default_rng(3).uniform(-10, 10, 2000).tolist():
        if x == 0.0:
            continue
        for mine, theirs in zip(fast_powers(x, 6), fast_powers.py_func(x, 6)):
            assert mine == pytest.approx(theirs, rel=8 * 2.0**-52)


def test_fastmath_keeps_zero_division_error():
    with pytest.raises(ZeroDivisionError):
        fast_powers(0.0, 2)


@njit
def float_exponents(x):
    return x**2.0, x**-3.0, abs(x) ** 0.5, math.pow(x, 3.0), math.pow(x, -2.0), math.pow(x, 2.5)


def _outcomes_per_item(function, x):
    results = []
    for k in range(6):
        try:
            results.append(("value", function(x)[k]))
        except (OverflowError, ZeroDivisionError, ValueError) as error:
            results.append((type(error).__name__, str(error)))
            break
    return results


def _math_pow_integral(x, n):
    """math.pow of an integral exponent: correctly rounded, with math's errors."""
    try:
        return correctly_rounded_power(x, n)
    except ZeroDivisionError:
        raise ValueError("math domain error") from None
    except OverflowError:
        raise OverflowError("math range error") from None


def _expected_float_exponents(x):
    return (
        lambda: correctly_rounded_power(x, 2),
        lambda: correctly_rounded_power(x, -3),
        lambda: square_root_power(abs(x)),
        lambda: _math_pow_integral(x, 3),
        lambda: _math_pow_integral(x, -2),
        lambda: math.pow(x, 2.5),
    )


def test_integral_float_exponents_and_math_pow_are_correctly_rounded():
    rng = np.random.default_rng(11)
    bases = [*SPECIAL_BASES, *rng.uniform(0, 10, 3000).tolist(), *rng.uniform(-1, 1, 500).tolist()]
    for x in bases:
        mine = _outcomes_per_item(float_exponents, x)
        theirs = _outcomes_per_item(lambda x: [f() for f in _expected_float_exponents(x)], x)
        assert len(mine) == len(theirs) and all(map(_same, mine, theirs)), x
