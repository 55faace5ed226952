"""max, min, argmax and argmin of whole arrays (ember/library/numpy/reductions.py and
arg_extremes.py) equal NumPy's on every path: the one-pass scan of short lines and of strided
views (a column, a[::k]), the block search after the vectorized fold of long contiguous lines,
and the fold through strides of other views; with NaN anywhere, ties, signed zeros and integer
extremes."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import for_types, same

import ember


@ember.njit
def extremes(a):
    return np.argmax(a), np.argmin(a), a.max(), a.min()


@ember.njit
def column_extremes(m, j):
    column = m[:, j]
    return np.argmax(column), np.argmin(column), column.max(), np.min(column)


def expected(a):
    return np.argmax(a), np.argmin(a), a.max(), a.min()


def equal_value(got, want, zero_sign: bool) -> bool:
    """Equal (NaN equals NaN); -0.0 and 0.0 differ only when `zero_sign`: NumPy leaves the
    sign of a zero max unspecified, and ember's vectorized fold gives 0.0 over -0.0."""
    return same(got, want) if zero_sign else (got == want or (got != got and want != want))


def check(a, zero_sign=False):
    got = for_types(extremes, a)(a)
    want = expected(a)
    assert got[:2] == want[:2], (a, got, want)
    for got_value, want_value in zip(got[2:], want[2:]):
        assert equal_value(got_value, want_value.item(), zero_sign), (a, got, want)


# Lengths on both sides of the scan's limit (512) and of the search's blocks (16).
LENGTHS = [1, 2, 15, 16, 17, 40, 511, 512, 513, 1000, 4099]


def views(base):
    """The array itself, every other item, reversed, and a column of a C matrix of it."""
    yield base
    yield np.repeat(base, 2)[::2]
    yield base[::-1]
    yield np.ascontiguousarray(np.stack([base, base[::-1]], axis=1))[:, 0]


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int8, np.uint16])
def test_random_values_on_every_path(n, dtype):
    rng = np.random.default_rng(n)
    base = (rng.random(n) * 200 - 100).astype(dtype)
    for a in views(base):
        check(a)


@pytest.mark.parametrize("n", LENGTHS)
def test_nan_at_the_start_middle_and_end(n):
    base = np.random.default_rng(7).random(n)
    for where in {0, n // 2, n - 1}:
        a = base.copy()
        a[where] = np.nan
        if n > 3:
            a[-2] = np.nan  # a later NaN: the first one is NumPy's answer
        for view in views(a):
            check(view)


@pytest.mark.parametrize("n", LENGTHS)
def test_ties_give_the_first_index(n):
    a = np.zeros(n)
    a[n // 3 :: 5] = 2.0
    a[n // 2 :: 7] = -2.0
    for view in views(a):
        check(view)


def test_signed_zeros_as_numpy_on_strided_views():
    # NumPy's own loop keeps the last of equal items: max([-0.0, 0.0]) is 0.0.
    for values in ([-0.0, 0.0], [0.0, -0.0], [0.0, -0.0, 0.0], [-0.0, 0.0, -0.0]):
        a = np.repeat(np.array(values), 2)[::2]
        check(a, zero_sign=True)


def test_integer_limits_and_booleans():
    info = np.iinfo(np.int64)
    for values in ([info.min, info.max, 0], [info.max] * 40, [info.min, info.min, -1]):
        for view in views(np.array(values, dtype=np.int64)):
            check(view)
    for view in views(np.array([False, True, True, False] * 150)):
        got = for_types(extremes, view)(view)
        assert got[:2] == (np.argmax(view), np.argmin(view))


def test_columns_of_a_matrix():
    m = np.random.default_rng(3).random((700, 5))
    m[300, 2] = np.nan
    for j in range(5):
        got = column_extremes(m, j)
        column = m[:, j]
        assert got[:2] == (np.argmax(column), np.argmin(column))
        assert same(got[2], column.max().item()) and same(got[3], column.min().item())


def test_two_dimensional_views_fold_through_strides():
    m = np.random.default_rng(4).random((60, 50))
    m[17, 33] = np.nan
    for view in (m[::2, ::3], m[:, 1:], m.T, m[::-1]):
        check(view)
        clean = np.nan_to_num(view, nan=0.25)
        check(clean)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.sampled_from([0.0, -0.0, 1.5, -2.0, 3.0, np.nan, np.inf, -np.inf]),
        min_size=1,
        max_size=70,
    ),
    st.integers(min_value=1, max_value=3),
)
def test_hypothesis_items_and_strides(values, step):
    a = np.repeat(np.array(values), step)[::step]
    check(a)
    check(np.array(values))


def test_empty_arrays_raise_as_numpy():
    with pytest.raises(ValueError, match="empty"):
        ember.njit(lambda a: np.argmax(a))(np.empty(0)[::2])
    with pytest.raises(ValueError, match="zero-size"):
        ember.njit(lambda a: a.max())(np.empty(0)[::2])
