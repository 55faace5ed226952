"""NumPy functions that pick or edit items by index, written in Python and compiled by ember:
take (and the method), delete, append, insert, unravel_index, ravel_multi_index."""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload, overload_method
from ember.library.numpy.axis_forms import _axis_jit
from ember.library.numpy.manipulation import (
    _is_array_like,
    _sequence,
    _with_arrays_of,
    generated,
)
from ember.library.numpy.support import (
    NUMPY_ERRORS,
    as_type,
    is_array,
    is_integer,
    is_none,
    is_number,
)

# ---------------------------------------------------------------------------- editing 1-d


def _take(a, indices):
    flat = a.ravel()
    n = flat.shape[0]
    picked = indices.ravel()
    out = np.empty(picked.shape[0], flat.dtype)
    for i in range(picked.shape[0]):
        index = picked[i]
        if index < -n or index >= n:
            raise IndexError("index out of bounds for the flattened array")
        out[i] = flat[index + n if index < 0 else index]
    return out.reshape(indices.shape)


def _take_scalar(a, indices):
    flat = a.ravel()
    n = flat.shape[0]
    if indices < -n or indices >= n:
        raise IndexError("index out of bounds for the flattened array")
    return flat[indices + n if indices < 0 else indices]


def _take_along(a, indices, axis):
    """NumPy's take with an axis: the indexed slices along `axis`, in place of that axis."""
    axis = _axis_jit(axis, a.ndim)
    length = a.shape[axis]
    picked = np.asarray(indices).ravel()
    for index in picked:
        if index < -length or index >= length:
            raise IndexError("index out of bounds for the axis")
    moved = np.moveaxis(a, axis, 0)
    chosen = np.where(picked < 0, picked + length, picked)
    return np.moveaxis(moved[chosen], 0, axis).copy()


def _take_along_scalar(a, indices, axis):
    axis = _axis_jit(axis, a.ndim)
    length = a.shape[axis]
    if indices < -length or indices >= length:
        raise IndexError("index out of bounds for the axis")
    return np.moveaxis(a, axis, 0)[indices + length if indices < 0 else indices].copy()


def _take_along_scalar_1d(a, indices, axis):
    """One item of a vector: a number, as NumPy's."""
    _axis_jit(axis, 1)
    length = a.shape[0]
    if indices < -length or indices >= length:
        raise IndexError("index out of bounds for the axis")
    return a[indices]


def _integer_sequence(typ) -> bool:
    """A list or homogeneous tuple of integers (possibly nested, as np.asarray takes them)."""
    typ = types.unliteral(typ)
    if isinstance(typ, (types.List, types.UniTuple)):
        return is_integer(typ.dtype) or _integer_sequence(typ.dtype)
    return False


def _select_take(a, indices, axis):
    axis = as_type(axis)
    if not is_array(a):
        return None
    scalar = is_integer(indices)
    integers = is_array(indices) and indices.ndim == 1 and isinstance(indices.dtype, types.Integer)
    if is_none(axis):
        if scalar:
            return lambda a, indices, axis: _take_scalar_jit(a, indices)
        if is_array(indices) and isinstance(indices.dtype, types.Integer):
            return lambda a, indices, axis: _take_jit(a, indices)
        if _integer_sequence(indices):  # a list or tuple: as the array NumPy makes of it
            return lambda a, indices, axis: _take_jit(a, np.asarray(indices))
        return None
    if not is_integer(axis):
        return None
    if scalar:
        return _take_along_scalar_1d if a.ndim == 1 else _take_along_scalar
    flat_sequence = _integer_sequence(indices) and is_integer(types.unliteral(indices).dtype)
    return _take_along if integers or flat_sequence else None


_take_jit = njit(**NUMPY_ERRORS)(_take)
_take_scalar_jit = njit(**NUMPY_ERRORS)(_take_scalar)


@overload(np.take, jit_options=NUMPY_ERRORS)
def _np_take(a, indices, axis=None):
    return _select_take(a, indices, axis)


@overload_method(types.Array, "take", jit_options=NUMPY_ERRORS)
def _array_take(self, indices, axis=None):
    return _select_take(self, indices, axis)


def _delete_one(arr, obj):
    flat = arr.ravel()
    n = flat.shape[0]
    if obj < -n or obj >= n:
        raise IndexError("index out of bounds for the flattened array")
    position = obj + n if obj < 0 else obj
    out = np.empty(n - 1, flat.dtype)
    out[:position] = flat[:position]
    out[position:] = flat[position + 1 :]
    return out


def _delete_many(arr, obj):
    flat = arr.ravel()
    n = flat.shape[0]
    keep = np.ones(n, np.bool_)
    for index in obj.ravel():
        if index < -n or index >= n:
            raise IndexError("index out of bounds for the flattened array")
        keep[index + n if index < 0 else index] = False
    return flat[keep]


@overload(np.delete, jit_options=NUMPY_ERRORS)
def _select_delete(arr, obj):
    if not is_array(arr):
        return None
    if is_integer(obj):
        return _delete_one
    if is_array(obj) and isinstance(obj.dtype, types.Integer):
        return _delete_many
    if isinstance(obj, types.SliceType):
        return _delete_slice
    return None


@overload(np.delete, jit_options=NUMPY_ERRORS)
def _delete_of_sequences(arr, obj):
    """np.delete of a list (a new array), or with a list of positions."""
    converted = tuple(name for name, t in (("arr", arr), ("obj", obj)) if _sequence(t))
    if not converted or not _is_array_like(arr):
        return None
    if _sequence(obj) and not _integer_sequence(obj):
        raise TypingError("np.delete: obj should be of Integer dtype")
    return _with_arrays_of("delete", ("arr", "obj"), converted)


def _delete_slice(arr, obj):
    """np.delete(arr, slice): the flattened array without the positions the slice picks."""
    return _delete_many_jit(arr, np.arange(arr.size)[obj])


_delete_many_jit = njit(**NUMPY_ERRORS)(_delete_many)


def _append(arr, values, axis):
    return np.concatenate((np.ravel(arr), np.ravel(values)))


def _append_scalar(arr, values, axis):
    return np.concatenate((np.ravel(arr), np.full(1, values)))


def _append_along(arr, values, axis):
    return np.concatenate((arr, values), axis)


def _append_array_likes(arr, values, axis):
    return np.concatenate((np.ravel(np.asarray(arr)), np.ravel(np.asarray(values))))


@overload(np.append, jit_options=NUMPY_ERRORS)
def _select_append(arr, values, axis=None):
    axis = as_type(axis)
    if not is_array(arr):
        both = _is_array_like(arr) and _is_array_like(values)
        return _append_array_likes if both and is_none(axis) else None
    if not is_none(axis):
        ok = is_integer(axis) and is_array(values) and values.ndim == arr.ndim
        return _append_along if ok else None
    if is_array(values):
        return _append
    if is_number(values):
        return _append_scalar
    return _append_array_likes if _is_array_like(values) else None


def _insert_into(arr, obj, extra):
    flat = arr.ravel()
    n = flat.shape[0]
    if obj < -n or obj > n:
        raise IndexError("index out of bounds for the flattened array")
    position = obj + n if obj < 0 else obj
    out = np.empty(n + extra.shape[0], flat.dtype)
    out[:position] = flat[:position]
    out[position : position + extra.shape[0]] = extra
    out[position + extra.shape[0] :] = flat[position:]
    return out


_insert_into_jit = njit(**NUMPY_ERRORS)(_insert_into)


def _insert_array(arr, obj, values):
    return _insert_into_jit(arr, obj, np.ravel(values))


def _insert_scalar(arr, obj, values):
    return _insert_into_jit(arr, obj, np.full(1, values))


@overload(np.insert, jit_options=NUMPY_ERRORS)
def _select_insert(arr, obj, values):
    if isinstance(arr, (types.List, types.BaseTuple)):
        return lambda arr, obj, values: np.insert(np.asarray(arr), obj, values)
    if is_array(arr) and isinstance(values, (types.List, types.BaseTuple)):
        return lambda arr, obj, values: np.insert(arr, obj, np.asarray(values))
    if not is_array(arr):
        raise TypingError(f"np.insert: arr must be either an Array or a Sequence, not {arr}")
    if not (is_integer(obj) or isinstance(obj, (types.Array, types.List, types.BaseTuple))):
        raise TypingError(f"np.insert: obj should be an Integer, an Array or a Sequence, not {obj}")
    if not is_integer(obj):
        return None  # several positions: not supported yet
    if is_array(values):
        return _insert_array
    return _insert_scalar if is_number(values) else None


# ---------------------------------------------------------------------------- index arithmetic


@functools.cache
def _unravel_impl(ndim: int):
    names = ", ".join(f"i{k}" for k in range(ndim))
    lines = [
        "def unravel_index(indices, shape):",
        "    size = " + " * ".join(f"shape[{k}]" for k in range(ndim)),
        "    if indices < 0 or indices >= size:",
        "        raise ValueError('index is out of bounds for the array of this shape')",
        "    rest = indices",
    ]
    for k in range(ndim - 1, -1, -1):
        lines += [f"    i{k} = rest % shape[{k}]", f"    rest //= shape[{k}]"]
    lines.append(f"    return ({names},)")
    return generated("unravel_index", "\n".join(lines) + "\n")


@overload(np.unravel_index, jit_options=NUMPY_ERRORS)
def _select_unravel_index(indices, shape):
    if is_integer(indices) and isinstance(shape, types.UniTuple) and is_integer(shape.dtype):
        return _unravel_impl(len(shape))
    return None


def _ravel_multi_index(multi_index, dims):
    flat = 0
    for k in range(len(dims)):
        index = multi_index[k]
        if index < 0 or index >= dims[k]:
            raise ValueError("invalid entry in coordinates array")
        flat = flat * dims[k] + index
    return flat


def _ravel_multi_index_arrays(multi_index, dims):
    """One 1-d integer array per dimension (length-1 arrays broadcast): the flat indices."""
    count = 1
    for k in range(len(dims)):
        length = multi_index[k].shape[0]
        if length != 1:
            if count != 1 and length != count:
                raise ValueError("shape mismatch: objects cannot be broadcast to a single shape")
            count = length
    out = np.empty(count, np.intp)
    for j in range(count):
        flat = 0
        for k in range(len(dims)):
            coordinates = multi_index[k]
            index = coordinates[0 if coordinates.shape[0] == 1 else j]
            if index < 0 or index >= dims[k]:
                raise ValueError("invalid entry in coordinates array")
            flat = flat * dims[k] + index
        out[j] = flat
    return out


@overload(np.ravel_multi_index, jit_options=NUMPY_ERRORS)
def _select_ravel_multi_index(multi_index, dims):
    tuples = isinstance(multi_index, types.UniTuple) and isinstance(dims, types.UniTuple)
    if not (tuples and len(multi_index) == len(dims) and is_integer(dims.dtype)):
        return None
    if is_integer(multi_index.dtype):
        return _ravel_multi_index
    arrays = is_array(multi_index.dtype) and multi_index.dtype.ndim == 1
    if arrays and isinstance(multi_index.dtype.dtype, types.Integer):
        return _ravel_multi_index_arrays
    return None
