"""Python language features Numba's own test modules exercise (comprehensions feeding np.array,
exceptions, generators, builtins, random streams): each compiled function is checked against
CPython or NumPy running the same function. PYTEST_DONT_REWRITE: the compiled functions use
`assert`, which pytest would otherwise rewrite into calls compiled code cannot make."""

from __future__ import annotations

import numpy as np
import pytest

from ember import njit, objmode
from ember.errors import TypingError


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


def objmode_temporaries_reused_after(n):
    with objmode(y="float64"):
        i = 3
        tmp = [k * 2 for k in range(i)]
        y = float(sum(tmp))
    total = sum([tmp for tmp in range(n)])
    for i in range(n):
        y += i
    return y + total


def objmode_reassigns_an_outer_variable(n):
    x = n
    with objmode():
        x = n + 1
    return x


def objmode_output_read_next_iteration(n):
    out = 0
    for i in range(n):
        if i:
            out += t  # noqa: F821 - assigned by the block of the previous iteration
        with objmode():
            t = i * 2  # noqa: F841 - read after the block
    return out


def objmode_declares_an_unassigned_name(x):
    with objmode(k="float64"):
        print(x)
    return x


def test_objmode_temporaries_used_again_after_the_block_are_fine():
    assert njit(objmode_temporaries_reused_after)(4) == objmode_temporaries_reused_after(4)


@pytest.mark.parametrize(
    ("function", "message"),
    [
        (objmode_reassigns_an_outer_variable, r"outgoing variable\(s\): \['x'\]"),
        (objmode_output_read_next_iteration, r"outgoing variable\(s\): \['t'\]"),
        (objmode_declares_an_unassigned_name, r"non-outgoing variables: \['k'\]"),
    ],
)
def test_objmode_outputs_must_match_what_the_block_assigns_and_later_code_reads(function, message):
    # CPython would return the block's value; without a declared type it would be lost
    with pytest.raises(TypingError, match=message):
        njit(function)(3)
