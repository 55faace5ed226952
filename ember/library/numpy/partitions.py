"""NumPy's partition and argpartition (by selection), written in Python and compiled by ember."""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload
from ember.library.numpy.sorting import select_kth
from ember.library.numpy.support import (
    NUMPY_ERRORS,
    as_type,
    is_array,
    is_integer,
    is_none,
)

# ---------------------------------------------------------------------------- partitions


def _check_kth(a, kth):
    n = a.shape[-1]
    if n and (kth < -n or kth >= n):  # NumPy accepts any kth for an empty array
        raise ValueError("kth out of bounds")


_check_kth_jit = njit(**NUMPY_ERRORS)(_check_kth)


def _partition(a, kth):
    """A copy with its kth item (along the last axis) in its sorted place, no larger item
    before it and no smaller one after it (NumPy promises no more), found by selection."""
    _check_kth_jit(a, kth)
    out = a.copy()
    n = out.shape[-1]
    if n:
        rows = out.reshape(-1, n)
        for row in range(rows.shape[0]):
            select_kth(rows[row], kth + n if kth < 0 else kth)
    return out


def _argpartition(a, kth):
    _check_kth_jit(a, kth)
    return np.argsort(a, kind="mergesort")


def _partition_many(a, kth):
    """Several kth at once: a sorted copy places every item (NumPy promises no more)."""
    for k in kth:
        _check_kth_jit(a, k)
    return np.sort(a)


def _argpartition_many(a, kth):
    for k in kth:
        _check_kth_jit(a, k)
    return np.argsort(a, kind="mergesort")


def _kth_kind(kth) -> str | None:
    """'one' for an integer kth, 'many' for a sequence of integers, None otherwise."""
    if is_integer(kth):
        return "one"
    if isinstance(kth, types.BaseTuple) and len(kth) and all(is_integer(t) for t in kth):
        return "many"
    if is_array(kth) and kth.ndim == 1 and isinstance(kth.dtype, types.Integer):
        return "many"
    if isinstance(kth, (types.List, types.ListType)) and isinstance(kth.dtype, types.Integer):
        return "many"
    if is_array(kth) and isinstance(kth.dtype, types.Integer):
        return "bad"
    return None


def _kth_must_be_1d(a, kth):
    raise ValueError("kth must be scalar or 1-D")


def _kth_must_be_1d_any_axis(a, kth, axis=-1, kind="introselect", order=None):
    raise ValueError("kth must be scalar or 1-D")


@functools.cache
def _partition_of_sequence(impl):
    """Lists and tuples: partitioned as the array NumPy makes of them."""
    impl_jit = njit(**NUMPY_ERRORS)(impl)
    return lambda a, kth: impl_jit(np.asarray(a), kth)


def _select_partition(impl, many_impl):
    def select(a, kth):
        if not (is_array(a) or isinstance(a, (types.List, types.ListType, types.BaseTuple))):
            raise TypingError("The first argument must be an array-like")
        if is_array(a) and a.ndim == 0:
            raise TypingError("The first argument must be at least 1-D (found 0-D)")
        kind = _kth_kind(types.unliteral(kth))
        if kind is None:
            raise TypingError("Partition index must be integer")
        if kind == "bad":
            return _kth_must_be_1d
        chosen = impl if kind == "one" else many_impl
        if is_array(a):
            return chosen if a.ndim >= 1 else None
        if isinstance(a, (types.List, types.ListType, types.BaseTuple)):
            if isinstance(a, types.BaseTuple) and len(a) == 0:  # np.asarray(()) is float64
                if impl is _partition:
                    return lambda a, kth: np.empty(0, np.float64)
                return lambda a, kth: np.empty(0, np.int64)
            return _partition_of_sequence(chosen)
        return None

    return select


@functools.cache
def _along_axis(impl):
    """partition/argpartition along any axis: the axis moves last and back (NumPy's results
    are C-contiguous copies too)."""
    impl_jit = njit(**NUMPY_ERRORS)(impl)

    def along(a, kth, axis=-1, kind="introselect", order=None):
        if axis < -a.ndim or axis >= a.ndim:
            raise np.exceptions.AxisError("axis is out of bounds for the array")
        if axis == -1 or axis == a.ndim - 1:
            return impl_jit(a, kth)
        moved = impl_jit(np.moveaxis(a, axis, -1), kth)
        return np.ascontiguousarray(np.moveaxis(moved, -1, axis))

    return along


@functools.cache
def _flattened(impl):
    """axis=None: the flattened array."""
    impl_jit = njit(**NUMPY_ERRORS)(impl)
    return lambda a, kth, axis=-1, kind="introselect", order=None: impl_jit(a.ravel(), kth)


def _select_partition_axis(impl, many_impl, a, kth, axis, kind, order):
    axis, kind, order = as_type(axis), as_type(kind), as_type(order)
    if not (is_none(order) and isinstance(types.unliteral(kind), types.UnicodeType)):
        raise TypingError("np.partition: only kind='introselect' and order=None are supported")
    chosen = _select_partition(impl, many_impl)(a, kth)
    if chosen is _kth_must_be_1d:
        return _kth_must_be_1d_any_axis
    if chosen is None or not is_array(a):
        return chosen if is_integer(axis) and not is_array(a) else None
    if is_none(axis):
        return _flattened(chosen)
    return _along_axis(chosen) if is_integer(axis) else None


@overload(np.partition, jit_options=NUMPY_ERRORS)
def _np_partition(a, kth, axis=-1, kind="introselect", order=None):
    return _select_partition_axis(_partition, _partition_many, a, kth, axis, kind, order)


@overload(np.argpartition, jit_options=NUMPY_ERRORS)
def _np_argpartition(a, kth, axis=-1, kind="introselect", order=None):
    return _select_partition_axis(_argpartition, _argpartition_many, a, kth, axis, kind, order)
