"""Float powers in loops whose checks only flag the loop to run again with them in place
(ember/lowering/powers.py, deferred_checks.py): `x ** 3`, `x ** 6`, `x ** n` (a run-time
exponent) and `x ** 1.5` vectorize, and give Python's values and errors (the first failing
element's) on negative, zero, subnormal, infinite, NaN and overflowing bases."""

import math
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import njit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools.fuzzing.reference import correctly_rounded_power  # noqa: E402

#: README: a power below this is within one unit in the last place of the exact one.
TINY = 2.0**-969

SPECIAL = [0.0, -0.0, 5e-324, -5e-324, 2.2e-308, -1e-200, 1.0, -1.0, 2.5, -3.25, 1e100,
           -1e100, math.inf, -math.inf, math.nan]  # fmt: skip


def cube_array(a):
    out = np.empty_like(a)
    for i in range(len(a)):
        out[i] = a[i] ** 3
    return out


def sixth_power_sum(a):
    s = 0.0
    for i in range(len(a)):
        s += a[i] ** 6
    return s


def power_n(a, n):
    acc = 0.0
    for i in range(len(a)):
        acc += a[i] ** n
    return acc


def powers_n(a, n):
    out = np.empty_like(a)
    for i in range(len(a)):
        out[i] = a[i] ** n
    return out


def kepler(a):
    out = np.empty_like(a)
    for i in range(len(a)):
        out[i] = 2.0 * math.pi * a[i] ** 1.5
    return out


def fractional_power(x: float, y: float) -> float:
    """README: a negative float raised to a fractional power raises ValueError (not complex)."""
    if x < 0 and math.isfinite(x):
        raise ValueError("negative number cannot be raised to a fractional power")
    return x**y


def kepler_reference(a):
    return [2.0 * math.pi * fractional_power(x, 1.5) for x in a]


KERNELS = {f.__name__: njit(f) for f in (cube_array, sixth_power_sum, power_n, powers_n, kepler)}


def _outcome(function, *args):
    try:
        return ("value", function(*args))
    except (OverflowError, ZeroDivisionError, ValueError) as error:
        return (type(error).__name__, str(error))


def _same_float(mine: float, theirs: float) -> bool:
    if math.isnan(mine) or math.isnan(theirs):
        return math.isnan(mine) and math.isnan(theirs)
    if 0 < abs(theirs) < TINY:
        return abs(mine - theirs) <= math.ulp(theirs)
    return mine == theirs and math.copysign(1.0, mine) == math.copysign(1.0, theirs)


def _expected_elements(values, n):
    """Each base's correctly rounded power, or the first error CPython raises."""
    results = []
    for x in values:
        outcome = _outcome(correctly_rounded_power, x, n)
        if outcome[0] != "value":
            return outcome
        results.append(outcome[1])
    return ("value", results)


def _check_elements(mine, expected, context) -> None:
    assert mine[0] == expected[0], (context, mine, expected)
    if mine[0] != "value":
        assert mine == expected, context
        return
    for got, want in zip(np.asarray(mine[1]).tolist(), expected[1]):
        assert _same_float(got, want), (context, got, want)


@pytest.mark.parametrize("special", SPECIAL)
def test_cube_of_each_special_base_among_ordinary_ones(special):
    values = [1.5, -2.0, special, 0.75] * 9  # long enough for the vector loop
    expected = _expected_elements(values, 3)
    _check_elements(_outcome(KERNELS["cube_array"], np.array(values)), expected, special)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 6, 7, 8, 9, 13, 15, 16, 17, 40, -1, -2, -3, -7])
def test_run_time_exponents_on_special_bases(n):
    """Exponents from 0 to 15 run branch-free, the others in the loop's checked copy."""
    values = [0.5, -1.25, 3.0] * 4 + [s for s in SPECIAL if s != 0 or n >= 0] + [2.0] * 8
    expected = _expected_elements(values, n)
    _check_elements(_outcome(KERNELS["powers_n"], np.array(values), n), expected, n)
    total = _outcome(power_n, values, n)  # Python floats: the sum as CPython adds it
    mine = _outcome(KERNELS["power_n"], np.array(values), n)
    if total[0] == "value":
        assert mine[0] == "value"
        assert math.isclose(mine[1], total[1], rel_tol=1e-12) or (
            math.isnan(mine[1]) and math.isnan(total[1])
        )
    else:
        assert mine == total, n


@pytest.mark.parametrize(
    "kernel, args, values",
    [
        ("cube_array", (), [1.0, 2.0, 1e200, -1e300, 3.0]),
        ("sixth_power_sum", (), [1.0, 1e60, 2.0]),
        ("power_n", (5,), [1.0, -2.0, 1e62, math.inf]),
        ("power_n", (7,), [1.0, math.inf, 2.0, -1e50]),
        ("power_n", (-3,), [1.0, 2.0, 0.0, 1e-300]),
        ("powers_n", (-2,), [1.0, -0.0, 3.0]),
        ("power_n", (40,), [1.0, 1e10, 2.0]),
        ("kepler", (), [1.0, 4.0, -2.0, 1e300]),
        ("kepler", (), [1.0, 1e300, -2.0]),
    ],
)
def test_the_first_failing_element_raises_as_in_python(kernel, args, values):
    values = [1.25] * 20 + values + [0.5] * 20  # the failure lies in the vector loop
    reference = kepler_reference if kernel == "kepler" else KERNELS[kernel].py_func
    expected = _outcome(reference, values, *args)  # Python floats
    assert expected[0] != "value"
    assert _outcome(KERNELS[kernel], np.array(values), *args) == expected


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=40),
    st.integers(0, 17),
)
def test_run_time_powers_are_correctly_rounded(values, n):
    expected = _expected_elements(values, n)
    _check_elements(_outcome(KERNELS["powers_n"], np.array(values), n), expected, n)


def test_random_bases_to_each_small_exponent():
    """Bases of every magnitude whose powers stay finite, against the exact power."""
    rng = np.random.default_rng(3)
    for n in range(0, 16):
        limit = 2.0 ** (1000 / max(n, 1))
        bases = rng.uniform(-1, 1, 400) * np.exp2(rng.uniform(-1, 1, 400) * math.log2(limit))
        expected = _expected_elements(bases.tolist(), n)
        _check_elements(_outcome(KERNELS["powers_n"], bases, n), expected, n)
        if n in (3, 6):
            kernel = KERNELS["cube_array"] if n == 3 else None
            if kernel is not None:
                _check_elements(_outcome(kernel, bases), expected, n)


def test_fractional_power_matches_the_c_pow():
    """`x ** 1.5` calls the C pow, as CPython does: equal values, the errors at the edges."""
    values = [0.0, -0.0, 5e-324, 0.5, 2.0, 1e200, 1e205, math.inf, math.nan, 3.0] * 3
    mine = KERNELS["kepler"](np.array(values))
    for got, x in zip(mine.tolist(), values):
        want = 2.0 * math.pi * x**1.5
        assert _same_float(got, want), (x, got, want)
    threshold = sys.float_info.max ** (1 / 1.5)
    for x in (math.nextafter(threshold, 0), threshold, 1.0000001 * threshold, -math.inf):
        a = [1.0] * 16 + [x]
        mine, expected = _outcome(KERNELS["kepler"], np.array(a)), _outcome(kepler_reference, a)
        assert mine[0] == expected[0], x
        if mine[0] == "value":
            assert mine[1].tolist() == expected[1], x
        else:
            assert mine == expected, x


@pytest.mark.parametrize("kernel, args", [("cube_array", ()), ("sixth_power_sum", ()),
                                          ("power_n", (5,)), ("powers_n", (3,)),
                                          ("kepler", ())])  # fmt: skip
def test_the_loops_vectorize(kernel, args):
    compiled = KERNELS[kernel]
    compiled(np.ones(4), *args)
    llvm_ir = "\n".join(compiled.inspect_llvm().values())
    assert " x double>" in llvm_ir, kernel


def chained_cubes(a):
    """Reads the array it stores into: its loop records its first failure (it cannot run
    again), rather than flagging."""
    out = np.zeros_like(a)
    previous = np.zeros_like(a)
    for i in range(1, len(a)):
        out[i] = a[i] ** 3 + a[i] ** 6
        previous[i] = out[i - 1]
    return out


def scalar_cube(x):
    return x**3


@pytest.mark.parametrize("special", SPECIAL + [1e60, -1e60, 1e110])
def test_recorded_and_branching_checks_on_special_bases(special):
    values = [0.0, 1.5, -2.0, special, 0.75] * 7
    expected = ("value", [0.0])
    for x in values[1:]:
        three, six = (_outcome(correctly_rounded_power, x, n) for n in (3, 6))
        if three[0] != "value" or six[0] != "value":
            expected = three if three[0] != "value" else six
            break
        expected[1].append(three[1] + six[1])
    _check_elements(_outcome(njit(chained_cubes), np.array(values)), expected, special)
    cube = _outcome(correctly_rounded_power, special, 3)
    mine = _outcome(njit(scalar_cube), special)
    assert mine[0] == cube[0] and (mine[0] != "value" or _same_float(mine[1], cube[1]))


def varying_exponents(a):
    total = 0.0
    for i in range(len(a)):
        total += a[i] ** (i % 20 - 2)
    return total


@pytest.mark.parametrize("values", [[1.5, -0.5, 2.0] * 10, [1.5] * 5 + [0.0] * 3, [1e40] * 12])
def test_an_exponent_changing_in_the_loop(values):
    """Its exponents leave the branch-free range in the loop: the checked copy runs from the
    loop's entry, and the sum is Python's (a float sum in order) or its first error."""
    expected = _outcome(varying_exponents, values)
    mine = _outcome(njit(varying_exponents), np.array(values))
    if expected[0] == "value":
        assert mine[0] == "value" and math.isclose(mine[1], expected[1], rel_tol=1e-13)
    else:
        assert mine == expected


@pytest.mark.parametrize("y", [0.3, 1.5, 2.5, 7.25, 300.5])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_constant_fractional_exponents(y, dtype):
    """The C pow of each element (float32: powf), its base flagged by one comparison; the
    values around the overflow threshold, -0.0, infinities and NaN as the checked copy has
    them."""
    namespace: dict = {"np": np}
    exec(
        "def powers(a):\n    out = np.empty_like(a)\n    for i in range(len(a)):\n"
        f"        out[i] = a[i] ** {y}\n    return out\n",
        namespace,
    )
    compiled = njit(namespace["powers"])
    largest = float(np.finfo(dtype).max)
    threshold = largest ** (1 / y) if y > 1 else largest
    edges = [0.0, -0.0, 1.0, 0.5, math.inf, math.nan, threshold * (1 - 1e-5)]
    if y > 1:
        edges += [threshold * (1 + 1e-5)]
    for edge in edges + [-1.0]:
        values = np.array([2.0] * 16 + [edge] + [0.25] * 16, dtype=dtype)
        expected = _outcome(lambda a: [fractional_power(float(x), y) for x in a], values)
        mine = _outcome(compiled, values)
        if expected[0] != "value":
            assert mine == expected, edge
            continue
        with np.errstate(over="ignore"):
            want = np.array(expected[1]).astype(dtype)
        if dtype == np.float32:  # powf, not pow rounded: one unit in the last place at most
            np.testing.assert_array_max_ulp(mine[1], want, maxulp=1)
        else:
            assert mine[0] == "value" and np.array_equal(mine[1], want, equal_nan=True), edge


def powers_of_each(a):
    out = np.empty((5, a.shape[0]))
    for i in range(a.shape[0]):
        out[0, i] = a[i] ** 1.5
        out[1, i] = a[i] ** -2.5
        out[2, i] = a[i] ** 0.25
        out[3, i] = a[i] ** 0.5
        out[4, i] = a[i] ** 2.0
    return out


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(min_value=1e-100, max_value=1e100), min_size=1, max_size=40))
def test_constant_fractional_exponents_equal_the_c_pow(values):
    """A constant exponent LLVM keeps as a pow call (1.5, -2.5, 0.25) and those it would
    rewrite without the C pow's rounding (0.5, 2.0): each item equals CPython's `x ** y`."""
    mine = njit(powers_of_each)(np.array(values))
    for row, y in zip(mine.tolist(), (1.5, -2.5, 0.25, 0.5, 2.0)):
        for got, x in zip(row, values):
            assert _same_float(got, x**y), (x, y, got)
