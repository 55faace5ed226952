"""np.arange(start, stop[, step]) and np.linspace as parfors, and `a[mask] = array` (a
compaction: block counts, a running sum, block fills) under parallel=True: three ways (CPython
with NumPy, njit, njit(parallel=True)), parfor counts, errors as serial code raises them, and
the reasons of the assignments left serial."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from parallel_helpers import three_ways

import ember
from ember import njit

rng = np.random.default_rng(21)


@pytest.fixture(autouse=True)
def every_item_is_worth_a_thread(monkeypatch):
    """Loops of one item per iteration below 16384 items per thread run on one thread; the
    arrays here are small, so the bar is lowered for them to run (and race) on all threads."""
    from ember.parallel import lowering

    monkeypatch.setattr(lowering, "MIN_ITEMS_PER_CHUNK", 1)


def conversions(dispatcher):
    """What the parallel pass made of each specialization (all of them agree here)."""
    found = {str(r.parallel_report.conversions()) for r in dispatcher.overloads.values()}
    assert len(found) == 1, found
    return next(iter(dispatcher.overloads.values())).parallel_report.conversions()


def notes(dispatcher):
    return [n for r in dispatcher.overloads.values() for n in r.parallel_report.notes]


# ---------------------------------------------------------------------------- ranges


def int_ranges(start, stop, step):
    return np.arange(start, stop, step), np.arange(start, stop)


def linspaces(start, stop, num):
    return (
        np.linspace(start, stop, num),
        np.linspace(start, stop, num, endpoint=False),
        np.linspace(start, stop),
    )


@settings(max_examples=25, deadline=None)
@given(st.integers(-300, 300), st.integers(-300, 300), st.integers(-7, 7).filter(bool))
def test_integer_arange_equals_numpy(start, stop, step):
    got = _INT_RANGES(start, stop, step)
    for g, e in zip(got, int_ranges(start, stop, step)):
        np.testing.assert_array_equal(g, e)
        assert g.dtype == e.dtype


_INT_RANGES = njit(parallel=True)(int_ranges)


def test_integer_arange_three_ways_and_counts():
    parallel = three_ways(int_ranges, 5, 1000, 3, exact=True)
    assert conversions(parallel) == {"np.arange": 2}


def float_range(start, stop, step):
    return np.arange(start, stop, step)


def test_float_arange_equals_serial_exactly_and_numpy_to_rounding():
    serial, parallel = njit(float_range), njit(parallel=True)(float_range)
    for args in [(0.5, 1000.0, 0.3), (10.0, -5.0, -0.25), (0, 7.5, 1)]:
        got = parallel(*args)
        np.testing.assert_array_equal(got, serial(*args))
        np.testing.assert_allclose(got, float_range(*args), rtol=1e-12, atol=1e-12)
    assert conversions(parallel) == {"np.arange": 1}


def test_arange_step_zero_raises_as_serial():
    with pytest.raises(ZeroDivisionError, match="step is zero"):
        _INT_RANGES(0, 10, 0)


@settings(max_examples=25, deadline=None)
@given(
    st.floats(-1e6, 1e6),
    st.floats(-1e6, 1e6),
    st.integers(0, 2000),
)
def test_linspace_equals_serial_and_numpy(start, stop, num):
    got = _LINSPACES(start, stop, num)
    for g, s, e in zip(got, _LINSPACES_SERIAL(start, stop, num), linspaces(start, stop, num)):
        np.testing.assert_array_equal(g, s)
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-9)


_LINSPACES = njit(parallel=True)(linspaces)
_LINSPACES_SERIAL = njit(linspaces)


def test_linspace_three_ways_counts_and_ends():
    parallel = three_ways(linspaces, -2.0, 3.0, 1001)
    assert conversions(parallel) == {"np.linspace": 3}
    assert parallel(-2.0, 3.0, 1001)[0][-1] == 3.0  # the end point is exactly stop
    assert parallel(4.0, 3.0, 1)[0][0] == 4.0
    with pytest.raises(ValueError, match="non-negative"):
        parallel(0.0, 1.0, -1)


def scaled_grid(n):
    x = np.linspace(0.0, 1.0, n)
    return x * 2.0 + 1.0


def test_linspace_fuses_with_the_expression_using_it():
    parallel = three_ways(scaled_grid, 5000)
    (result,) = parallel.overloads.values()
    assert result.parallel_report.fused, result.parallel_report.not_fused


# ---------------------------------------------------------------------------- a[mask] = array


def assign_masked(a, mask, b):
    a[mask] = b
    return a


SIZE = 3 * 4096 + 555  # three blocks of 4096 and a tail


@pytest.mark.parametrize("density", [0.0, 0.3, 1.0])
def test_mask_assignment_of_an_array_three_ways(density):
    a = rng.random(SIZE)
    mask = rng.random(SIZE) < density
    b = rng.random(int(mask.sum()))
    parallel = three_ways(assign_masked, a, mask, b, exact=True)
    assert conversions(parallel) == {"a[mask] = array": 2}  # count, then place


def test_mask_assignment_of_ints_into_floats_and_repeats():
    a = np.zeros(SIZE)
    mask = rng.random(SIZE) < 0.5
    b = np.arange(int(mask.sum()))
    parallel = njit(parallel=True)(assign_masked)
    expected = assign_masked(a.copy(), mask, b)
    for _ in range(20):
        np.testing.assert_array_equal(parallel(a.copy(), mask, b), expected)


def test_mask_assignment_errors_and_broadcast_take_the_serial_path():
    a = rng.random(SIZE)
    mask = rng.random(SIZE) < 0.5
    parallel, serial = njit(parallel=True)(assign_masked), njit(assign_masked)
    too_short = np.ones(int(mask.sum()) - 1)
    with pytest.raises(ValueError) as expected:
        serial(a.copy(), mask, too_short)
    with pytest.raises(ValueError) as got:
        parallel(a.copy(), mask, too_short)
    assert str(got.value) == str(expected.value)
    one = np.array([7.0])  # one item broadcasts to every True place
    np.testing.assert_array_equal(parallel(a.copy(), mask, one), assign_masked(a.copy(), mask, one))


def overlapping(a, mask):
    a[mask] = a[::-1][: mask.sum()]
    return a


def test_mask_assignment_from_an_overlapping_view():
    a = rng.random(SIZE)
    mask = rng.random(SIZE) < 0.6
    three_ways(overlapping, a, mask, exact=True)


def test_mask_assignments_left_serial_say_why():
    def two_d(a, mask, b):
        a[mask] = b
        return a

    def by_index(a, index):
        a[index] = 1.0
        return a

    a = rng.random((40, 50))
    mask = a > 0.5
    parallel = three_ways(two_d, a, mask, np.ones(int(mask.sum())), exact=True)
    assert conversions(parallel) == {}
    assert any("1-d" in note for note in notes(parallel)), notes(parallel)
    parallel = three_ways(by_index, rng.random(100), np.array([3, 3, 9]), exact=True)
    assert conversions(parallel) == {}
    assert any("index may repeat" in note for note in notes(parallel)), notes(parallel)


def test_setitem_switch_off_keeps_the_assignment_serial():
    off = njit(parallel={"setitem": False})(assign_masked)
    a = rng.random(SIZE)
    mask = a > 0.5
    b = np.ones(int(mask.sum()))
    np.testing.assert_array_equal(off(a.copy(), mask, b), assign_masked(a.copy(), mask, b))
    assert conversions(off) == {}
    assert ember.get_num_threads() >= 1
