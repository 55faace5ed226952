"""arrays9: reductions over a tuple of axes, np.array of a tuple of rows of different types and
the run-time shapes in the message of a wrong-shaped assignment, each compiled function compared
with NumPy (or CPython) running the same Python function on many inputs."""

import itertools

import numpy as np
import pytest

from ember import njit
from tests.oracle import assert_frees_all

RNG = np.random.default_rng(9)


def _same(got, want):
    """Equal values (NaN where NumPy has NaN), shape and, for arrays, dtype."""
    assert np.shape(got) == np.shape(want), (got, want)
    if np.ndim(want):
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-12, equal_nan=True)


def _axis_tuples(ndim: int):
    """Every tuple of distinct axes (negative spellings too) of up to `ndim` axes."""
    for count in range(ndim + 1):
        for axes in itertools.permutations(range(-ndim, ndim), count):
            if len({axis % ndim for axis in axes}) == count:
                yield axes


# ---------------------------------------------------------------------------- tuple axes


def _reductions(a, axes):
    return (
        np.prod(a, axes),
        a.mean(axis=axes),
        np.amin(a, axis=axes),
        a.any(axis=axes),
        a.max(axis=axes, keepdims=True),
    )


_reductions_jit = njit(_reductions)


def _sums(a, axes):
    return a.sum(axis=axes)


_sums_jit = njit(_sums)


def test_reductions_over_a_runtime_tuple_of_axes():
    """One compilation per number of axes: every spelling of the axes runs through it."""
    a = RNG.standard_normal((3, 4, 2))
    a[1, 2, 1] = np.nan
    for axes in _axis_tuples(a.ndim):
        if len(axes) > 1:  # (one axis: the integer form's code)
            for got, want in zip(_reductions_jit(a, axes), _reductions(a, axes), strict=True):
                _same(got, want)
    # other dtypes and layouts: Fortran order, negative strides, small integers widened
    for b in (np.asfortranarray(a), a[::-1, :, ::-1], np.arange(24, dtype=np.int8), a > 0):
        b = b.reshape(a.shape) if b.ndim == 1 else b
        for axes in ((0, 2), (-1, 1)):
            _same(_sums_jit(b, axes), _sums(b, axes))


def test_reductions_over_constant_axes_and_empty_arrays():
    @njit
    def constant_axes(a):
        return a.sum(axis=(0, 2)), np.max(a, axis=(-1, 0)), a.sum(axis=(0, 2), dtype=np.float32)

    a = RNG.standard_normal((2, 3, 4))
    for got, want in zip(
        constant_axes(a),
        (a.sum(axis=(0, 2)), np.max(a, axis=(-1, 0)), a.sum(axis=(0, 2), dtype=np.float32)),
        strict=True,
    ):
        _same(got, want)
    sums = _sums_jit
    empty = np.zeros((0, 3, 2))
    for axes in ((0, 1), (1, 2), (2, 0)):
        _same(sums(empty, axes), empty.sum(axis=axes))
    with pytest.raises(ValueError, match="zero-size|empty"):
        _reductions_jit(empty, (0, 1))


def test_axis_tuple_errors_match_numpy():
    sums = _sums_jit
    a = np.arange(24).reshape(2, 3, 4)
    for axes in ((0, 0), (1, -2), (-1, 2)):
        with pytest.raises(ValueError, match="duplicate value in 'axis'"):
            sums(a, axes)
    with pytest.raises(ValueError, match="duplicate value in 'axis'"):
        sums(a, (0, 1, 2, -1))  # more axes than dimensions
    for axes in ((0, 3), (-4, 1), (0, 1, 2, 3)):
        with pytest.raises(np.exceptions.AxisError) as caught:
            sums(a, axes)
        with pytest.raises(np.exceptions.AxisError) as expected:
            a.sum(axis=axes)
        assert str(caught.value) == str(expected.value)


def test_sum_over_no_axes_is_a_copy_in_the_sum_dtype_keeping_fortran_order():
    @njit
    def no_axes(a):
        return a.sum(axis=())

    a = np.asfortranarray(np.arange(6, dtype=np.int16).reshape(2, 3))
    got = no_axes(a)
    _same(got, a.sum(axis=()))
    assert got.flags.f_contiguous
    got[0, 0] = 99
    assert a[0, 0] == 0
    assert_frees_all(_reductions_jit, lambda: np.ones((3, 2, 2)), lambda: (0, 2))


# ---------------------------------------------------------------------------- np.array of rows


def _rows():
    return (
        np.array(([1, 2.5], [3, 4])),
        np.array(([1, 2.5], [3, 4]), np.float32),
        np.asarray(([1, 2], [3j, 4])),
        np.array(([[1, 2]], [[3.5, 4]])),
        np.array(([True, False], [3, 4])),
        np.array(((1, 2.5), [3, 4])),
    )


def test_array_of_a_tuple_of_rows_of_different_types():
    for got, expected in zip(njit(_rows)(), _rows(), strict=True):
        _same(got, expected)


def test_array_of_an_array_and_a_list_and_ragged_rows():
    @njit
    def mixed(a, n):
        return np.array((a, [3] * n))

    for dtype in (np.float32, np.int8, np.float64):
        a = np.array([1, 2], dtype)
        _same(mixed(a, 2), np.array((a, [3, 3])))
    with pytest.raises(ValueError, match="inhomogeneous"):
        mixed(np.array([1.5, 2.0]), 3)
    assert_frees_all(mixed, lambda: np.ones(4), lambda: 4)


# ---------------------------------------------------------------------------- assignment shapes


def _assign_all(a, b):
    a[:] = b


def _assign_slice(a, b, i, j):
    a[i:j] = b


def test_wrong_shaped_assignments_name_both_shapes():
    assign_all = njit(_assign_all)
    for target, value in [
        (np.arange(5), np.arange(10).reshape(2, 5)),
        (np.arange(5).reshape(1, 5), np.arange(10).reshape(1, 2, 5)),
        (np.arange(10).reshape(2, 5), np.arange(4)),
        (np.zeros((3, 0)), np.zeros(2)),
    ]:
        with pytest.raises(ValueError) as caught:
            assign_all(target, value)
        assert str(caught.value) == (
            f"cannot assign slice of shape {target.shape} from input of shape {value.shape}"
        )
    assign_slice = njit(_assign_slice)
    for value, i, j in [((1, 2), 1, 2), ([1, 2], 1, 4), (np.ones(3), 0, 5)]:
        expected_length = len(range(5)[i:j])
        with pytest.raises(ValueError) as caught:
            assign_slice(np.arange(5.0), value, i, j)
        assert str(caught.value) == (
            f"cannot assign slice of shape ({expected_length},) from input of shape ({len(value)},)"
        )
    # the right shapes still assign, broadcasting as NumPy does
    for target, value in [(np.zeros((2, 3)), np.arange(3.0)), (np.zeros(4), np.ones((1, 4)))]:
        want = target.copy()
        _assign_all(want, value)
        assign_all(target, value)
        np.testing.assert_array_equal(target, want)


def test_a_caught_shape_error_frees_its_message():
    @njit
    def caught(a, b):
        try:
            a[:] = b
        except ValueError:
            return -1
        return a.shape[0]

    assert caught(np.zeros(3), np.ones(3)) == 3
    assert caught(np.zeros(3), np.ones(4)) == -1
    assert_frees_all(caught, lambda: np.zeros(5), lambda: np.ones((2, 5)))


# ---------------------------------------------------------------------------- *_like of a record


def test_zeros_like_and_empty_like_of_a_record_scalar_are_0d_arrays():
    @njit
    def likes(a):
        return np.zeros_like(a[1]), np.empty_like(a[2]), np.zeros_like(a[0], np.float32)

    record = np.dtype([("a", np.int32), ("b", np.float64)])
    a = np.zeros(3, record)
    a["a"], a["b"] = [1, 2, 3], 1.5
    zeros, empty, floats = likes(a)
    want = np.zeros_like(a[1])
    assert zeros.shape == want.shape == () and zeros.dtype == want.dtype
    assert zeros == want
    assert empty.shape == () and empty.dtype == record
    assert floats.shape == () and floats.dtype == np.float32 and floats == 0


def test_a_string_dtype_known_only_at_run_time_is_refused_naming_the_function():
    from ember.errors import TypingError

    cases = {
        "empty_like": lambda a, dt: np.empty_like(a, dt),
        "zeros_like": lambda a, dt: np.zeros_like(a, dtype=dt),
        "zeros": lambda a, dt: np.zeros(3, dt),
        "full": lambda a, dt: np.full(3, 1.0, dt),
        "array": lambda a, dt: np.array((5, 3), dtype=dt),
    }
    for name, function in sorted(cases.items()):
        with pytest.raises(TypingError, match=f"If np.{name} dtype is a string it must be a"):
            njit(function)(np.ones(4), "int32")


def test_none_where_an_array_is_needed_is_a_typing_error_naming_the_argument():
    from ember.errors import TypingError

    with pytest.raises(TypingError, match='The argument "object" must be array-like'):
        njit(lambda x: np.array(x))(None)
    with pytest.raises(TypingError, match='The argument "v" must be array-like'):
        njit(lambda x: np.diag(x))(None)
    v = np.arange(3.0)
    np.testing.assert_array_equal(njit(lambda x: np.diag(x))(v), np.diag(v))
