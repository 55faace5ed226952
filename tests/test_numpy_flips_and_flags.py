"""np.fliplr / np.flipud / np.rot90 and `ndarray.flags` in compiled code, against NumPy."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember


@ember.njit
def _rot90(m, k):
    return np.rot90(m, k)


@ember.njit
def _rot90_default(m):
    return np.rot90(m)


@ember.njit
def _fliplr(m):
    return np.fliplr(m)


@ember.njit
def _flipud(m):
    return np.flipud(m)


@ember.njit
def _flags(a):
    return a.flags.c_contiguous, a.flags.f_contiguous, a.flags.contiguous


@pytest.mark.parametrize("shape", [(2, 3), (3, 2, 4), (1, 5), (0, 3)])
def test_rot90_every_turn(shape):
    m = np.arange(float(np.prod(shape))).reshape(shape)
    for k in range(-6, 7):
        got = _rot90(m, k)
        np.testing.assert_array_equal(got, np.rot90(m, k))
        assert got.shape == np.rot90(m, k).shape
    np.testing.assert_array_equal(_rot90_default(m), np.rot90(m))


def test_flips_are_views_as_in_numpy():
    m = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(_fliplr(m), np.fliplr(m))
    np.testing.assert_array_equal(_flipud(m), np.flipud(m))
    np.testing.assert_array_equal(_flipud(m[0]), np.flipud(m[0]))
    _fliplr(m)[0, 0] = -1.0  # a view: writes reach the argument
    assert m[0, 3] == -1.0


def test_fliplr_of_1d_is_a_typing_error():
    with pytest.raises(ember.errors.TypingError):
        _fliplr(np.arange(3.0))


_ARRAYS = st.tuples(
    st.lists(st.integers(0, 4), min_size=0, max_size=3),
    st.lists(st.integers(1, 3), min_size=3, max_size=3),
    st.booleans(),
)


@settings(max_examples=40, deadline=None)
@given(_ARRAYS)
def test_flags_follow_numpy(spec):
    shape, steps, fortran = spec
    base = np.zeros(tuple(shape), order="F" if fortran else "C")
    views = [base[tuple(slice(None, None, s) for s in steps[: len(shape)])]] if shape else []
    for a in [base, *views]:  # (a 0-d array indexed by () is a scalar)
        expected = (a.flags.c_contiguous, a.flags.f_contiguous, a.flags.c_contiguous)
        assert _flags(a) == expected
