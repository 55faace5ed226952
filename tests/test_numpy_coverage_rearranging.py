"""Stride views (as_strided, sliding_window_view, broadcast_to/arrays/shapes), the split family
with axis=, dstack, moveaxis, resize, take(axis=), take_along_axis, extract, trim_zeros,
append(axis=) and partition with several kth in compiled code, against NumPy."""

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided, sliding_window_view

import ember
from ember.errors import TypingError

_MATRICES = [
    np.arange(12.0).reshape(3, 4),
    np.arange(24.0).reshape(4, 6)[::2, 1::2],  # non-contiguous
    np.array([[3.0, -1.0, np.nan, 2.0], [0.5, 7.0, -4.0, 1.0]]),
]


def _same(got, expected):
    if isinstance(expected, (tuple, list)):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            _same(g, e)
        return
    np.testing.assert_array_equal(got, expected)
    assert np.shape(got) == np.shape(expected)
    assert np.asarray(got).dtype == np.asarray(expected).dtype


@ember.njit
def _as_strided(flat, shape, strides):
    return as_strided(flat, shape, strides)


def test_as_strided_reads_overlapping_windows():
    flat = np.arange(10.0)
    _same(_as_strided(flat, (4, 3), (16, 8)), as_strided(flat, (4, 3), (16, 8)))
    _same(_as_strided(flat, (3,), (0,)), as_strided(flat, (3,), (0,)))


@ember.njit
def _sliding(m, v):
    return (
        sliding_window_view(v, 3),
        sliding_window_view(m, (2, 2)),
        sliding_window_view(m, 2, axis=0),
        sliding_window_view(m, 2, axis=1),
        sliding_window_view(m, (1, 2), axis=(0, 1)),
    )


@pytest.mark.parametrize("m", _MATRICES)
def test_sliding_window_view(m):
    v = m.ravel()
    expected = (
        sliding_window_view(v, 3),
        sliding_window_view(m, (2, 2)),
        sliding_window_view(m, 2, axis=0),
        sliding_window_view(m, 2, axis=1),
        sliding_window_view(m, (1, 2), axis=(0, 1)),
    )
    _same(_sliding(m, v), expected)


def test_sliding_window_larger_than_the_array_raises():
    with pytest.raises(ValueError, match="window shape cannot be larger"):
        ember.njit(lambda v: sliding_window_view(v, 5))(np.ones(3))


@ember.njit
def _broadcasts(m, row, column):
    return (
        np.broadcast_to(row, (3, row.shape[0])),
        np.broadcast_to(column, (2, 3, 5)),
        np.broadcast_to(2.5, (2, 2)),
        np.broadcast_to(row, row.shape[0]),
        np.broadcast_arrays(m, row),
        np.broadcast_shapes((3, 1), (1, 4), 4),
        np.broadcast_shapes((2, 1, 5), (7, 1)),
    )


@pytest.mark.parametrize("m", _MATRICES)
def test_broadcasting_views(m):
    row, column = m[0], m[:, :1]
    expected = (
        np.broadcast_to(row, (3, row.shape[0])),
        np.broadcast_to(column, (2, 3, 5)) if column.shape[0] == 3 else None,
        np.broadcast_to(2.5, (2, 2)),
        np.broadcast_to(row, row.shape[0]),
        np.broadcast_arrays(m, row),
        np.broadcast_shapes((3, 1), (1, 4), 4),
        np.broadcast_shapes((2, 1, 5), (7, 1)),
    )
    if column.shape[0] != 3:
        with pytest.raises(ValueError):
            _broadcasts(m, row, column)
        return
    _same(_broadcasts(m, row, column), expected)


def test_broadcast_mismatch_raises():
    with pytest.raises(ValueError):
        ember.njit(lambda a: np.broadcast_to(a, (2, 2)))(np.ones(3))
    with pytest.raises(ValueError, match="shape mismatch"):
        ember.njit(lambda: np.broadcast_shapes((2, 3), (4,)))()


@ember.njit
def _splits(m, sections, indices):
    return (
        np.split(m, sections),
        np.split(m, 2, axis=1),
        np.split(m, indices),
        np.split(m, [1, 3], 1),
        np.array_split(m, sections + 1),
        np.array_split(m, 3, axis=1),
        np.split(m, (1,), -1),
        np.hsplit(m, 2),
        np.vsplit(m, sections),
        np.dsplit(np.atleast_3d(m), 1),
    )


@pytest.mark.parametrize("m", [np.arange(12.0).reshape(2, 6)[:, ::-1], np.ones((4, 4))])
def test_split_family(m):
    indices = np.array([1, -1])
    expected = (
        np.split(m, 2),
        np.split(m, 2, axis=1),
        np.split(m, indices),
        np.split(m, [1, 3], 1),
        np.array_split(m, 3),
        np.array_split(m, 3, axis=1),
        np.split(m, (1,), -1),
        np.hsplit(m, 2),
        np.vsplit(m, 2),
        np.dsplit(np.atleast_3d(m), 1),
    )
    _same(_splits(m, 2, indices), expected)


def test_unequal_split_and_bad_axis_raise():
    with pytest.raises(ValueError, match="equal division"):
        _splits(np.ones((3, 4)), 2, np.array([1]))
    with pytest.raises(np.exceptions.AxisError):
        ember.njit(lambda m: np.split(m, 2, axis=2))(np.ones((2, 2)))


@ember.njit
def _stacks(m, v):
    return (
        np.dstack((m, m)),
        np.dstack((v, v, v)),
        np.moveaxis(m, 0, 1),
        np.moveaxis(m[None], (0, 1), (2, 0)),
    )


@pytest.mark.parametrize("m", _MATRICES)
def test_dstack_and_moveaxis(m):
    v = m[0]
    expected = (
        np.dstack((m, m)),
        np.dstack((v, v, v)),
        np.moveaxis(m, 0, 1),
        np.moveaxis(m[None], (0, 1), (2, 0)),
    )
    _same(_stacks(m, v), expected)


def test_moveaxis_repeated_axis_raises():
    with pytest.raises(ValueError, match="repeated axis"):
        ember.njit(lambda m: np.moveaxis(m, (0, 0), (1, 0)))(np.ones((2, 3)))


@ember.njit
def _resize(a, n, shape):
    return np.resize(a, n), np.resize(a, shape)


@pytest.mark.parametrize("a", [np.arange(5), np.arange(6.0).reshape(2, 3), np.zeros(0)])
def test_resize(a):
    for n, shape in [(7, (2, 4)), (0, (3, 0)), (2, (1, 1))]:
        _same(_resize(a, n, shape), (np.resize(a, n), np.resize(a, shape)))


@ember.njit
def _takes(m, rows, k):
    return (
        np.take(m, rows, axis=0),
        np.take(m, rows, 1),
        np.take(m, k, axis=1),
        m.take(rows, axis=1),
        np.take(m, rows),
    )


@pytest.mark.parametrize("m", _MATRICES)
def test_take_along_an_axis(m):
    rows = np.array([1, 0, -1, 1])
    expected = (
        np.take(m, rows, axis=0),
        np.take(m, rows, 1),
        np.take(m, -2, axis=1),
        m.take(rows, axis=1),
        np.take(m, rows),
    )
    _same(_takes(m, rows, -2), expected)


def test_take_out_of_bounds_raises():
    with pytest.raises(IndexError):
        _takes(np.ones((2, 2)), np.array([5]), 0)


@ember.njit
def _take_along(m, order0, order1, v, flat_order):
    return (
        np.take_along_axis(m, order1, axis=1),
        np.take_along_axis(m, order0, 0),
        np.take_along_axis(m, order1[:, :1], -1),
        np.take_along_axis(v, flat_order, None),
    )


@pytest.mark.parametrize("m", _MATRICES)
def test_take_along_axis(m):
    order0, order1 = np.argsort(m, axis=0), np.argsort(m, axis=1)
    v = m.ravel()
    flat_order = np.argsort(v)
    expected = (
        np.take_along_axis(m, order1, axis=1),
        np.take_along_axis(m, order0, 0),
        np.take_along_axis(m, order1[:, :1], -1),
        np.take_along_axis(v, flat_order, None),
    )
    _same(_take_along(m, order0, order1, v, flat_order), expected)


def test_take_along_axis_needs_equal_ranks():
    with pytest.raises(TypingError):
        ember.njit(lambda m, i: np.take_along_axis(m, i, 0))(np.ones((2, 2)), np.zeros(2, np.intp))


@ember.njit
def _extract_trim(condition, a, filt):
    return (
        np.extract(condition, a),
        np.trim_zeros(filt),
        np.trim_zeros(filt, "f"),
        np.trim_zeros(filt, "b"),
    )


@pytest.mark.parametrize(
    "filt", [np.array([0.0, 1, 0, 2, 0]), np.zeros(3), np.array([4, 0, 5]), np.zeros(0)]
)
def test_extract_and_trim_zeros(filt):
    a = np.arange(12.0).reshape(3, 4)
    condition = a % 3 == 1
    expected = (
        np.extract(condition, a),
        np.trim_zeros(filt),
        np.trim_zeros(filt, "f"),
        np.trim_zeros(filt, "b"),
    )
    _same(_extract_trim(condition, a, filt), expected)


@ember.njit
def _append_partition(m, v):
    return (
        np.append(m, m, axis=0),
        np.append(m, m[:, :1], 1),
        np.partition(v, (1, 3))[1],
        np.partition(v, (1, 3))[3],
        np.sort(v[np.argpartition(v, np.array([0, 2]))][:3]),
    )


def test_append_along_an_axis_and_partition_at_several_kth():
    m = np.array([[3.0, -1.0], [0.5, 7.0]])
    v = np.array([3.0, -1.5, 2.0, 4.0, 0.5, 7.0])
    expected = (
        np.append(m, m, axis=0),
        np.append(m, m[:, :1], 1),
        np.sort(v)[1],
        np.sort(v)[3],
        np.sort(v)[:3],
    )
    _same(_append_partition(m, v), expected)
    with pytest.raises(ValueError, match="kth out of bounds"):
        ember.njit(lambda v: np.partition(v, (1, 9)))(v)


@ember.njit
def _broadcast_mixed(m, column):
    return np.broadcast_arrays(m, 2.5, (1.0, 2.0, 3.0), column)


def test_broadcast_arrays_of_numbers_and_tuples():
    m, column = np.ones((2, 3)), np.arange(2).reshape(2, 1)
    _same(_broadcast_mixed(m, column), np.broadcast_arrays(m, 2.5, (1.0, 2.0, 3.0), column))
