"""Deferred checks (ember/lowering/deferred_checks.py): loops whose NaN/infinity/domain checks
wait for the loop's exit vectorize, and still raise CPython's exception -- the one of the
first failing element -- without leaking, and without deferring where it would show."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember


def to_uint8(a):
    out = np.empty(a.shape[0], dtype=np.uint8)
    for i in range(a.shape[0]):
        out[i] = int(a[i] * 255.0) & 255
    return out


def rounded_total(a):
    total = 0
    for i in range(a.shape[0]):
        total += int(round(a[i] * 100.0))
    return total


def scaled_sqrt(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = math.sqrt(a[i]) * 2.0
    return out


def softplus_floor_sum(a):
    """Several sites and kinds in one loop: exp's OverflowError, log's and sqrt's ValueError,
    floor's ValueError/OverflowError, and a division that raises ZeroDivisionError."""
    total = 0.0
    count = 0
    for i in range(a.shape[0]):
        x = a[i]
        total += math.log(1.0 + math.exp(x)) + math.sqrt(x + 3.0) / (x - 7.0)
        count += math.floor(x * 2.0)
    return total + count


def clipped_uint8(a):
    out = np.zeros((a.shape[0], 2), dtype=np.uint8)
    for i in range(a.shape[0]):
        out[i, 0] = min(max(int(a[i] * 255.0), 0), 255)
        out[i, 1] = int(round(a[i] * 10.0)) % 256
    return out


def numpy_scalars_sum(a):
    """NumPy scalar constructors and float ufuncs never raise: they may share the loop."""
    total = 0.0
    for i in range(a.shape[0]):
        x = a[i]
        total += math.sqrt(x) * np.float64(0.5) + np.float32(0.25) * np.exp(-x) * np.abs(x)
    return total


KERNELS = [to_uint8, rounded_total, scaled_sqrt, softplus_floor_sum, clipped_uint8]
KERNELS.append(numpy_scalars_sum)
COMPILED = {kernel: ember.njit(kernel) for kernel in KERNELS}

special = st.sampled_from([0.5, 0.25, -0.75, 2.0, 7.0, -3.5, 800.0, np.nan, np.inf, -np.inf, -5.0])


def outcome(func, a):
    try:
        result = func(a)
    except Exception as error:  # noqa: BLE001 - the exception is the outcome compared
        return type(error), str(error)
    return "value", result


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(st.floats(-10, 10), special), max_size=12), st.sampled_from(KERNELS))
def test_same_value_or_exception_as_python(items, kernel):
    a = np.array(items, dtype=np.float64)
    # CPython's floats (not NumPy's, whose division by zero warns): an array of objects
    expected, got = outcome(kernel, a.astype(object)), outcome(COMPILED[kernel], a)
    assert expected[0] == got[0]
    if expected[0] == "value":
        np.testing.assert_allclose(got[1], np.asarray(expected[1], dtype=float), rtol=1e-12)
    else:
        assert got[1] == expected[1]


@pytest.mark.parametrize("kernel", [to_uint8, rounded_total, scaled_sqrt])
def test_loops_vectorize(kernel):
    compiled = COMPILED[kernel]
    compiled(np.linspace(0.0, 1.0, 5))
    code = "\n".join(compiled.inspect_llvm().values())
    assert "x double>" in code


def test_a_sum_of_exps_defers_its_checks_and_stays_scalar():
    """Its checks wait (the loop runs unchecked, a checked copy replays a failure), but its sum
    of `np.exp`, which x86 computes lane by lane, is kept scalar: vectorized, it ran 1.09x
    Numba's time, scalar 1.01x (ember/codegen/ordered_reductions)."""
    compiled = COMPILED[numpy_scalars_sum]
    compiled(np.linspace(0.0, 1.0, 5))
    code = "\n".join(compiled.inspect_llvm().values())
    assert ".checked:" in code and ".unflagged:" in code
    assert "x double>" not in code


def test_first_failing_element_decides():
    a = np.zeros(1000)
    a[700] = np.nan
    a[300] = np.inf
    with pytest.raises(OverflowError, match="cannot convert float infinity to integer"):
        COMPILED[rounded_total](a)
    a[100] = np.nan
    with pytest.raises(ValueError, match="cannot convert float NaN to integer"):
        COMPILED[rounded_total](a)


def test_huge_values_raise_as_outside_loops():
    """Beyond int64 (where ember's ints stop following Python's) the loop's conversion raises
    what a lone conversion raises, at the first such element."""

    def one(x):
        return int(x)

    def each(a):
        out = np.empty(a.shape[0], dtype=np.int64)
        for i in range(a.shape[0]):
            out[i] = int(a[i])
        return out

    for huge in (1e300, -1e300, 2.0**63, -(2.0**63) * 1.5):
        a = np.array([1.0, -(2.0**63), huge, 2.0**62])
        with pytest.raises(OverflowError, match="beyond int64"):
            ember.njit(one)(huge)
        with pytest.raises(OverflowError, match="beyond int64"):
            ember.njit(each)(a)
    a = np.array([1.0, -(2.0**63), 2.0**62, -3.5])
    np.testing.assert_array_equal(ember.njit(each)(a), [int(x) for x in a])


def test_failure_frees_the_loops_array():
    a = np.ones(64)
    a[10] = -1.0
    COMPILED[scaled_sqrt](np.ones(3))  # compiled before counting
    before = ember.runtime.stats()
    with pytest.raises(ValueError, match="math domain error"):
        COMPILED[scaled_sqrt](a)
    assert ember.runtime.stats().live == before.live


def into_argument(a, out):
    for i in range(a.shape[0]):
        out[i] = int(a[i])


def indexes_with_result(a, counts):
    for i in range(a.shape[0]):
        counts[int(a[i])] += 1
    return counts


@pytest.mark.parametrize(
    "kernel, make_args",
    [
        (into_argument, lambda a: (a, np.full(a.shape[0], -1))),
        (indexes_with_result, lambda a: (a, np.zeros(4, dtype=np.int64))),
    ],
)
def test_visible_effects_keep_checks_in_place(kernel, make_args):
    """A store into the caller's array, or an index computed by the conversion: no deferral,
    so the caller sees exactly the elements written before the exception."""
    a = np.array([1.0, 2.0, np.nan, 3.0])
    expected_args, got_args = make_args(a), make_args(a)
    with pytest.raises(ValueError):
        kernel(*expected_args)
    with pytest.raises(ValueError):
        ember.njit(kernel)(*got_args)
    np.testing.assert_array_equal(got_args[1], expected_args[1])
