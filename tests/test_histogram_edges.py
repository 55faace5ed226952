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
