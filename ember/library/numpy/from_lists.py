"""`np.array` and `np.asarray` of lists: a list of numbers gives a 1-d array, a list of
equal-length lists of numbers a 2-d array (ValueError at run time when the lengths differ)."""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.extending import overload
from ember.library.numpy.support import numpy_dtype, parse_dtype

_RAGGED = (
    "setting an array element with a sequence: the nested lists have different lengths "
    "(an inhomogeneous shape)"
)


def _nesting(list_type: types.Type) -> tuple[int, types.Type] | None:
    """(dimensions, number type) of a list of numbers or a list of lists of numbers."""
    if not (isinstance(list_type, types.List) and list_type.is_precise):
        return None
    if isinstance(list_type.dtype, types.Number):
        return 1, list_type.dtype
    if isinstance(list_type.dtype, types.List) and isinstance(list_type.dtype.dtype, types.Number):
        return 2, list_type.dtype.dtype
    return None


def _natural_dtype(item: types.Type) -> types.Type:
    """NumPy's dtype for Python numbers of this type (integers are 64-bit)."""
    if isinstance(item, types.Integer):
        return types.int64 if item.signed else types.uint64
    return item


@functools.cache
def _converter(ndim: int, dtype_name: str):
    np_type = np.dtype(dtype_name).type
    if ndim == 1:

        def from_list(obj, dtype=None):
            out = np.empty(len(obj), np_type)
            for index in range(len(obj)):
                out[index] = obj[index]
            return out

        return from_list

    def from_nested(obj, dtype=None):
        rows = len(obj)
        columns = len(obj[0]) if rows else 0
        out = np.empty((rows, columns), np_type)
        for i in range(rows):
            row = obj[i]
            if len(row) != columns:
                raise ValueError(_RAGGED)
            for j in range(columns):
                out[i, j] = row[j]
        return out

    return from_nested


def _select(obj, dtype):
    found = _nesting(obj)
    if found is None:
        return None
    ndim, item = found
    result = parse_dtype(dtype or types.none, default=_natural_dtype(item))
    return _converter(ndim, numpy_dtype(result).name)


@overload(np.array)
def array_from_list(obj, dtype=None):
    return _select(obj, dtype)


@overload(np.asarray)
def asarray_from_list(a, dtype=None):
    return _select(a, dtype)
