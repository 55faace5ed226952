"""perf28: checks that cannot fire are settled by float bounds (ember/lowering/float_bounds.py:
a divisor `1.0 + exp(x)`, `sqrt`/`log` of sums of squares), and the float32 overflow check
of exp/expm1/exp2/cosh/sinh reads only the operand, before the call. Values and exceptions
equal CPython's on corner cases (NaN, infinities, zeros, underflow, the overflow bounds)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ember import njit

SPECIAL = [
    0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1e-200, -1e-200, 5e-324, 1e-160, 1e154, -1e154, 1e300,
    -1e300, 700.0, -700.0, 710.0, -710.0, 745.2, -746.0, math.pi, -math.pi, math.inf,
    -math.inf, math.nan,
]  # fmt: skip


def outcome(func, *args):
    """The value, or the exception's type."""
    try:
        return func(*args)
    except (ZeroDivisionError, ValueError, OverflowError) as error:
        return type(error)


def same(a, b) -> bool:
    if isinstance(a, type) or isinstance(b, type):
        return a is b
    return (math.isnan(a) and math.isnan(b)) or a == b


# ------------------------------------------------------------------- divisors and domains


def sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x))


def divisors(x, y):
    """Divisors bounds prove nonzero, and some they must not (zero is reachable)."""
    total = 0.0
    total += 1.0 / (1.0 + x * x)  # >= 1
    total += 1.0 / (math.exp(x) + 1e-300)  # > 0
    total += 1.0 / math.cosh(y)  # >= 1
    total += 1.0 / (math.sqrt(abs(x)) + 1.0)  # >= 1
    total += 1.0 / (2.0 + math.sin(y))  # in [1, 3]
    total += 1.0 / max(abs(x), 1e-12)  # NaN or >= 1e-12
    return total


def zero_divisors_reachable(x, y, which):
    """Each can be zero for some operand: the check must stay."""
    if which == 0:
        return 1.0 / (x * x)  # underflows to 0 for tiny x
    if which == 1:
        return 1.0 / (x * x + y * y)
    if which == 2:
        return 1.0 / math.exp(x)  # underflows to 0
    if which == 3:
        return 1.0 / (1.0 - math.exp(-x))  # x == 0
    if which == 4:
        return 1.0 / (math.cos(x) + 1.0)  # cos(pi) == -1.0
    if which == 5:
        return 1.0 / (math.expm1(x) + 1.0)  # expm1(-800) == -1
    if which == 6:
        return 1.0 / (x * x + 1e-300 * 1e-300)  # the constant is 0.0
    return 1.0 / (1.0 + x - x * x)


def domains(x, y):
    """Domain checks bounds decide (never outside) or do not (log(exp(x)) can be log(0))."""
    return math.sqrt(x * x + y * y) + math.log(1.0 + x * x) + math.asin(math.tanh(y))


def log_of_exp(x):
    return math.log(math.exp(x))


def test_division_and_domain_checks_as_cpython():
    """One compilation per function; every pair of special values."""
    compiled = {f: njit(f) for f in (sigmoid, divisors, log_of_exp, domains)}
    reachable = njit(zero_divisors_reachable)
    checked = 0
    for x in SPECIAL:
        for f in (sigmoid, log_of_exp):
            assert same(outcome(compiled[f], x), outcome(f, x)), (f.__name__, x)
        for y in SPECIAL:
            for f in (divisors, domains):
                assert same(outcome(compiled[f], x, y), outcome(f, x, y)), (f.__name__, x, y)
            for which in range(8):
                expected = outcome(zero_divisors_reachable, x, y, which)
                assert same(outcome(reachable, x, y, which), expected), (x, y, which)
                checked += expected is ZeroDivisionError
    assert checked > 100  # the reachable zeros were reached


def test_divisor_updated_in_a_loop_keeps_its_check():
    """A value defined through itself (halved each turn) reaches zero: not bounded."""

    def halving(n):
        s = 1.0
        total = 0.0
        for _ in range(n):
            s = s * 0.5
            total += 1.0 / s
        return total

    compiled = njit(halving)
    assert compiled(100) == halving(100)
    with pytest.raises(ZeroDivisionError):
        compiled(1100)
    with pytest.raises(ZeroDivisionError):
        halving(1100)


def test_float32_divisors_rounding_to_zero_keep_their_check():
    """x * x of a float32 underflows to zero long before a double's does."""

    @njit
    def reciprocal_square(x):
        out = np.empty_like(x)
        for i in range(x.shape[0]):
            out[i] = np.float32(1.0) / (x[i] * x[i])
        return out

    @njit
    def reciprocal_one_plus_square(x):
        out = np.empty_like(x)
        for i in range(x.shape[0]):
            out[i] = np.float32(1.0) / (np.float32(1.0) + x[i] * x[i])
        return out

    tiny = np.array([1e-3, 1e-30, -1e-25], dtype=np.float32)
    with pytest.raises(ZeroDivisionError):
        reciprocal_square(tiny)
    values = np.array([0.0, -0.0, 1e-30, 3.0, np.inf, -np.inf, np.nan, 1e20], dtype=np.float32)
    with np.errstate(over="ignore"):
        expected = np.float32(1.0) / (np.float32(1.0) + values * values)
    np.testing.assert_array_equal(reciprocal_one_plus_square(values), expected)


def test_sigmoid_loops_of_float32_and_float64_as_python():
    """In a loop over an array (the check deferred): -inf, inf, NaN; an operand whose double
    exp overflows raises OverflowError, one whose float32 exp only is infinite gives 0."""

    def sigmoid_into(x, out):
        for i in range(x.shape[0]):
            out[i] = 1.0 / (1.0 + math.exp(-x[i]))

    compiled = njit(sigmoid_into)
    values = [0.0, 3.5, -3.5, 80.0, -80.0, -100.0, 100.0, np.inf, -np.inf, np.nan]
    for dtype in (np.float64, np.float32):
        x = np.array(values * 20, dtype=dtype)
        out = np.zeros_like(x)
        compiled(x, out)
        with np.errstate(over="ignore"):
            expected = (1.0 / (1.0 + np.exp(-x).astype(np.float64))).astype(dtype)
        np.testing.assert_allclose(out, expected, rtol=1e-6)
        bad = x.copy()
        bad[37] = -800.0
        out = np.zeros_like(x)
        with pytest.raises(OverflowError):
            compiled(bad, out)
        np.testing.assert_allclose(out[:37], expected[:37], rtol=1e-6)  # stored before
        assert not out[37:].any()


def test_bounds_settle_the_division_check_in_the_optimized_ir():
    compiled = njit(sigmoid)
    compiled(0.5)
    ir = compiled.inspect_llvm(compiled.signatures[0])
    compares = [line for line in ir.splitlines() if "fcmp" in line]
    assert compares  # (the exp overflow check stays)
    assert not [line for line in compares if line.rstrip().endswith("0.000000e+00")]
    kept = njit(zero_divisors_reachable)
    kept(1.0, 1.0, 0)
    ir = kept.inspect_llvm(kept.signatures[0])
    assert [line for line in ir.splitlines() if "fcmp" in line and "0.000000e+00" in line]


# -------------------------------------------------------------- float32 overflow checks

_BOUNDS = {"exp": 709.782712893384, "expm1": 709.782712893384, "exp2": 1023.9999999999999,
           "cosh": 710.4758600739439, "sinh": 710.4758600739439}  # fmt: skip


def float32_operands() -> np.ndarray:
    """Float32 values around each double overflow bound (both signs), and specials."""
    values = [0.0, 1.0, -1.0, 88.0, 89.0, -89.0, 100.0, 1e30, -1e30, np.inf, -np.inf, np.nan]
    for bound in _BOUNDS.values():
        near = np.float32(bound)
        for v in (near, np.nextafter(near, np.float32(np.inf)), np.nextafter(near, np.float32(0))):
            values += [float(v), -float(v)]
    return np.array(sorted(values, key=lambda v: (math.isnan(v), v)), dtype=np.float32)


def python_float32(name: str, v: float):
    """What ember gives for the float32 operand v: CPython raises where its double overflows;
    otherwise the float32 function's value (NumPy's), which may be infinite."""
    try:
        getattr(math, name)(v)
    except OverflowError:
        return OverflowError
    numpy_name = {"exp": "exp", "expm1": "expm1", "exp2": "exp2", "cosh": "cosh", "sinh": "sinh"}
    with np.errstate(over="ignore"):
        return float(getattr(np, numpy_name[name])(np.float32(v)))


def _kernels(name: str):
    function = getattr(math, name)

    def scalar(v):
        return function(v)

    def into(x, out):
        for i in range(x.shape[0]):
            out[i] = function(x[i])

    def fresh(x):
        out = np.empty_like(x)
        for i in range(x.shape[0]):
            out[i] = function(x[i])
        return out

    return njit(scalar), njit(into), njit(fresh)


@pytest.mark.parametrize("name", sorted(_BOUNDS))
def test_float32_overflow_checks_at_the_double_bound(name):
    """Scalar, a loop into the caller's array (blockwise checks), a loop into a new array
    (flagged, run again with checks): each operand alone, and a run of them with one failing
    operand in the middle (stores before it are done, as in Python)."""
    scalar, into, fresh = _kernels(name)
    operands = float32_operands()
    for v in operands:
        expected = python_float32(name, float(v))
        for run in (lambda: float(scalar(v)), lambda: float(fresh(np.array([v] * 9))[4])):
            got = outcome(run)
            if isinstance(expected, type):
                assert got is expected, (name, v)
            else:
                assert same(got, expected) or math.isclose(got, expected, rel_tol=1e-6), (name, v)
    finite = operands[[python_float32(name, float(v)) is not OverflowError for v in operands]]
    assert len(finite) < len(operands)
    failing = operands[[python_float32(name, float(v)) is OverflowError for v in operands]][0]
    x = np.concatenate([np.tile(finite, 5), [failing], finite])
    out = np.zeros_like(x)
    with pytest.raises(OverflowError):
        into(x, out)
    stop = 5 * len(finite)
    with np.errstate(over="ignore"):
        expected = np.array([python_float32(name, float(v)) for v in x[:stop]], np.float32)
    np.testing.assert_allclose(out[:stop], expected, rtol=1e-6)
    assert not out[stop:].any()
    with pytest.raises(OverflowError):
        fresh(x)


# ---------------------------------------------------------------------- round(x, ndigits)


def round_total(values, ndigits):
    total = 0.0
    for i in range(values.shape[0]):
        total += round(values[i], ndigits)
    return total


def round_each(values, ndigits):
    out = np.empty_like(values)
    for i in range(values.shape[0]):
        out[i] = round(values[i], ndigits)
    return out


def tie_values() -> np.ndarray:
    """Decimal ties and near-ties whose binary value lies just above or below (2.675 is
    below 2.675 exactly), halves, integers near 2**52 and 2**53, negatives, specials."""
    values = [2.675, 0.125, 0.375, 2.5, 3.5, -2.5, -0.5, 0.5, 1.005, 1.015, 1.025, 0.285]
    values += [5e-324, -0.0, 0.0, 1e300, -1e300, 123456.785, 4503599627370497.0]
    values += [4503599627370496.5 - 0.5, 9007199254740993.0, 2.0**52 + 1, 2.0**53 - 1]
    values += [math.inf, -math.inf, math.nan, 0.049999999999999996, 0.05, 0.15, 0.25, 0.35]
    rng = np.random.default_rng(2828)
    values += list(np.round(rng.uniform(-1000, 1000, 300), 3))  # many 3-digit ties
    values += list(rng.integers(-(2**53), 2**53, 50).astype(np.float64) + 0.5)
    return np.array(values)


def test_round_digits_in_loops_and_scalars_as_cpython():
    """The tie correction is a call out of the usual path (never inlined): the same values as
    CPython's correctly rounded round(x, n), scalar and in loops LLVM may vectorize."""
    values = tie_values()
    total, each = njit(round_total), njit(round_each)
    for ndigits in (-3, -1, 0, 1, 2, 3, 5, 17, 22, 25, 310, -310):
        expected = [round(float(v), ndigits) for v in values]
        got = each(values, ndigits)
        for v, e, g in zip(values, expected, got):
            assert same(float(g), e) and math.copysign(1, g) == math.copysign(1, e), (v, ndigits)
        finite = values[np.isfinite(values)]
        expected_total = 0.0
        for v in finite:
            expected_total += round(float(v), ndigits)  # (CPython's round, not NumPy's)
        assert total(finite, ndigits) == expected_total


# ------------------------------------------------- results checked only for a loop's replay


def _math_total(name: str):
    function = getattr(math, name)

    def total(values):
        s = 0.0
        for i in range(len(values)):
            s += function(values[i])
        return s

    return total


@pytest.mark.parametrize("name", ["lgamma", "gamma", "exp", "expm1", "cosh", "sinh", "tan"])
def test_infinite_results_in_a_loop_flag_and_raise_as_cpython(name):
    """A loop that only flags failures (a reduction) flags an infinite result whatever its
    operand (an infinite operand too) and runs again with the exact checks: the same value
    or exception as CPython, for infinities, NaN, poles and overflows among ordinary items."""
    py_total = _math_total(name)
    compiled = njit(py_total)
    ordinary = [0.5, 1.5, 2.5, -0.5, 3.0, 10.0, -2.5]
    specials = [math.inf, -math.inf, math.nan, 0.0, -0.0, -1.0, -3.0, 800.0, -800.0, 1e308, 171.7]
    for special in specials:
        values = np.array(ordinary * 3 + [special] + ordinary)
        expected = outcome(py_total, [float(v) for v in values])
        assert close(outcome(compiled, values), expected), (name, special)


def close(got, expected) -> bool:
    """The same exception, or values equal to a few ulps (libm's lgamma is not CPython's)."""
    if same(got, expected):
        return True
    return not isinstance(got, type) and math.isclose(got, expected, rel_tol=1e-12)


def test_lgamma_is_total_no_nan_from_numbers():
    """lgamma of every float but NaN is a number or +inf (a pole raises ValueError)."""
    compiled = njit(lambda x: math.lgamma(x))
    for v in [-math.inf, math.inf, -1.5, 5e-324, -5e-324, 1e308, -1e308, -2.0, -0.0, math.nan]:
        assert close(outcome(compiled, v), outcome(math.lgamma, v)), v


# ------------------------------------------------------------- powers of bounded bases


def bounded_powers(x):
    y = x * 0.5
    return math.sin(x) ** 2 + (1.0 + y * y) ** -2 + math.tanh(x) ** 6


def unbounded_powers(x, which):
    if which == 0:
        return x**2  # overflows for |x| > 1.3e154
    if which == 1:
        return (x * x) ** -2  # zero base, or overflow for tiny x
    return (math.cos(x) + 1.0) ** -3  # cos(pi) + 1 == 0


def test_power_checks_settled_by_bounds_as_cpython():
    """sin(x) ** 2 cannot overflow and (1 + y*y) ** -2 has no zero base: their checks go;
    powers of unbounded bases keep theirs (OverflowError, ZeroDivisionError)."""
    bounded, unbounded = njit(bounded_powers), njit(unbounded_powers)
    raised = 0
    for x in SPECIAL + [1e-100, -1e-160, 2e154]:
        assert close(outcome(bounded, x), outcome(bounded_powers, x)), x
        for which in range(3):
            expected = outcome(unbounded_powers, x, which)
            raised += isinstance(expected, type)
            assert close(outcome(unbounded, x, which), expected), (x, which)
    assert raised >= 8


def test_bounded_power_overflow_check_gone_from_a_loop():
    def sine_squares(x):
        out = np.empty_like(x)
        for i in range(x.shape[0]):
            out[i] = math.sin(x[i]) ** 2
        return out

    compiled = njit(sine_squares)
    x = np.array([0.0, 1.0, -3.0, 1e300, np.nan])
    np.testing.assert_array_equal(compiled(x), np.sin(x) ** 2)
    ir = compiled.inspect_llvm(compiled.signatures[0])
    # (the overflow threshold of a square, 2**512 less an ulp, is compared nowhere)
    assert "0x5FEFFFFFFFFFFFFF" not in ir
    with pytest.raises(ValueError):
        compiled(np.array([1.0, np.inf]))  # sin(inf): CPython's domain error


def test_lorentzian_loop_vectorizes_and_raises_as_cpython():
    """1 / (1 + t ** 2): the divisor is >= 1, its check goes and the loop vectorizes; the
    square's own overflow check stays (OverflowError beyond 1.3e154, as CPython)."""

    def lorentzian(x, center, width):
        out = np.empty_like(x)
        for i in range(x.shape[0]):
            out[i] = 1.0 / (1.0 + ((x[i] - center) / width) ** 2)
        return out

    compiled = njit(lorentzian)
    x = np.array([0.0, -0.0, 1.5, -3.0, 1e150, np.inf, -np.inf, np.nan, 5e-324] * 5)
    expected = [lorentzian_python(float(v)) for v in x]
    np.testing.assert_array_equal(compiled(x, 0.0, 1.0), expected)
    with pytest.raises(OverflowError):
        compiled(np.array([1.0, 1e200, 2.0]), 0.0, 1.0)
    with pytest.raises(OverflowError):
        lorentzian_python(1e200)
    ir = compiled.inspect_llvm(compiled.signatures[0])
    assert "x double>" in ir  # vectorized
    zero_tests = [line for line in ir.splitlines() if "fcmp" in line and "0.000000e+00" in line]
    assert all("%arg.width" in line for line in zero_tests)  # (width == 0 can raise: kept)


def lorentzian_python(v: float) -> float:
    return 1.0 / (1.0 + ((v - 0.0) / 1.0) ** 2)


def test_array_item_squares_bounded_and_lookalikes_not():
    """a[i] * a[i] (the item loaded twice, each into a temporary) is a square: 1 + it is never
    zero and the loop vectorizes; products that only look alike keep their check."""

    def lorentz_sum(a):
        s = 0.0
        for i in range(a.shape[0]):
            s += 1.0 / (1.0 + a[i] * a[i])
        return s

    def stored_between(a, i):
        x = a[i]
        a[i] = -5.0
        return 1.0 / (1.0 + x * a[i])

    def transposed(a, i, j):
        return 1.0 / (1.0 + a[i, j] * a[j, i])

    def two_arrays(a, b, i):
        return 1.0 / (1.0 + a[i] * b[i])

    compiled = njit(lorentz_sum)
    values = np.array([0.0, -0.0, 2.0, -1e200, 1e-200, np.inf, np.nan, -3.5])
    expected = sum(1.0 / (1.0 + float(v) * float(v)) for v in values)  # (in order)
    assert same(compiled(values), expected)
    ir = compiled.inspect_llvm(compiled.signatures[0])
    assert "x double>" in ir
    assert not [line for line in ir.splitlines() if "fcmp" in line and "0.000000e+00" in line]
    with pytest.raises(ZeroDivisionError):
        njit(stored_between)(np.array([0.2]), 0)
    assert njit(stored_between)(np.array([0.1]), 0) == stored_between(np.array([0.1]), 0)
    with pytest.raises(ZeroDivisionError):
        njit(transposed)(np.array([[1.0, -1.0], [1.0, 1.0]]), 0, 1)
    with pytest.raises(ZeroDivisionError):
        njit(two_arrays)(np.array([2.0]), np.array([-0.5]), 0)
