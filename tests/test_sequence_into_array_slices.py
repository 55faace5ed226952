"""Tuples and lists of numbers assigned to 1-d array views (`out[i] = (x, y)`,
`a[1:3] = [p, q]`), checked against NumPy doing the same assignment."""

import numpy as np
import pytest

from ember import njit
from ember.errors import TypingError


@njit
def rows_from_tuples(a):
    out = np.empty((a.shape[0], 2))
    for i in range(a.shape[0]):
        out[i] = (a[i], -a[i])
    return out


@njit
def into_slice(a, start, stop, values):
    a[start:stop] = values
    return a


@njit
def into_column(m, values):
    m[:, 1] = values
    return m


@njit
def every_other(a, values):
    a[::2] = values
    return a


def _numpy(target, index, values):
    expected = target.copy()
    expected[index] = values
    return expected


def test_rows_from_tuples():
    a = np.array([0.5, -2.0, 3.25])
    expected = np.empty((3, 2))
    for i, x in enumerate(a):
        expected[i] = (x, -x)
    np.testing.assert_array_equal(rows_from_tuples(a), expected)


@pytest.mark.parametrize(
    "values", [(7, 8), (1.5, -2.5), [4.0, 5.0], [True, False], (1, 2.5)], ids=repr
)
def test_tuples_and_lists_into_slices(values):
    target = np.zeros(5)
    np.testing.assert_array_equal(
        into_slice(target.copy(), 1, 3, values), _numpy(target, slice(1, 3), values)
    )


def test_items_convert_as_numpy_stores_them():
    target = np.zeros(5, np.int32)
    values = (1.7, -2.2, 3)
    np.testing.assert_array_equal(
        every_other(target.copy(), values), _numpy(target, slice(None, None, 2), values)
    )
    m = np.zeros((3, 2))
    np.testing.assert_array_equal(
        into_column(m.copy(), [1, 2, 3]), _numpy(m, (slice(None), 1), [1, 2, 3])
    )


def test_a_sequence_of_another_length_raises():
    with pytest.raises(ValueError, match=r"slice of shape \(3,\) from input of shape \(2,\)"):
        into_slice(np.zeros(5), 0, 3, (1.0, 2.0))
    with pytest.raises(ValueError, match=r"slice of shape \(1,\) from input of shape \(2,\)"):
        into_slice(np.zeros(5), 0, 1, [1.0, 2.0])


@njit
def whole_matrix(m):
    m[:] = (1, 2)
    return m


@njit
def complex_into_real(a):
    a[:2] = (1j, 2.0)
    return a


def test_unsupported_sequence_stores_are_typing_errors():
    with pytest.raises(TypingError, match="1-d slice"):
        whole_matrix(np.zeros((2, 2)))
    with pytest.raises(TypingError, match="complex"):
        complex_into_real(np.zeros(3))
