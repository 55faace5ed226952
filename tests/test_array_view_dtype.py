"""`a.view(dtype)` in compiled code: the same bytes read as another number dtype, checked
against NumPy's own view (same item size, other item sizes, strided views, bad shapes)."""

import numpy as np
import pytest

from ember import njit
from ember.errors import TypingError


@njit
def as_int64(a):
    return a.view(np.int64)


@njit
def as_uint8(a):
    return a.view(np.uint8)


@njit
def as_float64(a):
    return a.view(np.float64)


@njit
def flip_sign_bits(a):
    bits = a.view(np.uint64)
    bits ^= np.uint64(1) << np.uint64(63)
    return a


def test_same_item_size_views_share_memory():
    a = np.array([1.0, -2.5, 0.0, np.inf])
    np.testing.assert_array_equal(as_int64(a), a.view(np.int64))
    m = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(as_int64(m), m.view(np.int64))
    np.testing.assert_array_equal(as_int64(m[:, ::2]), m[:, ::2].view(np.int64))
    np.testing.assert_array_equal(flip_sign_bits(a.copy()), -a)


def test_other_item_sizes_rescale_the_last_axis():
    a = np.array([1.0, 2.0])
    np.testing.assert_array_equal(as_uint8(a), a.view(np.uint8))
    m = np.arange(6.0).reshape(3, 2)
    np.testing.assert_array_equal(as_uint8(m), m.view(np.uint8))
    small = np.arange(16, dtype=np.uint8).reshape(2, 8)
    np.testing.assert_array_equal(as_float64(small), small.view(np.float64))


def test_bad_views_raise_as_numpy_does():
    with pytest.raises(ValueError):
        np.arange(6, dtype=np.uint8).view(np.float64)
    with pytest.raises(ValueError, match="multiple of the new item size"):
        as_float64(np.arange(6, dtype=np.uint8))
    with pytest.raises(ValueError, match="contiguous"):
        as_uint8(np.arange(6.0)[::2])
    with pytest.raises(TypingError, match="numbers only"):
        njit(lambda a: a.view(np.int64))(np.array(["ab"]))
