"""`for` loops over range(): differential against CPython for steps of any sign, empty ranges,
bounds at the int64 limits, narrow and unsigned integers, break/else and `next` past the end."""

import re

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import ember

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def summary(start, stop, step):
    """(count, first, last, xor of all) of the values a `for` loop takes: exact at any bounds."""
    count, first, last, mixed = 0, 0, 0, 0
    for i in range(start, stop, step):
        if count == 0:
            first = i
        last = i
        mixed ^= i
        count += 1
    return count, first, last, mixed


def summary_unsigned(start, stop, step):
    """`summary` of an all-uint64 range (whose values are uint64: no int64 zero to mix in)."""
    count = 0
    first = last = mixed = start - start
    for i in range(start, stop, step):
        if count == 0:
            first = i
        last = i
        mixed ^= i
        count += 1
    return count, first, last, mixed


def summary_to_stop(stop):
    count, total = 0, 0
    for i in range(stop):
        count += 1
        total += i
    return count, total


def first_at_or_past(start, stop, step, limit):
    """The first value at or past `limit`, or -1 (for/else) when there is none."""
    for i in range(start, stop, step):
        if i >= limit:
            found = i
            break
    else:
        found = -1
    return found


def nested_pairs(n, m):
    total = 0
    for i in range(n):
        for j in range(i, m):
            total += i * m + j
    return total


def length(start, stop, step):
    return len(range(start, stop, step))


def next_past_the_end(start, stop, step, extra):
    """Values `next` takes with a default, `extra` more times than the range has values."""
    it = iter(range(start, stop, step))
    taken = 0
    for _ in range(len(range(start, stop, step)) + extra):
        taken = taken * 3 + next(it, -7) % 1000
    return taken


def python_length(start, stop, step):
    """len(range(...)) without CPython's limit of sys.maxsize."""
    return max(0, -((start - stop) // step))


bound = st.one_of(
    st.integers(-50, 50),
    st.integers(INT64_MIN, INT64_MIN + 40),
    st.integers(INT64_MAX - 40, INT64_MAX),
    st.integers(INT64_MIN, INT64_MAX),
)
step = st.one_of(
    st.integers(-9, 9).filter(bool),
    st.sampled_from([INT64_MAX, INT64_MIN, INT64_MIN + 1, 2**62, -(2**62)]),
)


@settings(max_examples=25, deadline=None)
@given(bound, bound, step)
def test_values_match_python_at_any_bounds(start, stop, step):
    """Near the int64 limits the value after the last one does not fit: the loop still stops
    (no wrap-around), as CPython does with its unbounded integers."""
    if python_length(start, stop, step) > 10_000:
        stop = start + 10_000 * step if INT64_MIN <= start + 10_000 * step <= INT64_MAX else start
    assert ember.njit(summary)(start, stop, step) == summary(start, stop, step)


@settings(max_examples=25, deadline=None)
@given(bound, bound, step)
def test_len_matches_python(start, stop, step):
    expected = python_length(start, stop, step)
    assume(expected <= INT64_MAX)  # (CPython raises OverflowError past that)
    assert ember.njit(length)(start, stop, step) == expected


@pytest.mark.parametrize(
    "start, stop, step",
    [
        (0, 10, 1),
        (10, 0, 1),  # empty
        (5, 5, 1),  # empty
        (10, 0, -3),
        (0, 10, -1),  # empty
        (INT64_MAX - 5, INT64_MAX, 1),
        (INT64_MAX - 5, INT64_MAX, 4),  # the value after the last would pass INT64_MAX
        (INT64_MIN + 5, INT64_MIN, -2),
        (INT64_MIN, INT64_MAX, 2**62),
        (INT64_MAX, INT64_MIN, INT64_MIN),
        (INT64_MIN, INT64_MAX, INT64_MAX),
    ],
)
def test_edge_ranges(start, stop, step):
    assert ember.njit(summary)(start, stop, step) == summary(start, stop, step)


@pytest.mark.parametrize("stop", [-3, 0, 1, 17])
def test_one_argument_ranges(stop):
    assert ember.njit(summary_to_stop)(stop) == summary_to_stop(stop)


def test_zero_step_raises():
    with pytest.raises(ValueError, match="must not be zero"):
        ember.njit(summary)(0, 10, 0)


@pytest.mark.parametrize(
    "start, stop, step, limit",
    [(0, 10, 1, 4), (0, 10, 1, 40), (20, -5, -3, -100), (20, -5, -3, 15), (0, 0, 1, 0)],
)
def test_break_and_else(start, stop, step, limit):
    assert ember.njit(first_at_or_past)(start, stop, step, limit) == first_at_or_past(
        start, stop, step, limit
    )


@pytest.mark.parametrize("n, m", [(0, 5), (5, 0), (4, 7), (7, 4)])
def test_nested_loops(n, m):
    assert ember.njit(nested_pairs)(n, m) == nested_pairs(n, m)


@pytest.mark.parametrize(
    "start, stop, step",
    [(0, 3, 1), (5, 0, -2), (INT64_MAX - 2, INT64_MAX, 1), (INT64_MIN + 3, INT64_MIN, -1)],
)
def test_next_stays_exhausted(start, stop, step):
    """Past the end `next` keeps giving its default, even where one more step would wrap."""
    for extra in (0, 1, 4):
        expected = next_past_the_end(start, stop, step, extra)
        assert ember.njit(next_past_the_end)(start, stop, step, extra) == expected


@pytest.mark.parametrize(
    "make",
    [np.int8, np.int16, np.int32, np.uint8, np.uint32],
)
def test_narrow_integer_bounds(make):
    unsigned = np.iinfo(make).min == 0
    low, high = (0, 100) if unsigned else (-100, 100)
    for start, stop, step in [(low, high, 7), (high, low, -7), (high, low, 7)]:
        if step < 0 and unsigned:
            continue
        args = make(start), make(stop), make(step)
        assert ember.njit(summary)(*args) == summary(start, stop, step)


@pytest.mark.parametrize(
    "start, stop, step", [(0, 10, 3), (2**64 - 5, 2**64 - 1, 3), (2**63, 2**63 + 9, 2), (9, 0, 1)]
)
def test_uint64_ranges(start, stop, step):
    """All-uint64 bounds make a uint64 range: values past INT64_MAX, no wrap at 2**64."""
    args = np.uint64(start), np.uint64(stop), np.uint64(step)
    count, first, last, mixed = ember.njit(summary_unsigned)(*args)
    assert (count, int(first), int(last), int(mixed)) == summary(start, stop, step)


def test_unit_step_loop_keeps_one_plain_counter():
    """range(n) with its step of 1 advances by a plain `add nsw` (no saturating add left), and
    no remaining count is divided out before the loop."""

    @ember.njit
    def total(a):
        s = 0.0
        for i in range(a.shape[0]):
            s += a[i]
        return s

    a = np.arange(10.0)
    assert total(a) == a.sum()
    ir = total.inspect_llvm()
    ir = "\n".join(ir.values()) if isinstance(ir, dict) else ir
    body = ir[ir.index("define") :]
    assert "add.sat" not in body
    assert "udiv" not in body


def next_after_loop(n, stop_early):
    """An iterator a `for` loop exhausted (or left) keeps its place for `next` afterwards."""
    it = iter(range(n))
    total = 0
    for i in it:
        total += i
        if i == stop_early:
            break
    return total, next(it, -1), next(it, -2)


def next_after_zip(n, m):
    it = iter(range(n))
    total = 0
    for a, b in zip(range(m), it):
        total += a * b
    return total, next(it, -1), next(it, -2)


def empty_unit_ranges(start, stop):
    """A unit step's stop below its start: no values (the loop's `next != stop` test sees a
    stop raised to the start)."""
    count = 0
    for i in range(start, stop):
        count += 1 + i - i
    for j in range(stop):
        count += 1 + j - j
    return count


@pytest.mark.parametrize("n, stop_early", [(0, -1), (3, -1), (5, 2), (5, 4)])
def test_iterator_exhausted_by_a_loop_stays_exhausted(n, stop_early):
    assert ember.njit(next_after_loop)(n, stop_early) == next_after_loop(n, stop_early)


@pytest.mark.parametrize("n, m", [(0, 3), (3, 3), (3, 8), (8, 3)])
def test_iterator_exhausted_by_zip_stays_exhausted(n, m):
    assert ember.njit(next_after_zip)(n, m) == next_after_zip(n, m)


@settings(max_examples=25, deadline=None)
@given(bound, bound)
def test_unit_step_bounds_in_any_order(start, stop):
    assume(stop - start < 1000 and stop < 1000)  # (short or empty)
    assert ember.njit(empty_unit_ranges)(start, stop) == empty_unit_ranges(start, stop)


def first_duplicate_gap(a):
    best = a.shape[0]
    for i in range(a.shape[0]):
        j = i + 1
        while j < a.shape[0] and j - i < best:
            if a[j] == a[i]:
                best = j - i
                break
            j += 1
    return best


def test_counter_from_loop_variable_keeps_no_negative_index_fixup():
    """`j = i + 1` counted up from a range(n) loop variable indexes without a fix-up for
    negative indices: the loop's counter keeps its `nsw` (known non-negative) through LLVM's
    exit-test rewriting (1.4x Numba's time when it did not)."""
    kernel = ember.njit(first_duplicate_gap)
    a = np.random.default_rng(3).integers(0, 40, 60)
    assert kernel(a) == first_duplicate_gap(a)
    assert kernel(np.array([5])) == 1 and kernel(np.zeros(0, np.int64)) == 0
    ir = kernel.inspect_llvm(kernel.signatures[0])
    body = ir[ir.index("define") :]
    assert re.search(r"icmp slt i64 %[\w.]+, 0\n", body) is None  # (index < 0)
