"""`ufunc.at` in jitted code on arrays of any ndim with NumPy's index forms (tuples of slices
and an index array, a slice, an integer row, `()` on a 0-d array): the same updates as
NumPy's `np.add.at` / `np.negative.at`, repeated indices applied once each."""

import warnings

import numpy as np
import pytest

from ember import njit, vectorize
from ember.errors import NumbaExperimentalFeatureWarning

warnings.simplefilter("ignore", NumbaExperimentalFeatureWarning)

add = vectorize()(lambda a, b: a + b)
negate = vectorize()(lambda a: -a)


@njit
def add_at(a, indices, b):
    add.at(a, indices, b)


@njit
def negate_at(a, indices):
    negate.at(a, indices)


CASES = [
    (np.arange(9).reshape(3, 3), (slice(None), np.asarray([1, 2, 1])), np.arange(9).reshape(3, 3)),
    (np.arange(27).reshape(3, 3, 3), (slice(None), slice(None), np.asarray([1, 2, 1])), 100),
    (np.arange(27).reshape(3, 3, 3), (np.asarray([0, 0, 2]), slice(1, 3)), np.array([7, 8, 9])),
    (np.zeros(5, dtype=np.int64), slice(None), np.ones(5, dtype=np.int64)),
    (np.array(0), (), 1),
    (np.arange(12).reshape(3, 4), 1, np.array([1, 2, 3, 4])),
    (np.arange(12.0).reshape(3, 4), (Ellipsis, 2), 0.5),
]


@pytest.mark.parametrize(("a", "indices", "b"), CASES)
def test_binary_at_matches_numpy(a, indices, b):
    expected, got = a.copy(), a.copy()
    np.add.at(expected, indices, b)
    add_at(got, indices, b)
    np.testing.assert_array_equal(got, expected)


def test_unary_at_on_a_row_and_errors():
    a = np.arange(6).reshape(2, 3)
    expected, got = a.copy(), a.copy()
    np.negative.at(expected, (1, slice(None)))
    negate_at(got, (1, slice(None)))
    np.testing.assert_array_equal(got, expected)
    with pytest.raises(IndexError):
        add_at(np.arange(6).reshape(2, 3), (slice(None), np.asarray([3])), 1)
    with pytest.raises(ValueError):  # b does not broadcast to the indexed shape
        add_at(np.arange(6).reshape(2, 3), (slice(None), np.asarray([0, 1])), np.arange(3))
