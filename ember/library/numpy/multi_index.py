"""`a[rows, cols]` and `a[rows, cols] = values`: 1-d integer arrays for the leading axes pick
elements (or, when fewer than the axes, sub-arrays), with NumPy's broadcasting of length-1 index
arrays, negative indices and IndexError out of bounds; consumes the array and the tuple of index
arrays, produces a new array or stores in place."""

from __future__ import annotations

import functools
import operator

import numpy as np

from ember import types
from ember.extending import overload
from ember.library.numpy.support import NUMPY_ERRORS, is_array


def _leading_index_arrays(array, index) -> bool:
    return (
        is_array(array)
        and isinstance(index, types.BaseTuple)
        and 2 <= len(index) <= array.ndim
        and all(is_array(t) and t.ndim == 1 and isinstance(t.dtype, types.Integer) for t in index)
    )


def _source(ndim: int, name: str, params: str, before: list, per_item: str, after: str) -> str:
    """The broadcast length `count` of the index arrays, the `before` lines, then `per_item`
    for each element with `position{k}` its index along axis k (wrapped, bounds-checked)."""
    lines = [f"def {name}({params}):", "    count = 1"]
    for k in range(ndim):
        lines += [
            f"    if index[{k}].shape[0] != 1:",
            f"        if count != 1 and index[{k}].shape[0] != count:",
            "            raise IndexError('shape mismatch: indexing arrays could not be "
            "broadcast together')",
            f"        count = index[{k}].shape[0]",
        ]
    lines += [f"    {line}" for line in before]
    lines.append("    for j in range(count):")
    for k in range(ndim):
        lines += [
            f"        position{k} = index[{k}][0 if index[{k}].shape[0] == 1 else j]",
            f"        if position{k} < -array.shape[{k}] or position{k} >= array.shape[{k}]:",
            "            raise IndexError('index out of bounds for the axis')",
            f"        if position{k} < 0:",
            f"            position{k} += array.shape[{k}]",
        ]
    lines += [f"        {per_item}", f"    {after}"]
    return "\n".join(lines) + "\n"


def _generated(name: str, source: str):
    namespace = {"np": np}
    exec(source, namespace)  # noqa: S102 - assembled from integers and fixed text
    return namespace[name]


@functools.cache
def _gather_impl(ndim: int, indexed: int):
    """`indexed` index arrays into an `ndim`-d array: shape (count, remaining dimensions...)."""
    where = ", ".join(f"position{k}" for k in range(indexed))
    shape = ", ".join(["count", *(f"array.shape[{k}]" for k in range(indexed, ndim))])
    before = [f"out = np.empty(({shape},), array.dtype)"]
    per_item = f"out[j] = array[{where}]"
    source = _source(indexed, "gather", "array, index", before, per_item, "return out")
    return _generated("gather", source)


@functools.cache
def _scatter_impl(indexed: int, from_array: bool):
    """value: a number, or an array whose first axis runs along the picked items."""
    where = ", ".join(f"position{k}" for k in range(indexed))
    before, item = [], "value"
    if from_array:
        before = [
            "if value.shape[0] != 1 and value.shape[0] != count:",
            "    raise ValueError('shape mismatch: value array could not be broadcast to "
            "indexing result')",
        ]
        item = "value[0 if value.shape[0] == 1 else j]"
    per_item = f"array[{where}] = {item}"
    source = _source(indexed, "scatter", "array, index, value", before, per_item, "return None")
    return _generated("scatter", source)


@overload(operator.getitem, jit_options=NUMPY_ERRORS)
def _select_gather(array, index):
    if not _leading_index_arrays(array, index):
        return None
    return _gather_impl(array.ndim, len(index))


@overload(operator.setitem, jit_options=NUMPY_ERRORS)
def _select_scatter(array, index, value):
    if not _leading_index_arrays(array, index) or array.readonly:
        return None
    if is_array(value) and value.ndim == 1 and len(index) == array.ndim:
        return _scatter_impl(len(index), True)
    if isinstance(types.unliteral(value), (types.Number, types.Boolean)):
        return _scatter_impl(len(index), False)
    return None
