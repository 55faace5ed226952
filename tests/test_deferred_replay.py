"""Loops that run again (ember/lowering/deferred_checks.py): a loop whose checks only flag a
failure, and that restores its entry state and runs once more with its checks in place when
one is flagged, gives CPython's value or exception -- that of the first failing element --
wherever the NaN, infinity or huge value sits, and however often the loop is entered (a
finite value beyond int64 raises OverflowError, as every conversion in compiled code does)."""

import math
import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember.library.builtins.numeric import BEYOND_INT64_MESSAGE


def scaled_bytes(a):
    out = np.empty(a.shape[0], dtype=np.uint8)
    for i in range(a.shape[0]):
        out[i] = int(a[i] * 255.0) & 255
    return out


def rounded_sum_and_last(a):
    """A scalar carried across iterations and one read after the loop."""
    total = 0
    last = -1
    for i in range(a.shape[0]):
        last = round(a[i] * 10.0)
        total += last
    return total * 1000 + last


def floors_then_divides(a):
    """A check that is not deferred (the division) after deferred ones, in one loop."""
    total = 0.0
    for i in range(a.shape[0]):
        total += math.floor(a[i]) + 1.0 / (a[i] - 2.0)
    return total


def rows_of_ints(m):
    """The inner loop is entered once per row: each entry saves its own state."""
    out = np.empty((m.shape[0], m.shape[1]), dtype=np.int64)
    for r in range(m.shape[0]):
        acc = r
        for c in range(m.shape[1]):
            acc += int(m[r, c] * 3.0)
            out[r, c] = acc
    return out


def stepped_range(a):
    """A range with a start and a negative step: its iterator's state is put back."""
    total = 0
    for i in range(a.shape[0] - 1, -1, -2):
        total = total * 3 + int(a[i])
    return total


def prefix_ints(a):
    """Reads what it stored: cannot run again, so it records its first failure instead."""
    out = np.zeros(a.shape[0] + 1)
    for i in range(a.shape[0]):
        out[i + 1] = out[i] + int(a[i])
    return out


KERNELS_1D = [scaled_bytes, rounded_sum_and_last, floors_then_divides, stepped_range, prefix_ints]
COMPILED = {k: ember.njit(k) for k in [*KERNELS_1D, rows_of_ints]}

special = st.sampled_from([0.5, -0.75, 2.0, 7.0, -3.5, np.nan, np.inf, -np.inf])
numbers = st.one_of(st.floats(-100, 100), special, st.sampled_from([1e300, -1e19]))
within_int64 = st.one_of(st.floats(-100, 100), special)  # (CPython's stores then fit int64)


def outcome(func, *args):
    try:
        result = func(*args)
    except Exception as error:  # noqa: BLE001 - the exception is the outcome compared
        return type(error), str(error)
    return "value", result


def int64_checked(convert):
    """`convert` (int, round, math.floor) as compiled code gives it: OverflowError for a finite
    float beyond int64, whose Python int compiled code cannot hold."""

    def checked(x):
        if isinstance(x, float) and math.isfinite(x) and not -(2.0**63) <= x < 2.0**63:
            raise OverflowError(BEYOND_INT64_MESSAGE)
        return convert(x)

    return checked


def with_int64(kernel):
    """`kernel` run by CPython with ember's 64-bit conversions (CPython's floats, ints)."""
    checked_math = types.SimpleNamespace(floor=int64_checked(math.floor))
    names = {"int": int64_checked(int), "round": int64_checked(round), "math": checked_math}
    return types.FunctionType(kernel.__code__, {**kernel.__globals__, **names})


def assert_same(expected, got):
    assert expected[0] == got[0]
    if expected[0] == "value":
        np.testing.assert_array_equal(np.asarray(got[1]), np.asarray(expected[1]))
    else:
        assert got[1] == expected[1]


@settings(max_examples=60, deadline=None)
@given(st.lists(numbers, max_size=40), st.sampled_from(KERNELS_1D))
def test_same_value_or_exception_as_python(items, kernel):
    a = np.array(items, dtype=np.float64)
    expected = outcome(with_int64(kernel), a.astype(object))  # CPython's floats and ints
    assert_same(expected, outcome(COMPILED[kernel], a))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.lists(within_int64, min_size=3, max_size=3), max_size=6))
def test_inner_loop_entered_per_row(rows):
    m = np.array(rows, dtype=np.float64).reshape(len(rows), 3)
    assert_same(outcome(rows_of_ints, m.astype(object)), outcome(COMPILED[rows_of_ints], m))


@pytest.mark.parametrize("position", [0, 1, 7, 8, 31, 32, 333, 998, 999])
@pytest.mark.parametrize("bad, error", [(np.nan, ValueError), (-np.inf, OverflowError)])
def test_failure_anywhere_in_a_long_loop(position, bad, error):
    """Vectorized and unrolled loops: the failing element in any lane, or in the scalar tail."""
    a = np.linspace(0.0, 1.0, 1000)
    a[position] = bad
    expected = outcome(scaled_bytes, a.astype(object))
    assert expected[0] is error
    assert_same(expected, outcome(COMPILED[scaled_bytes], a))


def test_first_of_two_failures_decides():
    a = np.zeros(1000)
    a[900], a[400] = np.nan, np.inf  # the infinity comes first
    for kernel in (rounded_sum_and_last, floors_then_divides):
        assert_same(outcome(kernel, a.astype(object)), outcome(COMPILED[kernel], a))
    a[3] = 2.0  # the division's ZeroDivisionError at 3 comes first of all
    expected = outcome(floors_then_divides, a.astype(object))
    assert expected[0] is ZeroDivisionError
    assert_same(expected, outcome(COMPILED[floors_then_divides], a))


def test_huge_values_raise_as_outside_loops():
    """A flagged huge finite value: the second run raises OverflowError at the first one, as a
    lone int() does, after any NaN or infinity before it."""
    a = np.linspace(-1.0, 1.0, 101)
    a[[5, 50, 99]] = [1e300, -1e300, 2.0**63]
    with pytest.raises(OverflowError, match="beyond int64"):
        COMPILED[scaled_bytes](a)
    with pytest.raises(OverflowError, match="beyond int64"):
        ember.njit(lambda x: int(x))(1e300)
    a[3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        COMPILED[scaled_bytes](a)
    a[3] = 2.0**50  # within int64 once scaled: converts, then wraps at the byte mask
    a[[5, 50, 99]] = 0.0
    np.testing.assert_array_equal(COMPILED[scaled_bytes](a), scaled_bytes(a.astype(object)))


def test_failure_frees_the_loops_array():
    a = np.ones(64)
    a[40] = np.nan
    COMPILED[rows_of_ints](np.ones((2, 2)))  # compiled before counting
    before = ember.runtime.stats()
    with pytest.raises(ValueError, match="cannot convert float NaN to integer"):
        COMPILED[rows_of_ints](a.reshape(8, 8))
    assert ember.runtime.stats().live == before.live


@pytest.mark.parametrize("kernel", [scaled_bytes, rounded_sum_and_last])
def test_loops_vectorize(kernel):
    compiled = COMPILED[kernel]
    compiled(np.linspace(0.0, 1.0, 5))
    code = "\n".join(compiled.inspect_llvm().values())
    assert "x double>" in code


def two_loops(a, b):
    """The first loop's total carries into the second: both may run again, in turn."""
    total = 0
    for i in range(a.shape[0]):
        total += int(a[i])
    j = 0
    while j < b.shape[0]:
        total += int(b[j])
        j += 1
    return total


def int64_sum(*arrays) -> int:
    """What ember's int64 gives: each conversion checked, the sum wrapped."""
    convert = int64_checked(int)
    total = 0
    for x in (x for a in arrays for x in a):
        total += convert(float(x))
    return (total + 2**63) % 2**64 - 2**63


TWO_LOOPS = ember.njit(two_loops)


@settings(max_examples=40, deadline=None)
@given(st.lists(numbers, max_size=20), st.lists(numbers, max_size=20))
def test_consecutive_loops(first, second):
    a, b = np.array(first, dtype=np.float64), np.array(second, dtype=np.float64)
    assert_same(outcome(int64_sum, a, b), outcome(TWO_LOOPS, a, b))
