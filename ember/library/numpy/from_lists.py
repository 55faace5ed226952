"""`np.array` and `np.asarray` of lists: a list of numbers gives a 1-d array, a list of
equal-length lists (or tuples) of numbers, or a tuple of lists, a 2-d array (ValueError at run
time when the lengths differ).
`array_of_display` serves `np.array([x, y])` of a list display, which ember/rewrites/
array_displays.py turns into a tuple: no list is built when the items are numbers."""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.extending import overload
from ember.library.numpy.creation import nested_items
from ember.library.numpy.support import numpy_dtype, parse_dtype

_RAGGED = (
    "setting an array element with a sequence: the nested lists have different lengths "
    "(an inhomogeneous shape)"
)


def _row_number_type(row: types.Type) -> types.Type | None:
    """The number type of a list of numbers or a homogeneous tuple of numbers."""
    if isinstance(row, types.List) and row.is_precise and isinstance(row.dtype, types.Number):
        return row.dtype
    if isinstance(row, types.UniTuple) and isinstance(types.unliteral(row.dtype), types.Number):
        return types.unliteral(row.dtype)
    return None


def _nesting(obj_type: types.Type) -> tuple[int, types.Type] | None:
    """(dimensions, number type) of a list of numbers, or of a list or tuple of rows (lists or
    tuples of numbers)."""
    if isinstance(obj_type, types.List) and obj_type.is_precise:
        if isinstance(obj_type.dtype, types.Number):
            return 1, obj_type.dtype
        item = _row_number_type(obj_type.dtype)
        return None if item is None else (2, item)
    if isinstance(obj_type, types.UniTuple) and isinstance(obj_type.dtype, types.List):
        item = _row_number_type(obj_type.dtype)
        return None if item is None else (2, item)
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


def _array_of_values(a, dtype=None):
    return np.array(a, dtype)


@overload(np.asarray)
def asarray_of_values(a, dtype=None):
    """np.asarray of a number (a 0-d array) or a rectangular nest of tuples: a new array."""
    return _array_of_values if nested_items(a) is not None else None


def array_of_display(items, dtype=None):
    """np.array of the list display that ember/rewrites/array_displays.py made the tuple
    `items` (nested displays nested tuples); compiled code only."""
    raise NotImplementedError("array_of_display runs in compiled code only")


@overload(array_of_display)
def _select_array_of_display(items, dtype=None):
    found = nested_items(items)
    if found is not None and found[0] and found[0][0]:  # a rectangular nest of numbers
        return _array_of_tuple
    return _relisted(types.unliteral(items))


def _array_of_tuple(items, dtype=None):
    return np.array(items, dtype)


@functools.cache
def _relisted(items_type: types.BaseTuple):
    """np.array of the lists the tuple displays were (arrays, ragged rows): the list path."""

    def display(typ, path: str) -> str:
        if isinstance(typ, types.BaseTuple):
            return "[" + ", ".join(display(t, f"{path}[{i}]") for i, t in enumerate(typ)) + "]"
        return path

    # a named list, not a display passed to the call: the rewrite leaves it alone
    source = f"def impl(items, dtype=None):\n    values = {display(items_type, 'items')}\n" \
             "    return np.array(values, dtype)\n"  # fmt: skip
    namespace = {"np": np}
    exec(source, namespace)  # noqa: S102 - a template over fixed names and indices
    impl = namespace["impl"]
    impl.__module__ = __name__
    return impl
