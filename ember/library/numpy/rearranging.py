"""More rearranging NumPy functions, written in Python and compiled by ember: np.moveaxis,
np.resize, np.take_along_axis, np.put_along_axis, np.extract and np.trim_zeros. Those that
depend on the rank are generated per rank."""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload
from ember.library.numpy.support import NUMPY_ERRORS, as_type, is_array, is_integer, is_none


def _generated(name: str, source: str, **names):
    namespace = {"np": np, "AxisError": np.exceptions.AxisError, **names}
    exec(source, namespace)  # noqa: S102 - source assembled from integers and fixed text
    return namespace[name]


# ---------------------------------------------------------------------------- moveaxis


def _axis_order(ndim, source, destination):
    """The permutation moving axes `source` (an array) to `destination` (NumPy's checks)."""
    count = source.shape[0]
    if destination.shape[0] != count:
        raise ValueError(
            "`source` and `destination` arguments must have the same number of elements"
        )
    moving = np.empty(count, np.intp)
    targets = np.empty(count, np.intp)
    for k in range(count):
        for values, out in ((source, moving), (destination, targets)):
            if not -ndim <= values[k] < ndim:
                raise np.exceptions.AxisError("axis is out of bounds for the array")
            out[k] = values[k] % ndim
    for k in range(count):
        for j in range(k):
            if moving[j] == moving[k] or targets[j] == targets[k]:
                raise ValueError("repeated axis in moveaxis")
    order = np.full(ndim, -1, np.intp)
    for k in range(count):
        order[targets[k]] = moving[k]
    rest = 0
    for position in range(ndim):
        if order[position] < 0:
            while (moving == rest).any():
                rest += 1
            order[position] = rest
            rest += 1
    return order


_axis_order_jit = njit(**NUMPY_ERRORS)(_axis_order)


@functools.cache
def _moveaxis_impl(ndim: int):
    items = "".join(f"order[{k}], " for k in range(ndim))
    source = f"""
def moveaxis(a, source, destination):
    order = axis_order({ndim}, np.asarray(source).ravel(), np.asarray(destination).ravel())
    return a.transpose(({items}))
"""
    return _generated("moveaxis", source, axis_order=_axis_order_jit)


def _axes_like(typ) -> bool:
    if isinstance(typ, types.BaseTuple):
        return all(is_integer(t) for t in typ)
    return is_integer(typ)


@overload(np.moveaxis, jit_options=NUMPY_ERRORS)
def _select_moveaxis(a, source, destination):
    if is_array(a) and a.ndim >= 1 and _axes_like(source) and _axes_like(destination):
        return _moveaxis_impl(a.ndim)
    return None


# ---------------------------------------------------------------------------- resize


def _resize_to(a, shape):
    size = 1
    for dim in shape:
        if dim < 0:
            raise ValueError("all elements of `new_shape` must be non-negative")
        size *= dim
    flat = np.ascontiguousarray(a).ravel()
    out = np.zeros(size, a.dtype)
    if flat.shape[0]:
        for i in range(size):
            out[i] = flat[i % flat.shape[0]]
    return out.reshape(shape)


_resize_to_jit = njit(**NUMPY_ERRORS)(_resize_to)


def _resize_int(a, new_shape):
    return _resize_to_jit(np.asarray(a), (new_shape,))


def _resize_tuple(a, new_shape):
    return _resize_to_jit(np.asarray(a), new_shape)


@overload(np.resize, jit_options=NUMPY_ERRORS)
def _select_resize(a, new_shape):
    scalar = isinstance(types.unliteral(a), (types.Number, types.Boolean))
    if not (is_array(a) or scalar or isinstance(a, (types.List, types.BaseTuple))):
        return None
    if is_integer(new_shape):
        return _resize_int
    if isinstance(new_shape, types.BaseTuple) and all(is_integer(t) for t in new_shape):
        return _resize_tuple
    return None


# ---------------------------------------------------------------------------- take_along_axis


def _take_along_flat(arr, indices, axis):
    return np.take(arr.ravel(), indices)


def _along_axis_source(ndim: int, name: str, params: str, before: str, store: str) -> str:
    """The loop shared by take_along_axis and put_along_axis: for each position `idx` of the
    broadcast index shape `shape`, `position` is the wrapped, bounds-checked index along `axis`
    and `{at}` in `store` the item of arr it designates (a length-1 axis of either stretches)."""
    dims = ", ".join(
        f"(indices.shape[{k}] if axis == {k} or indices.shape[{k}] != 1 else arr.shape[{k}])"
        for k in range(ndim)
    )
    checks = "\n".join(
        f"    if axis != {k} and arr.shape[{k}] != indices.shape[{k}] and "
        f"arr.shape[{k}] != 1 and indices.shape[{k}] != 1:\n"
        "        raise ValueError('shape mismatch: objects cannot be broadcast to a single shape')"
        for k in range(ndim)
    )
    index_at = ", ".join(f"(idx[{k}] if indices.shape[{k}] != 1 else 0)" for k in range(ndim))
    at = ", ".join(
        f"(position if axis == {k} else (idx[{k}] if arr.shape[{k}] != 1 else 0))"
        for k in range(ndim)
    )
    return f"""
def {name}({params}):
    if axis < 0:
        axis += {ndim}
    if axis < 0 or axis >= {ndim}:
        raise AxisError('axis is out of bounds for the array')
{checks}
    shape = ({dims},)
    {before}
    length = arr.shape[axis]
    for idx in np.ndindex(shape):
        position = indices[{index_at}]
        if position < -length or position >= length:
            raise IndexError('index out of bounds for the axis')
        if position < 0:
            position += length
        {store.format(at=at)}
"""


@functools.cache
def _take_along_axis_impl(ndim: int):
    """out[i0, .., ik, ..] = arr[i0, .., indices[i0, .., ik, ..], ..] for ik along `axis`, the
    other axes broadcast (a length-1 axis of either stretches)."""
    source = _along_axis_source(
        ndim,
        "take_along_axis",
        "arr, indices, axis",
        "out = np.empty(shape, arr.dtype)",
        "out[idx] = arr[{at}]",
    )
    return _generated("take_along_axis", source + "    return out\n")


@overload(np.take_along_axis, jit_options=NUMPY_ERRORS)
def _select_take_along_axis(arr, indices, axis=-1):
    axis = as_type(axis)
    if not (is_array(arr) and is_array(indices) and isinstance(indices.dtype, types.Integer)):
        return None
    if is_none(axis):
        if indices.ndim != 1:
            raise TypingError("when axis=None, `indices` must have a single dimension.")
        return _take_along_flat
    if not is_integer(axis):
        return None
    if indices.ndim != arr.ndim:
        raise TypingError("`indices` and `arr` must have the same number of dimensions")
    return _take_along_axis_impl(arr.ndim)


# ---------------------------------------------------------------------------- put_along_axis


def _put_along_flat(arr, indices, values, axis):
    """axis=None: `arr.flat[indices] = values`, values broadcast to the indices."""
    spread = np.broadcast_to(np.asarray(values), indices.shape)
    length = arr.size
    for k in range(indices.shape[0]):
        position = indices[k]
        if position < -length or position >= length:
            raise IndexError("index out of bounds for the flattened array")
        arr.flat[position + length if position < 0 else position] = spread[k]


@functools.cache
def _put_along_axis_impl(ndim: int):
    """arr[i0, .., indices[i0, .., ik, ..], ..] = values[i0, .., ik, ..] for ik along `axis`, in
    C order of the broadcast index shape (a later duplicate wins, as in NumPy)."""
    source = _along_axis_source(
        ndim,
        "put_along_axis",
        "arr, indices, values, axis",
        "spread = np.broadcast_to(np.asarray(values), shape)",
        "arr[{at}] = spread[idx]",
    )
    return _generated("put_along_axis", source)


@overload(np.put_along_axis, jit_options=NUMPY_ERRORS)
def _select_put_along_axis(arr, indices, values, axis):
    axis = as_type(axis)
    if not (is_array(arr) and is_array(indices) and isinstance(indices.dtype, types.Integer)):
        return None
    if arr.readonly:
        raise TypingError("np.put_along_axis: the array is read-only")
    if is_none(axis):
        if indices.ndim != 1:
            raise TypingError("when axis=None, `indices` must have a single dimension.")
        return _put_along_flat
    if not is_integer(axis):
        return None
    if indices.ndim != arr.ndim:
        raise TypingError("`indices` and `arr` must have the same number of dimensions")
    return _put_along_axis_impl(arr.ndim)


# ---------------------------------------------------------------------------- extract, trim_zeros


def _extract(condition, arr):
    chosen = np.asarray(condition).ravel()
    flat = np.asarray(arr).ravel()
    count = 0
    for i in range(chosen.shape[0]):
        if chosen[i]:
            if i >= flat.shape[0]:
                raise IndexError("index out of bounds for the flattened array")
            count += 1
    out = np.empty(count, flat.dtype)
    position = 0
    for i in range(chosen.shape[0]):
        if chosen[i]:
            out[position] = flat[i]
            position += 1
    return out


@overload(np.extract, jit_options=NUMPY_ERRORS)
def _select_extract(condition, arr):
    array_like = (types.Array, types.Number, types.Boolean, types.BaseTuple, types.List)
    if isinstance(condition, array_like) and isinstance(arr, array_like):
        return _extract
    return None


@functools.cache
def _trim_zeros_impl(front: bool, back: bool):
    def trim_zeros(filt, trim):
        first, last = 0, filt.shape[0]
        if front:
            while first < last and filt[first] == 0:
                first += 1
        if back:
            while last > first and filt[last - 1] == 0:
                last -= 1
        return filt[first:last]

    return trim_zeros


def _trim_zeros_by_text(filt, trim):
    """trim known only at run time: its letters read then ('f' front, 'b' back, any case)."""
    front = "f" in trim or "F" in trim
    back = "b" in trim or "B" in trim
    if front and back:
        return _trim_both(filt, trim)
    if front:
        return _trim_front(filt, trim)
    if back:
        return _trim_back(filt, trim)
    return filt[:]


_trim_both = njit(**NUMPY_ERRORS)(_trim_zeros_impl(True, True))
_trim_front = njit(**NUMPY_ERRORS)(_trim_zeros_impl(True, False))
_trim_back = njit(**NUMPY_ERRORS)(_trim_zeros_impl(False, True))


@overload(np.trim_zeros, jit_options=NUMPY_ERRORS, prefer_literal=True)
def _select_trim_zeros(filt, trim="fb"):
    if not (is_array(filt) and filt.ndim == 1):
        return None
    text = trim if isinstance(trim, str) else getattr(trim, "literal_value", None)
    if isinstance(trim, types.UnicodeType) and not isinstance(text, str):
        return _trim_zeros_by_text
    if not isinstance(text, str):
        raise TypingError("np.trim_zeros: trim must be a string")
    lowered = text.lower()
    return _trim_zeros_impl("f" in lowered, "b" in lowered)
