"""`cross2d` from `ember.np.extensions` (Numba's `numba.np.extensions`) against NumPy."""

import numpy as np
import pytest

from ember import njit
from ember.np.extensions import cross2d


def numpy_cross2d(a, b):
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


@njit
def jitted_cross2d(a, b):
    return cross2d(a, b)


@pytest.mark.parametrize(
    "a, b",
    [
        (np.array([1.0, 2.0]), np.array([3.0, 4.0])),
        (np.arange(8.0).reshape(4, 2), np.arange(8.0)[::-1].reshape(4, 2)),
        (np.arange(6).reshape(3, 2), np.array([5, -7])),
        (np.array([0.5, -1.5]), np.arange(6.0).reshape(3, 2)),
        (np.arange(12.0).reshape(2, 3, 2), np.ones((3, 2))),
    ],
)
def test_cross2d_matches_numpy(a, b):
    expected = numpy_cross2d(a, b)
    np.testing.assert_array_equal(jitted_cross2d(a, b), expected)
    np.testing.assert_array_equal(cross2d(a, b), expected)


def test_cross2d_needs_two_components():
    with pytest.raises(ValueError, match="dimension must be 2"):
        jitted_cross2d(np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match="dimension must be 2"):
        cross2d(np.ones(3), np.ones(2))
