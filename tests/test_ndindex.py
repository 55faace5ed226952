"""np.ndindex in compiled code: the index tuples NumPy yields, in the same order."""

import numpy as np
import pytest

from ember import njit


@njit
def doubled(a):
    out = np.zeros_like(a)
    for index in np.ndindex(a.shape):
        out[index] = a[index] * 2
    return out


@njit
def codes_of_ints(n, m):
    codes = []
    for i, j in np.ndindex(n, m):
        codes.append(i * 100 + j)
    return codes


@njit
def codes_of_tuple(shape):
    codes = []
    for index in np.ndindex(shape):
        code = 0
        for k in index:
            code = code * 100 + k
        codes.append(code)
    return codes


@pytest.mark.parametrize("shape", [(5,), (2, 3), (3, 1, 4), (2, 0), (0,)])
def test_visits_every_index_in_numpy_order(shape):
    expected = []
    for index in np.ndindex(shape):
        code = 0
        for k in index:
            code = code * 100 + k
        expected.append(code)
    assert codes_of_tuple(shape) == expected
    a = np.arange(float(np.prod(shape))).reshape(shape)
    np.testing.assert_array_equal(doubled(a), a * 2)


def test_integer_arguments():
    for n, m in [(2, 3), (1, 1), (3, 0)]:
        assert codes_of_ints(n, m) == codes_of_ints.py_func(n, m)


def test_no_shape_yields_one_empty_index():
    def count():
        c = 0
        for index in np.ndindex():
            c += 1 + len(index)
        return c

    assert njit(count)() == count() == 1
