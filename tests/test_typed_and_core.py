"""`ember.typed.List` from Python and in compiled code, and the `ember.core.*` paths and Numba
warning names that code written for Numba imports."""

import warnings

import numpy as np

import ember
from ember import float64, int64, njit
from ember.typed import List


@njit
def _fill(xs, n):
    for i in range(n):
        xs.append(i * 0.5)
    return len(xs)


@njit
def _build(n):
    xs = List()
    for i in range(n):
        xs.append(i * i)
    return xs, List(range(n))


def test_an_empty_typed_list_is_filled_by_compiled_code():
    for make in (lambda: List.empty_list(float64), lambda: List.empty_list(np.float64)):
        xs = make()
        assert _fill(xs, 3) == 3
        assert xs == [0.0, 0.5, 1.0] and isinstance(xs, List)
    xs = List([1.0, 2.0])
    _fill(xs, 2)
    assert xs == _fill_in_python([1.0, 2.0], 2)


def _fill_in_python(items, n):
    _fill.py_func(items, n)
    return items


def test_typed_lists_made_in_compiled_code():
    for n in (0, 1, 5):
        assert _build(n) == tuple(list(part) for part in _build.py_func(n))


def test_integer_typed_list_keeps_its_item_type():
    xs = List.empty_list(int64)
    assert ember.typeof(xs) == ember.types.ListType(int64)


def test_core_paths_are_the_ember_modules():
    import ember.core.types
    from ember.core.errors import NumbaDeprecationWarning, NumbaPendingDeprecationWarning

    from ember.core import errors, types

    assert types is ember.types and ember.core.types.float64 is float64
    assert errors.TypingError is ember.TypingError
    assert issubclass(NumbaDeprecationWarning, DeprecationWarning)
    with warnings.catch_warnings():  # the line users write to silence Numba's warnings
        warnings.simplefilter("ignore", category=NumbaDeprecationWarning)
        warnings.simplefilter("ignore", category=NumbaPendingDeprecationWarning)
