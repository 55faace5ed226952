"""Numba's `numba.cpython.unsafe` helpers under ember's spelling: tuple_setitem, bit counts and
bit views, checked against CPython and NumPy."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import njit
from ember.cpython.unsafe.numbers import leading_zeros, trailing_zeros, viewer
from ember.cpython.unsafe.tuple import tuple_setitem
from ember.errors import TypingError


@njit
def replace(t, i, v):
    return tuple_setitem(t, i, v)


@njit
def fill_cyclically(n):
    t = (0, 0, 0, 0)
    for i in range(n):
        t = tuple_setitem(t, i % 4, i * i)
    return t


def test_tuple_setitem_replaces_one_item_at_a_run_time_index():
    for i in range(3):
        expected = list((1, 2, 3))
        expected[i] = 9
        assert replace((1, 2, 3), i, 9) == tuple(expected)
    assert replace((1.5, 2.5), 0, 7) == (7.0, 2.5)  # the item converts to the tuple's type
    assert replace((True, False), 1, True) == (True, True)
    expected = [0, 0, 0, 0]
    for i in range(7):
        expected[i % 4] = i * i
    assert fill_cyclically(7) == tuple(expected)


def test_tuple_setitem_wants_a_tuple_of_one_item_type():
    with pytest.raises(TypingError, match="one item type"):
        replace((1, 2.5), 0, 1)


@njit
def bit_counts(x):
    return leading_zeros(x), trailing_zeros(x)


def _leading(x: int, width: int) -> int:
    return width - (x % (1 << width)).bit_length()


def _trailing(x: int, width: int) -> int:
    x %= 1 << width
    return width if x == 0 else (x & -x).bit_length() - 1


@settings(max_examples=40, deadline=None)
@given(st.integers(-(2**63), 2**63 - 1))
def test_bit_counts_match_python_integers(x):
    assert bit_counts(x) == (_leading(x, 64), _trailing(x, 64))
    small = np.uint8(x % 256)
    assert bit_counts(small) == (_leading(int(small), 8), _trailing(int(small), 8))


def test_bit_counts_of_zero_are_the_width():
    assert bit_counts(0) == (64, 64)
    assert bit_counts(np.int16(0)) == (16, 16)


@njit
def views(x):
    return viewer(x, ember.int64), viewer(x, np.uint64), viewer(np.float32(x), np.int32)


@njit
def narrowing_view(x):
    return viewer(x, np.int32)


@pytest.mark.parametrize("x", [1.0, -0.0, 2.5e-310, np.inf, 3.141592653589793])
def test_viewer_reads_the_bits_as_numpy_view_does(x):
    assert views(x) == (
        np.float64(x).view(np.int64),
        np.float64(x).view(np.uint64),
        np.float32(x).view(np.int32),
    )


def test_viewer_refuses_another_width():
    with pytest.raises(TypingError, match="of its width"):
        narrowing_view(1.0)
