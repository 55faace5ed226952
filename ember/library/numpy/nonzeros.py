"""Where an array is nonzero: np.count_nonzero, np.nonzero (also a.nonzero() and
np.where(condition)), np.flatnonzero and np.argwhere, written in Python and compiled by ember."""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload, overload_method
from ember.library.numpy.support import (
    NUMPY_ERRORS,
    as_type,
    is_array,
    is_integer,
    is_none,
)


def _count_nonzero(a):
    count = 0
    for x in a.ravel():
        if bool(x):  # Python's truth: an empty string is False, as in NumPy
            count += 1
    return count


_count_nonzero_jit = njit(**NUMPY_ERRORS)(_count_nonzero)


def _count_nonzero_all(a, axis):
    return _count_nonzero_jit(a)


def _count_nonzero_along(a, axis):
    return (a != 0).sum(axis=axis)


@overload(np.count_nonzero, jit_options=NUMPY_ERRORS)
def _select_count_nonzero(a, axis=None):
    axis = as_type(axis)
    if not is_array(a):
        return None
    if is_none(axis):
        return _count_nonzero_all
    return _count_nonzero_along if is_integer(axis) and a.ndim >= 1 else None


def _flatnonzero(a):
    flat = a.ravel()
    count = _count_nonzero_jit(flat)
    out = np.empty(count, np.int64)
    # Every index is written and only a nonzero item's is kept: no branch on the data, which
    # mispredicts when zeros and nonzeros mix. While k < count a nonzero item remains ahead.
    k = 0
    i = 0
    while k < count:
        out[k] = i
        k += bool(flat[i])
        i += 1
    return out


_flatnonzero_jit = njit(**NUMPY_ERRORS)(_flatnonzero)


def _flatnonzero_of_scalar(a):
    return _flatnonzero_jit(np.array([a]))


def _flatnonzero_of_sequence(a):
    return _flatnonzero_jit(np.asarray(a).ravel())


@overload(np.flatnonzero, jit_options=NUMPY_ERRORS)
def _select_flatnonzero(a):
    if is_array(a):
        return _flatnonzero
    if isinstance(types.unliteral(a), (types.Number, types.Boolean)):
        return _flatnonzero_of_scalar
    if isinstance(a, (types.BaseTuple, types.List)) and len(getattr(a, "types", (0,))):
        return _flatnonzero_of_sequence  # (an empty tuple has no dtype to make an array of)
    return None


def _argwhere(a):
    flat_positions = _flatnonzero_jit(a)
    n = flat_positions.shape[0]
    ndim = a.ndim
    out = np.empty((ndim, n), np.int64)
    shape = a.shape
    for row in range(n):
        rest = flat_positions[row]
        for k in range(ndim - 1, -1, -1):
            out[k, row] = rest % shape[k]
            rest //= shape[k]
    return out.T  # NumPy's layout: the transpose of the positions by axis


_argwhere_jit = njit(**NUMPY_ERRORS)(_argwhere)


def _argwhere_0d(a):
    return np.empty((1 if a.item() else 0, 0), np.int64)


def _argwhere_of_scalar(a):
    return np.empty((1 if a else 0, 0), np.int64)


def _argwhere_of_sequence(a):
    return _argwhere_jit(np.asarray(a))


@overload(np.argwhere, jit_options=NUMPY_ERRORS)
def _select_argwhere(a):
    if is_array(a):
        return _argwhere if a.ndim >= 1 else _argwhere_0d
    if isinstance(a, (types.Number, types.Boolean)):
        return _argwhere_of_scalar
    if isinstance(a, (types.BaseTuple, types.List)):
        return _argwhere_of_sequence
    return None


def _nonzero_1d(a):
    return (_flatnonzero_jit(a),)


@functools.cache
def _nonzero_impl(ndim: int):
    if ndim == 1:
        return _nonzero_1d
    names = ", ".join(f"rows[:, {k}].copy()" for k in range(ndim))
    source = f"def impl(a):\n    rows = where(a)\n    return ({names},)\n"
    namespace = {"where": _argwhere_jit}
    exec(source, namespace)  # noqa: S102 - a template over a fixed name
    impl = namespace["impl"]
    impl.__module__ = __name__
    return impl


def _select_nonzero(a):
    if is_array(a) and a.ndim == 0:
        raise TypingError(
            "Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() "
            "instead."
        )
    return _nonzero_impl(a.ndim) if is_array(a) else None


@overload(np.nonzero, jit_options=NUMPY_ERRORS)
def _np_nonzero(a):
    return _select_nonzero(a)


@overload_method(types.Array, "nonzero", jit_options=NUMPY_ERRORS)
def _array_nonzero(self):
    return _select_nonzero(self)


# with x and y: ufuncs.py
@overload(np.where, jit_options=NUMPY_ERRORS)
def _np_where(condition):
    return _select_nonzero(condition)
