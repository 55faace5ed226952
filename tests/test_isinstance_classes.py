"""isinstance() in compiled code against ember type instances (types.int32), NumPy's scalar
classes (concrete and abstract) and Numba type classes (refused), checked against CPython."""

import numpy as np
import pytest

from ember import njit, typed, types
from ember.errors import TypingError


@njit
def which_type(a):
    if isinstance(a, typed.List):
        return "typed list"
    elif isinstance(a, (types.int32, types.int64)):
        return "int32" if isinstance(a, types.int32) else "int64"
    elif isinstance(a, (types.float32, types.float64)):
        return "float32" if isinstance(a, types.float32) else "float64"
    elif isinstance(a, typed.Dict):
        return "typed dict"
    return "no match"


def test_type_instances_as_classes():
    cases = [
        (np.int32(1), "int32"),
        (2, "int64"),
        (np.float32(3), "float32"),
        (4.0, "float64"),
        (5j, "no match"),
        (typed.List([1, 2]), "typed list"),
        (typed.Dict.empty(types.int64, types.int64), "typed dict"),
    ]
    for value, expected in cases:
        assert which_type(value) == expected


@njit
def numpy_classes(x):
    return (
        isinstance(x, np.integer),
        isinstance(x, np.signedinteger),
        isinstance(x, np.unsignedinteger),
        isinstance(x, np.floating),
        isinstance(x, np.complexfloating),
        isinstance(x, np.inexact),
        isinstance(x, np.number),
        isinstance(x, np.generic),
        isinstance(x, (np.int8, np.float32)),
        isinstance(x, np.uint16),
        isinstance(x, np.bool_),
    )


def test_numpy_scalar_classes_match_cpython_for_numpy_scalars():
    values = [
        np.int8(-2), np.uint16(3), np.int32(7), np.uint64(9), np.float32(1.5),
        np.complex64(1j), np.bool_(True),
    ]  # fmt: skip
    for value in values:
        assert numpy_classes(value) == numpy_classes.py_func(value), repr(value)


def test_python_numbers_are_their_numpy_aliases_as_in_numba():
    # 1 is an int64 in compiled code: isinstance(1, np.int64) is True (CPython: False)
    int64_of = njit(lambda x: (isinstance(x, np.int64), isinstance(x, np.integer)))
    float64_of = njit(lambda x: (isinstance(x, np.float64), isinstance(x, np.floating)))
    assert int64_of(1) == (True, True)
    assert float64_of(1.5) == (True, True)
    assert int64_of(1.5) == (False, False)


@pytest.mark.parametrize("cls", [types.Integer, types.Array])
def test_type_classes_are_refused_with_numbas_words(cls):
    with pytest.raises(TypingError, match="Numba type classes .*are not supported"):
        njit(lambda: isinstance(1, cls))()
