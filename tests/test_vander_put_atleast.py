"""np.vander, np.put and np.atleast_1d/2d of scalars and lists, against NumPy."""

import numpy as np
import pytest

from ember import njit


@njit
def vander(x, n, increasing):
    return np.vander(x, n, increasing)


@njit
def vander_square(x):
    return np.vander(x)


@njit
def put(a, ind, values):
    np.put(a, ind, values)
    return a


@njit
def put_lists(a):
    np.put(a, [0, -1], [7, 8, 9])
    return a


@njit
def at_least(x):
    return np.atleast_1d(x), np.atleast_2d(x), np.atleast_3d(x)


@pytest.mark.parametrize(
    "x",
    [np.arange(4.0), np.array([1, -2, 3]), np.array([1.5, -2.0], np.float32),
     np.array([1 + 2j, 3j]), np.array([], np.float64), np.array([7], np.uint8)],
)  # fmt: skip
def test_vander_matches_numpy(x):
    for n, increasing in ((3, False), (2, True), (0, False), (5, True)):
        got, expected = vander(x, n, increasing), np.vander(x, n, increasing)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(vander_square(x), np.vander(x))


def test_put_matches_numpy():
    cases = [
        (np.zeros(5), np.array([0, -1, 2]), np.array([9.0, 8.0])),
        (np.zeros((2, 3)), 4, 7.5),
        (np.arange(6), np.array([5, 0]), np.array([-1])),
    ]
    for a, ind, values in cases:
        expected = a.copy()
        np.put(expected, ind, values)
        np.testing.assert_array_equal(put(a.copy(), ind, values), expected)
    expected = np.zeros(4)
    np.put(expected, [0, -1], [7, 8, 9])
    np.testing.assert_array_equal(put_lists(np.zeros(4)), expected)
    with pytest.raises(IndexError):
        put(np.zeros(3), np.array([3]), np.array([1.0]))


@pytest.mark.parametrize("x", [3.5, 2, True])
def test_atleast_of_scalars(x):
    for got, expected in zip(at_least(x), (np.atleast_1d(x), np.atleast_2d(x), np.atleast_3d(x))):
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_array_equal(got, expected)
