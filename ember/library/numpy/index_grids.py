"""Index arrays of grids and triangles: np.indices, np.tril_indices, np.triu_indices and their
`_from` forms (row and column index arrays, in row-major order, as NumPy returns them), np.ix_,
np.diag_indices and np.diag_indices_from."""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload
from ember.library.numpy.support import NUMPY_ERRORS, as_type, is_array, is_integer, is_none


def _triangle_indices(n, k, m, lower):
    """(rows, cols) of the entries with j - i <= k (lower) or j - i >= k (upper) of an n x m
    matrix; one counting pass sizes the result."""
    count = 0
    for i in range(n):
        for j in range(m):
            if (j - i <= k) if lower else (j - i >= k):
                count += 1
    rows = np.empty(count, np.intp)
    cols = np.empty(count, np.intp)
    position = 0
    for i in range(n):
        for j in range(m):
            if (j - i <= k) if lower else (j - i >= k):
                rows[position] = i
                cols[position] = j
                position += 1
    return rows, cols


_triangle_indices_jit = njit(**NUMPY_ERRORS)(_triangle_indices)


def _make_triangle(lower: bool):
    def square(n, k, m):
        return _triangle_indices_jit(n, k, n, lower)

    def rectangle(n, k, m):
        return _triangle_indices_jit(n, k, m, lower)

    def from_array(arr, k):
        if arr.ndim != 2:
            raise ValueError("input array must be 2-d")
        return _triangle_indices_jit(arr.shape[0], k, arr.shape[1], lower)

    def select(n, k, m):
        k, m = as_type(k), as_type(m)
        if not (is_integer(n) and is_integer(k)):
            return None
        if is_none(m):
            return square
        return rectangle if is_integer(m) else None

    def select_from(arr, k):
        k = as_type(k)
        return from_array if is_array(arr) and arr.ndim == 2 and is_integer(k) else None

    return select, select_from


_select_tril, _select_tril_from = _make_triangle(lower=True)
_select_triu, _select_triu_from = _make_triangle(lower=False)


@overload(np.tril_indices, jit_options=NUMPY_ERRORS)
def _np_tril_indices(n, k=0, m=None):
    return _select_tril(n, k, m)


@overload(np.triu_indices, jit_options=NUMPY_ERRORS)
def _np_triu_indices(n, k=0, m=None):
    return _select_triu(n, k, m)


@overload(np.tril_indices_from, jit_options=NUMPY_ERRORS)
def _np_tril_indices_from(arr, k=0):
    return _select_tril_from(arr, k)


@overload(np.triu_indices_from, jit_options=NUMPY_ERRORS)
def _np_triu_indices_from(arr, k=0):
    return _select_triu_from(arr, k)


@functools.cache
def _indices_impl(rank: int):
    """out[axis][i0, ..., i{rank-1}] = i{axis}, by broadcasting an arange along each axis."""
    lines = ["def indices(dimensions):", f"    out = np.empty(({rank},) + dimensions, np.intp)"]
    for axis in range(rank):
        index = ", ".join(":" if k == axis else "None" for k in range(rank))
        lines.append(f"    out[{axis}] = np.arange(dimensions[{axis}])[{index}]")
    lines.append("    return out")
    namespace = {"np": np}
    exec("\n".join(lines) + "\n", namespace)  # noqa: S102 - source assembled from integers
    return namespace["indices"]


@overload(np.indices, jit_options=NUMPY_ERRORS)
def _select_indices(dimensions):
    if isinstance(dimensions, types.BaseTuple) and all(is_integer(t) for t in dimensions):
        return _indices_impl(len(dimensions))
    return None


# ---------------------------------------------------------------------------- ix_, diag_indices


@functools.cache
def _ix_impl(kinds: tuple[str, ...]):
    """Input k (1-d integers, or booleans standing for their nonzero positions) reshaped to
    vary along axis k of an open mesh."""
    count = len(kinds)
    names = [f"x{k}" for k in range(count)]
    lines = [f"def ix_({', '.join(names)}):"]
    results = []
    for k, kind in enumerate(kinds):
        picked = f"np.nonzero({names[k]})[0]" if kind == "bool" else f"{names[k]}.copy()"
        shape = ", ".join("-1" if axis == k else "1" for axis in range(count))
        results.append(f"{picked}.reshape(({shape},))")
    lines.append(f"    return ({', '.join(results)},)")
    namespace = {"np": np}
    exec("\n".join(lines) + "\n", namespace)  # noqa: S102 - assembled from integers
    return namespace["ix_"]


@overload(np.ix_, jit_options=NUMPY_ERRORS)
def _select_ix(*args):
    if not args or not all(is_array(a) for a in args):
        return None
    if any(a.ndim != 1 for a in args):
        raise TypingError("np.ix_: Cross index must be 1 dimensional")
    kinds = []
    for a in args:
        if not isinstance(a.dtype, (types.Integer, types.Boolean)):
            raise TypingError("np.ix_: arrays used as indices must be of integer (or boolean) type")
        kinds.append("bool" if isinstance(a.dtype, types.Boolean) else "int")
    return _ix_impl(tuple(kinds))


@functools.cache
def _diag_indices_impl(ndim: int):
    namespace = {"np": np}
    items = ", ".join(["positions"] * ndim)
    source = f"def diag_indices(n, ndim=2):\n    positions = np.arange(n)\n    return ({items},)\n"
    exec(source, namespace)  # noqa: S102 - assembled from integers
    return namespace["diag_indices"]


@overload(np.diag_indices, jit_options=NUMPY_ERRORS)
def _select_diag_indices(n, ndim=2):
    """The result is a tuple of `ndim` arrays: ndim must be a constant."""
    if not is_integer(n):
        return None
    if isinstance(ndim, types.IntegerLiteral):
        return _diag_indices_impl(ndim.literal_value)
    if isinstance(ndim, int):  # omitted: Python's 2
        return _diag_indices_impl(ndim)
    raise TypingError("np.diag_indices: ndim must be a constant integer in compiled code")


@functools.cache
def _diag_indices_from_impl(ndim: int):
    namespace = {"np": np}
    items = ", ".join(["positions"] * ndim)
    checks = " or ".join(f"arr.shape[{k}] != arr.shape[0]" for k in range(1, ndim))
    source = (
        "def diag_indices_from(arr):\n"
        f"    if {checks}:\n"
        "        raise ValueError('All dimensions of input must be of equal length')\n"
        "    positions = np.arange(arr.shape[0])\n"
        f"    return ({items},)\n"
    )
    exec(source, namespace)  # noqa: S102 - assembled from integers
    return namespace["diag_indices_from"]


@overload(np.diag_indices_from, jit_options=NUMPY_ERRORS)
def _select_diag_indices_from(arr):
    if not is_array(arr):
        return None
    if arr.ndim < 2:
        raise TypingError("np.diag_indices_from: input array must be at least 2-d")
    return _diag_indices_from_impl(arr.ndim)
