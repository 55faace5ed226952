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
