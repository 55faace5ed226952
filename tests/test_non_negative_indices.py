"""Array indices proven never negative (ember/lowering/int_ranges.py, non_negative_indices)
skip the wrap-around from the end; indices that may be negative keep CPython's meaning."""

import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import ember


@ember.njit
def min_plus_max(a):
    lo = a[0]
    hi = a[0]
    for i in range(a.shape[0]):
        v = a[i]
        if v < lo:
            lo = v
        elif v > hi:
            hi = v
    return lo + hi


@ember.njit
def shifted_back(a, shift):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i - shift]  # negative for i < shift: counted from the end
    return out


@ember.njit
def sometimes_last(a, every):
    total = 0.0
    for i in range(a.shape[0]):
        j = i
        if every and i % every == 0:
            j = -1
        total += a[j] * (i + 1)
    return total


@ember.njit
def grid_corners(m):
    total = 0.0
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            if m[i, j] > 0.5:
                total += m[i, j]
            elif m[i, j] < 0.1:
                total -= m[-1 - i, j]
    return total


finite = st.floats(-1e6, 1e6, allow_nan=False)


@settings(max_examples=40, deadline=None)
@given(arrays(np.float64, st.integers(1, 40), elements=finite), st.integers(0, 45))
def test_results_match_cpython(a, shift):
    assert min_plus_max(a) == min_plus_max.py_func(a)
    if shift <= a.shape[0]:
        np.testing.assert_array_equal(shifted_back(a, shift), shifted_back.py_func(a, shift))
    for every in (0, 1, 3):
        assert sometimes_last(a, every) == sometimes_last.py_func(a, every)


def test_negative_indices_of_a_nest_count_from_the_end():
    m = np.random.default_rng(3).uniform(size=(7, 5))
    assert grid_corners(m) == grid_corners.py_func(m)


def test_the_range_loop_with_elif_has_no_wrap_around():
    """`if`/`elif` splits the loop into a nest where LLVM loses that `i` starts at 0; the
    fix-up is an `icmp slt i64 ..., 0` feeding a select."""
    min_plus_max(np.ones(3))
    llvm_ir = next(iter(min_plus_max.inspect_llvm().values()))
    body = llvm_ir[llvm_ir.index("define") :]
    assert not re.search(r"icmp slt i64 %[\w.]+, 0", body)


@ember.njit
def merge_sorted(left, right):
    """Counters of `while` loops, stepped up by one from 0: indices never negative."""
    out = np.empty(left.shape[0] + right.shape[0])
    i = j = k = 0
    while i < left.shape[0] and j < right.shape[0]:
        if left[i] <= right[j]:
            out[k] = left[i]
            i += 1
        else:
            out[k] = right[j]
            j += 1
        k += 1
    while i < left.shape[0]:
        out[k] = left[i]
        i += 1
        k += 1
    while j < right.shape[0]:
        out[k] = right[j]
        j += 1
        k += 1
    return out


@ember.njit
def counters_that_may_go_negative(a, reset, back):
    """A counter reset below 0, one stepped down and one stepped by a run-time amount: their
    negative values still count from the end, as in CPython."""
    total = 0.0
    i = 0
    was_reset = False
    while i < a.shape[0]:
        total += a[i]
        i += 1
        if i == reset and not was_reset:
            i = -a.shape[0]  # the loop runs on from -n to n
            was_reset = True
    j = 0
    while j > -a.shape[0]:
        total += a[j] * 2
        j -= 1
    k = 0
    while abs(k) < a.shape[0]:
        total += a[k] * 3
        k += back
    return total


@settings(max_examples=40, deadline=None)
@given(
    arrays(np.float64, st.integers(0, 30), elements=finite),
    arrays(np.float64, st.integers(0, 30), elements=finite),
)
def test_while_loop_counters_merge_as_python(left, right):
    left, right = np.sort(left), np.sort(right)
    np.testing.assert_array_equal(merge_sorted(left, right), merge_sorted.py_func(left, right))


@settings(max_examples=30, deadline=None)
@given(
    arrays(np.float64, st.integers(1, 20), elements=finite),
    st.integers(1, 25),
    st.sampled_from([-3, -1, 1, 2]),
)
def test_counters_that_may_go_negative_count_from_the_end(a, reset, back):
    assert counters_that_may_go_negative(a, reset, back) == (
        counters_that_may_go_negative.py_func(a, reset, back)
    )


def test_while_loop_counters_have_no_wrap_around():
    # The fix-up of a possibly negative index i is `i + (i >> 63 & n)`: no arithmetic shift
    # by 63 may be left in the merge's machine code.
    merge_sorted(np.ones(3), np.ones(2))
    assembly = next(iter(merge_sorted.inspect_asm().values()))
    assert not re.search(r"sar[lq]?\s+\$63", assembly)
