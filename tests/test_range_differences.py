"""A range's value minus the bound it was made with (ember/lowering/int_ranges.py:
non_negative_differences) indexes without a negative wrap-around, and gives CPython's results
whatever the bound's sign; where the bound may have changed, negative indices still wrap."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import ember


def downward_from_bound(cap, w):
    """Knapsack's loop: c runs down to w (its stop is w - 1), so c - w >= 0."""
    out = np.zeros(2 * cap + 2, dtype=np.int64)
    for c in range(cap, w - 1, -1):
        out[c - w] += c
        out[c] += 1  # c itself may be negative: it wraps, as in Python
    return out


def upward_from_bound(a, k):
    """i starts at k, so i - k >= 0 (a[i] wraps for a negative i)."""
    out = np.zeros(a.shape[0] * 2, dtype=np.float64)
    for i in range(k, a.shape[0]):
        out[i - k] += a[i]
    return out


def in_knapsack(weights, values, capacity):
    best = np.zeros(capacity + 1, dtype=np.int64)
    for k in range(weights.shape[0]):
        w = weights[k]
        for c in range(capacity, w - 1, -1):
            candidate = best[c - w] + values[k]
            if candidate > best[c]:
                best[c] = candidate
    return best


def bound_changed_after(a, k):
    """`k` changes after the range is made: i - k may be negative, and wraps."""
    out = np.zeros(a.shape[0], dtype=np.float64)
    r = range(k, a.shape[0])
    k = k + 2
    for i in r:
        out[i - k] += a[i]
    return out


def bound_from_outer_loop(a, shift):
    """The bound is made in another block than the range: no claim, same results."""
    out = np.zeros(a.shape[0], dtype=np.float64)
    for k in range(shift, shift + 2):
        if k > 100:
            k = 0
        for i in range(k, a.shape[0]):
            out[i - k - 1] += a[i]
    return out


COMPILED = {
    f: ember.njit(f)
    for f in (
        downward_from_bound,
        upward_from_bound,
        in_knapsack,
        bound_changed_after,
        bound_from_outer_loop,
    )  # fmt: skip
}


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 12), st.data())
def test_downward_from_bound(cap, data):
    w = data.draw(st.integers(-cap, cap + 2))
    expected = downward_from_bound(cap, w)
    np.testing.assert_array_equal(COMPILED[downward_from_bound](cap, w), expected)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-10, 10), min_size=1, max_size=12), st.data())
def test_upward_and_changed_bounds(items, data):
    a = np.array(items)
    k = data.draw(st.integers(-a.shape[0], a.shape[0] + 1))
    for func in (upward_from_bound, bound_changed_after, bound_from_outer_loop):
        try:
            expected = func(a, k)
        except IndexError:
            continue  # (ember's unchecked indexing is undefined there)
        np.testing.assert_array_equal(COMPILED[func](a, k), expected)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 9), st.integers(0, 50)), max_size=8), st.integers(0, 30))
def test_knapsack_as_python(items, capacity):
    weights = np.array([w for w, _ in items], dtype=np.int64)
    values = np.array([v for _, v in items], dtype=np.int64)
    expected = in_knapsack(weights, values, capacity)
    np.testing.assert_array_equal(COMPILED[in_knapsack](weights, values, capacity), expected)
