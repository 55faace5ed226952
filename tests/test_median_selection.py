"""np.median and the quantiles select the middle items of NaN-free values by branch-free
partitions (select_kth_number in ember/library/numpy/sorting.py): results equal NumPy's on
random, tied, sorted and pattern inputs (organ pipe, constant), with NaN, infinities and zeros of
both signs, and the selection leaves a[k] in place with no larger item before it."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ember import njit
from ember.library.numpy.sorting import select_kth_number

median = njit(lambda a: np.median(a))
percentile = njit(lambda a, q: np.percentile(a, q))
select = njit(lambda a, k: select_kth_number(a, k))


def assert_same_median(a):
    got, expected = median(a), np.median(a)
    np.testing.assert_equal(got, expected)  # NaN equals NaN; -0.0 and 0.0 compare equal
    if expected == 0:
        assert np.signbit(got) == np.signbit(expected)


def organ_pipe(n):
    return np.concatenate([np.arange(n // 2), np.arange(n - n // 2)[::-1]]).astype(float)


PATTERNS = {
    "random": lambda n: np.random.default_rng(n).random(n),
    "ascending": lambda n: np.arange(float(n)),
    "descending": lambda n: np.arange(float(n))[::-1].copy(),
    "organ pipe": organ_pipe,
    "constant": lambda n: np.full(n, -2.5),
    "few values": lambda n: np.random.default_rng(n).integers(0, 3, n).astype(float),
    "sawtooth": lambda n: (np.arange(n) % 17).astype(float),
    "zeros of both signs": lambda n: np.where(np.arange(n) % 2 == 0, 0.0, -0.0),
}


@pytest.mark.parametrize("n", [17, 18, 1000, 4097])
@pytest.mark.parametrize("pattern", PATTERNS, ids=str)
def test_median_of_patterns_equals_numpy(pattern, n):
    assert_same_median(PATTERNS[pattern](n))


@pytest.mark.parametrize("dtype", [np.int64, np.uint8, np.int16, np.float32, np.bool_])
def test_median_of_other_dtypes_equals_numpy(dtype):
    a = np.random.default_rng(3).integers(0, 200, 2001).astype(dtype)
    assert_same_median(a)
    assert_same_median(a[:-1])


def test_a_nan_anywhere_gives_nan():
    for place in (0, 700, 1999):
        a = np.random.default_rng(place).random(2000)
        a[place] = np.nan
        assert np.isnan(median(a))


floats = st.floats(allow_nan=True, allow_infinity=True, width=64)


@settings(max_examples=40, deadline=None)
@given(
    hnp.arrays(
        np.float64,
        st.integers(1, 300),
        elements=st.one_of(floats, st.sampled_from([0.0, -0.0, 1.0, -1.0])),
    )
)
def test_median_equals_numpy(a):
    with np.errstate(all="ignore"):
        assert_same_median(a)


@settings(max_examples=40, deadline=None)
@given(
    hnp.arrays(np.int64, st.integers(1, 400), elements=st.integers(-5, 5)),
    st.floats(0, 100),
)
def test_percentile_of_ties_equals_numpy(a, q):
    assert percentile(a, q) == pytest.approx(np.percentile(a, q))


@settings(max_examples=40, deadline=None)
@given(
    hnp.arrays(np.float64, st.integers(1, 400), elements=st.floats(-1e6, 1e6)),
    st.data(),
)
def test_selection_places_the_kth_item(a, data):
    k = data.draw(st.integers(0, a.shape[0] - 1))
    b = a.copy()
    select(b, k)
    assert b[k] == np.sort(a)[k]
    assert (b[:k] <= b[k]).all() and (b[k + 1 :] >= b[k]).all()
    np.testing.assert_array_equal(np.sort(b), np.sort(a))  # the same items, reordered
