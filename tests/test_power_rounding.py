"""A float raised to an integer is correctly rounded (README "Deliberate differences"): equal to
the exact power rounded once (fractions.Fraction), for constant and run-time exponents, scalars
and vectorized loops, float64 and float32; CPython's special values and errors, raised in a loop
for its first failing element."""

import math
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ember import njit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools.fuzzing.reference import correctly_rounded_power  # noqa: E402

CONSTANTS = (-70, -65, -64, -33, -7, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 13, 31, 63, 64, 65, 70)
#: README: a result below this is within one unit in the last place.
TINY = 2.0**-969


def _outcome(function, *args):
    try:
        return ("value", function(*args))
    except (OverflowError, ZeroDivisionError, ValueError) as error:
        return (type(error).__name__, str(error))


def _same(mine, theirs) -> bool:
    if mine[0] != "value" or theirs[0] != "value":
        return mine == theirs
    a, b = float(mine[1]), float(theirs[1])
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if 0 < abs(b) < TINY:
        return abs(a - b) <= math.ulp(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def _kernels(n: int):
    namespace: dict = {"np": np}
    exec(
        f"def scalar(x):\n    return x ** {n}\n"
        f"def loop(a):\n    out = np.empty_like(a)\n    for i in range(a.shape[0]):\n"
        f"        out[i] = a[i] ** {n}\n    return out\n",
        namespace,
    )
    return njit(namespace["scalar"]), njit(namespace["loop"])


KERNELS = {n: _kernels(n) for n in CONSTANTS}


@njit
def run_time_power(x, n):
    return x**n


@njit
def run_time_loop(a, n):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] ** n
    return out


finite_floats = st.floats(allow_nan=False, allow_infinity=False)


@settings(max_examples=25, deadline=None)
@given(st.lists(finite_floats, min_size=1, max_size=12), st.sampled_from(CONSTANTS))
@example([-1.5586204333626366e-150], 5)  # an odd power underflowing to -0.0
@example([-1e-200, -3e-110], 3)
@example([-1e-108, -2.5e-104, -5e-324, -0.0, -1e-162, -7.3e-109], 3)  # cubes in subnormals
def test_constant_exponents_are_correctly_rounded(bases, n):
    scalar, loop = KERNELS[n]
    for x in bases:
        expected = _outcome(correctly_rounded_power, x, n)
        assert _same(_outcome(scalar, x), expected), (x, n)
        assert _same(_outcome(run_time_power, x, n), expected), (x, n)
    if all(_outcome(correctly_rounded_power, x, n)[0] == "value" for x in bases):
        results = loop(np.array(bases))
        for x, mine in zip(bases, results):
            assert _same(("value", mine), ("value", correctly_rounded_power(x, n))), (x, n)


@settings(max_examples=25, deadline=None)
@given(st.floats(0.25, 4.0), st.integers(-70, 70))
def test_run_time_exponents_over_arrays(x, n):
    """Bases near one keep most powers finite; each element of the loop is checked."""
    bases = np.array([x, -x, x * 1.0000001, 1 / x, -1 / x, x + 1, 1 - x / 8])
    results = run_time_loop(bases, n)
    for base, mine in zip(bases.tolist(), results):
        assert _same(("value", mine), _outcome(correctly_rounded_power, base, n)), (base, n)


def test_random_bases_to_many_exponents():
    rng = np.random.default_rng(16)
    bases = np.concatenate([rng.uniform(-3, 3, 300), rng.uniform(0.9, 1.1, 300)])
    for n in range(-70, 71):
        results = run_time_loop(bases, n)
        for x, mine in zip(bases.tolist(), results):
            assert _same(("value", mine), ("value", correctly_rounded_power(x, n))), (x, n)


def test_float32_elements():
    """float32 ** int is float32 (as in Numba), computed in double and rounded once, so it is
    the correctly rounded power rounded to float32; an overflow is inf (Numba, NumPy)."""
    random = np.random.default_rng(32).uniform(-3, 3, 200)
    edges = [1 + 2**-12, 3.0e38, 1e-20, 1e-5, 2.0, -1.5e-45]
    for n, values in [(-3, random), (-2, random), (3, random), (5, random), (13, random),
                      (2, edges), (3, edges), (-1, edges[:-1])]:  # fmt: skip
        bases = np.array(values, dtype=np.float32)
        with np.errstate(over="ignore"):  # float32(1e115) is inf, as the stored element
            expected = [np.float32(correctly_rounded_power(x, n)) for x in bases.tolist()]
        assert list(KERNELS[n][1](bases)) == expected, n
        assert list(run_time_loop(bases, n)) == expected, n


SPECIAL_BASES = (0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 5e-324, -5e-324, 1e308)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, -1, -2, -3, 64, -64, 65, 2000, -2000])
def test_special_bases_as_cpython(n):
    scalar = KERNELS[n][0] if n in KERNELS else _kernels(n)[0]
    for x in SPECIAL_BASES:
        expected = _outcome(lambda x: x**n, x)
        assert _same(_outcome(scalar, x), expected), (x, n)
        assert _same(_outcome(run_time_power, x, n), expected), (x, n)


def test_square_root_power():
    @njit
    def root(x):
        return x**0.5

    for x in (0.0, -0.0, 2.0, 1e-310, math.inf, -math.inf, 0.1, 7.0):
        expected = math.inf if x == -math.inf else math.sqrt(x) + 0.0
        assert _same(_outcome(root, x), ("value", expected)), x
    assert math.isnan(root(math.nan))
    with pytest.raises(ValueError, match="negative number cannot be raised to a fractional"):
        root(-4.0)


@njit
def power_sum(a, n):
    total = 0.0
    for i in range(a.shape[0]):
        total += a[i] ** n
    return total


@njit
def cube_sum(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] ** 3
    return out.sum()


@pytest.mark.parametrize(
    "n, values",
    [
        (3, [1.0, 2.0, 1e200, 3.0, 1e300]),
        (-2, [1.0, 2.0, 0.0, 3.0, -0.0]),
        (2, [1.0, 1e155, 0.0, 1e300]),
        (-2, [1.0, 2.0, 1e-200, 0.0]),
        (-1, [1.0, 5e-324, 0.0]),
        (-3, [3.0, 0.0, 1e-300]),
    ],
)
def test_errors_in_a_loop_are_the_first_elements(n, values):
    """The loops defer their checks (so they vectorize): the error is still the first one."""
    first_error = next(
        _outcome(lambda x: x**n, x) for x in values if _outcome(lambda x: x**n, x)[0] != "value"
    )
    a = np.array(values)
    assert _outcome(power_sum, a, n) == first_error
    if n == 3:
        assert _outcome(cube_sum, a) == first_error


@njit
def mixed_powers(a):
    total = 0.0
    for i in range(a.shape[0]):
        total += a[i] ** 2 + a[i] ** -2 + a[i] ** 3
    return total


@pytest.mark.parametrize(
    "values",
    [[1.0, 0.0, 1e200], [1.0, 1e200, 0.0], [2.0, 1e-200, 1e200], [1e110, 3.0], [3.0, -1e-300]],
)
def test_checks_of_several_powers_in_one_statement_raise_the_first(values):
    """Checks of one kind in a row share a deferred site; the first error is still Python's."""

    def python_loop(values):  # Python floats: NumPy's scalars would not raise
        total = 0.0
        for x in values:
            total += x**2 + x**-2 + x**3
        return total

    expected = _outcome(python_loop, values)
    assert expected[0] != "value"
    assert _outcome(mixed_powers, np.array(values)) == expected


def test_overflow_starts_where_the_rounded_power_is_infinite():
    """Bases around each constant exponent's overflow threshold."""
    for n in (2, 3, 7, 64, -1, -2, -7, -64):
        scalar, loop = KERNELS[n]
        base = 2.0 ** (1024 / n)  # about where the power overflows
        for _ in range(2):
            base = math.nextafter(base, 0)
        for _ in range(5):
            expected = _outcome(correctly_rounded_power, base, n)
            assert _same(_outcome(scalar, base), expected), (base, n)
            assert _outcome(loop, np.array([base]))[0] == expected[0], (base, n)
            base = math.nextafter(base, math.inf)
