"""np.histogram against NumPy: explicit bin edges (an array), and equal-width bins (an integer
count, with or without a range) at and next to their edges; ranges NumPy refuses."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ember import njit
from ember.library.builtins.numeric import truncated_or_int64_min


@njit
def histogram(a, edges):
    return np.histogram(a, bins=edges)


CASES = [
    (np.random.default_rng(0).random(60), np.array([0.0, 0.5, 1.0])),
    (np.array([0.0, 0.25, 0.5, 1.0, np.nan, 2.0, -1.0]), np.array([0.0, 0.25, 0.5, 1.0])),
    (np.random.default_rng(1).integers(0, 10, 40), np.array([0, 3, 7, 9])),
    (np.arange(12.0).reshape(3, 4), np.array([1.0, 1.0, 5.0, 11.0])),  # an empty [1, 1) bin
]


@pytest.mark.parametrize("a, edges", CASES)
def test_counts_and_edges_match_numpy(a, edges):
    counts, returned = histogram(a, edges)
    expected_counts, expected_edges = np.histogram(a, bins=edges)
    np.testing.assert_array_equal(counts, expected_counts)
    np.testing.assert_array_equal(returned, expected_edges)


def test_decreasing_edges_are_refused_like_numpy():
    with pytest.raises(ValueError, match="monotonically"):
        histogram(np.ones(3), np.array([1.0, 0.0]))


@njit
def histogram_of_range(a, bins, low, high):
    return np.histogram(a, bins=bins, range=(low, high))


@njit
def histogram_auto(a, bins):
    return np.histogram(a, bins=bins)


@pytest.mark.parametrize(
    "low, high, bins", [(0.0, 1.0, 10), (-3.0, 7.0, 7), (1e6, 1e6 + 1e-3, 50), (0.1, 0.7, 3)]
)
def test_values_on_and_next_to_equal_width_edges_match_numpy(low, high, bins):
    """The fast path trusts a computed bin only far from its edges; at them, NumPy's guard."""
    edges = np.linspace(low, high, bins + 1)
    near = np.concatenate(
        [edges, np.nextafter(edges, -np.inf), np.nextafter(edges, np.inf), [np.nan]]
    )
    rng = np.random.default_rng(bins)
    a = np.concatenate([near, rng.uniform(low - 1e-3, high + 1e-3, 2000)])
    for got, expected in (
        (histogram_of_range(a, bins, low, high), np.histogram(a, bins, (low, high))),
        (histogram_auto(a[~np.isnan(a)], bins), np.histogram(a[~np.isnan(a)], bins)),
    ):
        np.testing.assert_array_equal(got[0], expected[0])
        np.testing.assert_array_equal(got[1], expected[1])


@settings(max_examples=30, deadline=None)
@given(
    hnp.arrays(
        np.float64,
        st.integers(1, 200),
        elements=st.floats(-1e3, 1e3) | st.sampled_from([0.0, -0.0, 0.1, 0.7, 1e-300]),
    ),
    st.integers(1, 60),
)
def test_equal_width_bins_match_numpy(a, bins):
    """The common path (the bin by truncation, tested by its distance from the bin's middle)
    and NumPy's guard at the edges, on values of any spread, with and without a range."""
    got, expected = histogram_auto(a, bins), np.histogram(a, bins)
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1])
    low, high = np.percentile(a, [20, 70])
    got = histogram_of_range(a, bins, low, high)[0]
    np.testing.assert_array_equal(got, np.histogram(a, bins, (low, high))[0])


@pytest.mark.parametrize(
    "a, low, high",
    [
        (np.array([1.0, np.nan]), None, None),
        (np.array([1.0, np.inf]), None, None),
        (np.array([1.0, 2.0]), 0.0, np.inf),
        (np.array([1.0, 2.0]), np.nan, 1.0),
        (np.array([1.0, 2.0]), 3.0, 1.0),
    ],
)
def test_a_range_not_finite_or_reversed_is_refused_like_numpy(a, low, high):
    with pytest.raises(ValueError):
        np.histogram(a, 5, None if low is None else (low, high))
    with pytest.raises(ValueError):
        if low is None:
            histogram_auto(a, 5)
        else:
            histogram_of_range(a, 5, low, high)


@settings(max_examples=40, deadline=None)
@given(st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([2.0**63, -(2.0**63)]))
def test_the_branch_free_truncation_is_int_or_int64_min(x):
    """The histogram's conversion: Python's int(x) where that fits int64, else -2**63."""
    try:
        expected = int(x) if -(2**63) <= int(x) < 2**63 else -(2**63)
    except (ValueError, OverflowError):
        expected = -(2**63)
    assert njit(lambda v: truncated_or_int64_min(v))(x) == expected


@pytest.mark.parametrize(
    "a",
    [
        np.random.default_rng(5).integers(-40, 90, 300),
        np.random.default_rng(6).integers(0, 2, 50).astype(np.bool_),
        np.random.default_rng(7).integers(0, 255, 99).astype(np.uint8),
        np.array([0.0, -0.0, 3.0, -1e300]),
    ],
    ids=["int64", "bool", "uint8", "wide"],
)
@pytest.mark.filterwarnings("ignore:Converting input from bool")  # NumPy's, for bool items
def test_the_range_found_in_one_pass_matches_numpy(a):
    got, expected = histogram_auto(a, 7), np.histogram(a, 7)
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1])


def test_nan_is_left_out_of_a_given_range_and_refused_from_an_autodetected_one():
    a = np.array([1.0, np.nan, 0.5, 1.5])
    got, expected = histogram_of_range(a, 4, 0.0, 2.0), np.histogram(a, 4, (0.0, 2.0))
    np.testing.assert_array_equal(got[0], expected[0])
    for values in (a, np.full(3, np.nan)):
        with pytest.raises(ValueError):
            np.histogram(values, 4)
        with pytest.raises(ValueError):
            histogram_auto(values, 4)
