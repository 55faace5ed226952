"""`ufunc.reduce` and `ufunc.at` of @vectorize ufuncs and DUFuncs inside jitted code, against
NumPy's own methods of the same ufunc (from Python): axes, initial values, empty lines, index
lists, masks and repeated indices; and a DUFunc called from jitted code with new input dtypes
compiles their exact loop."""

import numpy as np
import pytest

from ember import njit, vectorize
from ember.errors import TypingError


def add(a, b):
    return a + b


def smaller(a, b):
    return a if a < b else b


def subtract(a, b):
    return a - b


ADD = vectorize(["int64(int64, int64)", "float64(float64, float64)"], identity=0)(add)
SMALLER = vectorize(smaller)  # a DUFunc without identity
SUBTRACT = vectorize(["int64(int64, int64)"])(subtract)  # not reorderable


@njit
def add_reduce(a, axis, initial):
    return ADD.reduce(a, axis=axis, initial=initial)


@njit
def smaller_reduce(a, axis):
    return SMALLER.reduce(a, axis=axis)


@njit
def subtract_reduce(a, axis):
    return SUBTRACT.reduce(a, axis=axis)


ARRAYS = [np.arange(5), np.arange(12).reshape(3, 4), np.arange(24.0).reshape(2, 3, 4) - 7.5]


def same(got, expected):
    assert np.asarray(got).dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("a", ARRAYS, ids=lambda a: f"{a.ndim}d")
def test_single_axis_with_and_without_initial(a):
    for axis in [*range(a.ndim), -1]:
        same(add_reduce(a, axis, None), ADD.reduce(a, axis=axis))
        same(add_reduce(a, axis, 10), ADD.reduce(a, axis=axis, initial=10))
        same(smaller_reduce(a, axis), SMALLER.reduce(a, axis=axis))
        same(subtract_reduce(a.astype(np.int64), axis), SUBTRACT.reduce(a.astype(np.int64), axis))


def test_all_axes_and_tuples_of_axes():
    a = ARRAYS[2]
    same(add_reduce(a, None, None), ADD.reduce(a, axis=None))
    for axes in [(0,), (0, -1), (2, 0), (0, 1, 2), ()]:
        same(add_reduce(a, axes, None), ADD.reduce(a, axis=axes))
    for bad, message in [((0, 0), "duplicate value"), ((0, 3), "Invalid axis"), (3, "Invalid")]:
        with pytest.raises(ValueError, match=message):
            add_reduce(a, bad, None)
    with pytest.raises(TypingError, match="not reorderable"):
        subtract_reduce(np.arange(6).reshape(2, 3), (0, 1))


def test_empty_lines():
    empty = np.zeros((0, 5))
    same(smaller_reduce(empty, 1), SMALLER.reduce(empty, axis=1))  # no line is empty
    with pytest.raises(ValueError, match="zero-size array to reduction operation"):
        smaller_reduce(empty, 0)
    same(add_reduce(empty, 0, None), ADD.reduce(empty, axis=0))  # the identity
    same(add_reduce(empty, 0, 2.5), ADD.reduce(empty, axis=0, initial=2.5))


def test_dynamic_ufunc_in_jitted_code_compiles_the_exact_loop():
    dynamic = vectorize(add)

    @njit
    def call(a, b):
        return dynamic(a, b)

    same(call(np.array([1.5]), np.array([2.0])), np.array([3.5]))
    same(call(np.array([1]), np.array([2])), np.array([3]))  # int64, not the float64 loop


# ---------------------------------------------------------------------------- ufunc.at

NEGATE = vectorize(lambda a: -a)
POWER = vectorize(lambda a, b: a**b)


@njit
def add_at(a, indices, b):
    ADD.at(a, indices, b)


@njit
def negate_at(a, indices):
    NEGATE.at(a, indices)


@njit
def power_at(a, indices, b):
    POWER.at(a, indices, b)


@pytest.mark.parametrize(
    "jitted, reference, a, args",
    [
        (add_at, np.add, np.arange(10), ([2, 5, 2], 1)),  # repeated indices accumulate
        (add_at, np.add, np.arange(10), (np.array([2, -1, 2]), np.array([1, 2, 3]))),
        (add_at, np.add, np.zeros((3, 2)), ([0, 2, 0], 1.5)),  # rows of a 2-d array
        (add_at, np.add, np.arange(5), (3, 10)),
        (add_at, np.add, np.arange(6), (np.arange(6) % 2 == 0, np.array([1, 2, 3]))),
        (negate_at, np.negative, np.arange(10), (np.array([2, 5, 2]),)),
        (power_at, np.power, np.arange(10), ([1, 2, 3, 2], 3.5)),  # float result cast back
    ],
)
def test_at_matches_numpy(jitted, reference, a, args):
    expected, got = a.copy(), a.copy()
    reference.at(expected, *args)
    jitted(got, *args)
    same(got, expected)


def test_at_errors():
    with pytest.raises(IndexError):
        add_at(np.arange(3), [5], 1)

    @njit
    def missing_operand(a):
        ADD.at(a, [0])

    with pytest.raises(TypingError, match="second operand needed"):
        missing_operand(np.arange(3))


# ---------------------------------------------------------------------------- ufunc.reduceat


@njit
def add_reduceat(array, indices, axis=0, out=None):
    return ADD.reduceat(array, indices, axis, None, out)


@pytest.mark.parametrize(
    "a, indices, axis",
    [
        (np.arange(8), [0, 4, 1, 5, 2, 6, 3, 7], 0),  # a smaller next index: one element
        (np.linspace(0, 15, 16).reshape(4, 4), [0, 3, 1, 2, 0], 0),
        (np.arange(40).reshape(4, 5, 2), np.array([0, 3, 1, 2]), 1),
        (np.arange(40).reshape(4, 5, 2), np.array([0, 1]), -1),
        (np.ones((5, 2)), np.array([], dtype=np.intp), 1),
    ],
)
def test_reduceat_matches_numpy(a, indices, axis):
    same(add_reduceat(a, indices, axis), np.add.reduceat(a, indices, axis=axis))


def reduceat_in_place(a, indices):
    """Unbuffered reduceat into `a` itself, in plain Python (Numba's semantics: each result
    is stored before the next is computed; NumPy 2 buffers instead)."""
    for j, start in enumerate(indices):
        stop = indices[j + 1] if j + 1 < len(indices) else len(a)
        total = a[start]
        for i in range(start + 1, stop):
            total += a[i]
        a[j] = total


def test_reduceat_into_out_and_errors():
    got, expected = np.arange(4), np.arange(4)
    for _ in range(2):
        add_reduceat(got, np.array([0, 3, 1, 2]), 0, got)
        reduceat_in_place(expected, [0, 3, 1, 2])
        same(got, expected)
    with pytest.raises(ValueError, match="out of bounds for array of dimension 2"):
        add_reduceat(np.ones((4, 4)), np.array([0, 3]), 2)
    with pytest.raises(ValueError):
        add_reduceat(np.arange(5), np.array([0, 3]), 0, np.arange(3))
    with pytest.raises(IndexError):
        add_reduceat(np.arange(5), np.array([0, 9]))
