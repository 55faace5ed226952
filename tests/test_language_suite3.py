"""Python language features Numba's own test modules exercise (comprehensions feeding np.array,
exceptions, generators, builtins, random streams): each compiled function is checked against
CPython or NumPy running the same function. PYTEST_DONT_REWRITE: the compiled functions use
`assert`, which pytest would otherwise rewrite into calls compiled code cannot make."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import njit


def cube_of_products(n):
    return np.array([[[i * j * k for k in range(n)] for j in range(n)] for i in range(n)])


def rows_of_arrays(n):
    return np.array([np.array([x * y for x in range(n)]) for y in range(n + 1)])


def tuple_of_arrays(a, b):
    return np.array((a, b))


def grid_of_pairs(n):
    return np.array([[(i, 2 * i) for i in range(n)] for _ in range(2)])


def ragged_arrays(n):
    return np.array([np.arange(i) for i in range(n)])


@pytest.mark.parametrize("n", [0, 1, 3])
def test_np_array_of_nested_comprehensions_any_depth(n):
    for function in (cube_of_products, rows_of_arrays, grid_of_pairs):
        got, expected = njit(function)(n), function(n)
        if expected.size:  # NumPy gives an empty nest shape (0,); ember keeps the rank
            assert got.dtype == expected.dtype
            np.testing.assert_array_equal(got, expected)
        else:
            assert got.size == 0


def test_np_array_of_a_tuple_of_arrays():
    a, b = np.arange(3.0), np.linspace(1, 2, 3)
    np.testing.assert_array_equal(njit(tuple_of_arrays)(a, b), tuple_of_arrays(a, b))


def test_np_array_of_ragged_arrays_raises_value_error():
    with pytest.raises(ValueError):
        ragged_arrays(3)
    with pytest.raises(ValueError, match="inhomogeneous"):
        njit(ragged_arrays)(3)
