"""np.histogram with explicit bin edges (an array), against NumPy."""

import numpy as np
import pytest

from ember import njit


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
