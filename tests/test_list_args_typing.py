"""The item type of a Python list passed to compiled code (ember/dispatcher/typeof.py): the
common type of its items, found per Python type of item (ints by their range), and a clear
error for items that are not numbers; and the callee's changes written back."""

from __future__ import annotations

import numpy as np
import pytest

from ember import njit, typed, types
from ember.dispatcher.typeof import _typeof_list
from ember.errors import TypingError


@pytest.mark.parametrize(
    ("items", "expected"),
    [
        ([1, 2], types.int64),
        ([1, 2.5], types.float64),
        ([True, False], types.boolean),
        ([True, 2], types.int64),
        ([2**63], types.uint64),
        ([2**63, -1], types.float64),  # int64 with uint64: float64, as Numba unifies them
        ([-(2**63), 2**63 - 1], types.int64),
        ([1.5, 1j], types.complex128),
        ([3, 2.5, True], types.float64),
        ([np.float32(1), np.float32(2)], types.float32),  # NumPy scalars of one type, as Numba
        ([np.float64(1.5), 2.0], types.float64),  # values read from an array beside floats
        ([np.float32(1), 2.0], types.float64),
        ([np.int32(3), 4], types.int64),
        ([np.bool_(True), False], types.boolean),
    ],
)
def test_item_types(items, expected):
    assert _typeof_list(items) == types.List(expected, reflected=True)


@pytest.mark.parametrize(
    ("items", "named"),
    [
        (["a", 1], "str"),
        ([1, None], "NoneType"),
        ([1, 2**64], "int"),
        ([np.float16(1), 2.0], "float16"),  # no compiled float16
    ],
)
def test_items_that_are_not_numbers_are_named(items, named):
    with pytest.raises(TypingError, match=f"holds {named}"):
        _typeof_list(items)


@njit
def bump(xs):
    for i in range(len(xs)):
        xs[i] += 1
    return len(xs)


@njit
def read(xs):
    return xs[0]


def test_changes_are_written_back_and_unchanged_lists_keep_their_objects():
    floats = [0.5, 1.5, 2.5]
    bump(floats)
    assert floats == [1.5, 2.5, 3.5]
    mixed = [1, 2.5]  # a list of float64 for compiled code: the int stays an int if unchanged
    read(mixed)
    assert type(mixed[0]) is int
    flags = typed.List([True, False])
    read(flags)
    assert flags == [True, False] and all(type(x) is bool for x in flags)
