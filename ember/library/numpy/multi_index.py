"""NumPy's combined advanced indexing: `a[rows, cols]`, `a[idx, 1:3]`, `a[1:, idx, idx]`,
`a[1, :, idx]`, `a[idx2d]`, `a[np.ix_(r, c)]` and their assignments; consumes the array and the
index tuple (integer arrays of any rank, 1-d boolean masks, integers, slices, `...`), produces a
new array or stores in place.

NumPy's rule: the index arrays (integers and masks count as index arrays here) broadcast
together to one shape; that shape takes the place of the first one when they are adjacent,
else it goes first, before the sliced dimensions. The generated code applies the slices as a
view, then copies one view per broadcast position.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload
from ember.library.numpy.indexing import index_kinds, read_only_assignment, several_advanced
from ember.library.numpy.support import NUMPY_ERRORS, is_array

_BROADCAST_ERROR = "shape mismatch: indexing arrays could not be broadcast together"
_OUT_OF_BOUNDS = "index out of bounds for the axis"
_MASK_MISMATCH = "boolean index did not match indexed array along the axis"


@functools.cache
def _plan(ndim: int, kinds: tuple, ranks: tuple) -> tuple:
    """(axis of each index item or None for `...`, the broadcast rank, whether the broadcast
    dimensions replace the first index array's, the sliced axes in order)."""
    consumed = sum(1 for k in kinds if k != "ellipsis")
    axes, axis = [], 0
    for kind in kinds:
        if kind == "ellipsis":
            axes.append(None)
            axis += ndim - consumed
        else:
            axes.append(axis)
            axis += 1
    advanced = [i for i, k in enumerate(kinds) if k not in ("slice", "ellipsis")]
    in_place = advanced[-1] - advanced[0] + 1 == len(advanced)
    picked = {axes[i] for i in advanced}
    sliced = tuple(a for a in range(ndim) if a not in picked)
    rank = max(ranks[i] for i in advanced)
    return tuple(axes), rank, in_place, sliced


def _source(name, params, ndim, kinds, ranks, body_before, per_item, after) -> str:
    """Generated code: `view` (the slices applied), the broadcast shape `shape{d}` and flat
    positions `flat{i}` of the index arrays, `count` positions; `per_item` runs for each with
    `p{axis}` the wrapped, bounds-checked position on each picked axis."""
    axes, rank, _in_place, _sliced = _plan(ndim, kinds, ranks)
    view_items = []
    for i, kind in enumerate(kinds):
        view_items.append({"slice": f"index[{i}]", "ellipsis": "..."}.get(kind, ":"))
    lines = [f"def {name}({params}):"]
    lines.append(
        f"    view = array[{', '.join(view_items)},]" if "slice" in kinds else "    view = array"
    )
    for i, kind in enumerate(kinds):
        if kind == "mask":
            lines += [
                f"    if index[{i}].shape[0] != view.shape[{axes[i]}]:",
                f"        raise IndexError('{_MASK_MISMATCH}')",
                f"    item{i} = np.flatnonzero(index[{i}])",
            ]
        elif kind in ("intarray", "intarray_nd"):
            lines.append(f"    item{i} = index[{i}]")
    lines += [f"    shape{d} = 1" for d in range(rank)]
    for i, kind in enumerate(kinds):
        if kind not in ("intarray", "intarray_nd", "mask"):
            continue
        for k in range(ranks[i]):
            d = rank - ranks[i] + k
            lines += [
                f"    if item{i}.shape[{k}] != 1:",
                f"        if shape{d} != 1 and item{i}.shape[{k}] != shape{d}:",
                f"            raise IndexError('{_BROADCAST_ERROR}')",
                f"        shape{d} = item{i}.shape[{k}]",
            ]
    shape = "".join(f"shape{d}, " for d in range(rank))
    lines.append(f"    count = 1{''.join(f' * shape{d}' for d in range(rank))}")
    for i, kind in enumerate(kinds):
        if kind in ("intarray", "intarray_nd", "mask") and rank > 1:  # 1-d: read in place
            lines.append(f"    flat{i} = np.broadcast_to(item{i}, ({shape})).ravel()")
    lines += [f"    {line}" for line in body_before]
    loop = ["for j in range(count):"]
    for i, kind in enumerate(kinds):
        if kind in ("slice", "ellipsis"):
            continue
        axis = axes[i]
        value = f"flat{i}[j]" if rank > 1 else f"item{i}[0 if item{i}.shape[0] == 1 else j]"
        checked = [
            f"p{axis} = index[{i}]" if kind == "int" else f"p{axis} = {value}",
            f"if p{axis} < -view.shape[{axis}] or p{axis} >= view.shape[{axis}]:",
            f"    raise IndexError('{_OUT_OF_BOUNDS}')",
            f"if p{axis} < 0:",
            f"    p{axis} += view.shape[{axis}]",
        ]
        if kind == "int":  # checked once, even when no position is picked (NumPy)
            lines += [f"    {line}" for line in checked]
        else:
            loop += [f"    {line}" for line in checked]
    lines += [f"    {line}" for line in loop]
    lines += [f"        {per_item}", f"    {after}"]
    return "\n".join(lines) + "\n"


def _picked(ndim: int, kinds: tuple, ranks: tuple) -> str:
    """`view[...]` at one broadcast position: positions on the picked axes, `:` elsewhere."""
    _axes, _rank, _in_place, sliced = _plan(ndim, kinds, ranks)
    items = [":" if a in sliced else f"p{a}" for a in range(ndim)]
    return f"view[{', '.join(items)}]"


def _result_dims(ndim: int, kinds: tuple, ranks: tuple, flat: bool) -> tuple:
    """The result's dimensions as text: the broadcast ones (or `count` when `flat`) where
    NumPy puts them, and the index of the first of them."""
    axes, rank, in_place, sliced = _plan(ndim, kinds, ranks)
    first = 0
    if in_place:
        first_axis = min(axes[i] for i, k in enumerate(kinds) if k not in ("slice", "ellipsis"))
        first = sum(1 for a in sliced if a < first_axis)
    kept = [f"view.shape[{a}]" for a in sliced]
    broadcast = ["count"] if flat else [f"shape{d}" for d in range(rank)]
    return kept[:first] + broadcast + kept[first:], first


def _generated(name: str, source: str):
    namespace = {"np": np}
    exec(source, namespace)  # noqa: S102 - assembled from integers and fixed text
    return namespace[name]


@functools.cache
def _gather_impl(ndim: int, kinds: tuple, ranks: tuple):
    dims, first = _result_dims(ndim, kinds, ranks, flat=True)
    final, _ = _result_dims(ndim, kinds, ranks, flat=False)
    target = ", ".join([":"] * first + ["j"])
    before = [f"out = np.empty(({', '.join(dims)},), array.dtype)"]
    per_item = f"out[{target}] = {_picked(ndim, kinds, ranks)}"
    after = f"return out.reshape(({', '.join(final)},))"
    source = _source("gather", "array, index", ndim, kinds, ranks, before, per_item, after)
    return _generated("gather", source)


@functools.cache
def _scatter_impl(ndim: int, kinds: tuple, ranks: tuple, from_array: bool):
    """value: a number, or an array broadcast to the indexing result's shape."""
    item = "value"
    before = []
    if from_array:
        dims, first = _result_dims(ndim, kinds, ranks, flat=True)
        final, _ = _result_dims(ndim, kinds, ranks, flat=False)
        before = [
            f"source = np.broadcast_to(value, ({', '.join(final)},)).reshape(({', '.join(dims)},))"
        ]
        item = f"source[{', '.join([':'] * first + ['j'])}]"
    per_item = f"{_picked(ndim, kinds, ranks)} = {item}"
    params = "array, index, value"
    source = _source("scatter", params, ndim, kinds, ranks, before, per_item, "return None")
    return _generated("scatter", source)


def _combined(array, index) -> tuple | None:
    """(kinds, ranks) of an index NumPy's combined rule applies to; None otherwise."""
    if not is_array(array):
        return None
    kinds = index_kinds(array, index)
    if kinds is None or not several_advanced(kinds):
        return None
    if "newaxis" in kinds or "fullmask" in kinds:
        raise TypingError(
            "None (np.newaxis) beside several index arrays is not supported: index first, then "
            "add the axis with np.expand_dims"
        )
    items = index.types if isinstance(index, types.BaseTuple) else (index,)
    ranks = tuple(t.ndim if is_array(t) else 0 for t in items)
    if any(is_array(t) and t.ndim == 0 for t in items):
        return None  # 0-d index arrays: taken as integers by indexing.py alone
    return tuple(kinds), ranks


@overload(operator.getitem, jit_options=NUMPY_ERRORS)
def _select_gather(array, index):
    found = _combined(array, index)
    if found is None:
        return None
    if not isinstance(index, types.BaseTuple):  # a[idx2d]: one index array of rank 2 or more
        return _gather_of_one(array.ndim, found)
    return _gather_impl(array.ndim, *found)


@overload(operator.setitem, jit_options=NUMPY_ERRORS)
def _select_scatter(array, index, value):
    found = _combined(array, index)
    if found is None:
        return None
    if array.readonly:
        raise read_only_assignment(array)
    value = types.unliteral(value)
    numbers = (types.Number, types.Boolean)
    from_array = is_array(value) and isinstance(value.dtype, numbers)
    if not (from_array or isinstance(value, numbers)):
        return None
    if not isinstance(index, types.BaseTuple):  # a[idx2d] = value
        return _scatter_of_one(array.ndim, found, from_array)
    return _scatter_impl(array.ndim, *found, from_array)


@functools.cache
def _gather_of_one(ndim: int, found: tuple):
    gather = njit(**NUMPY_ERRORS)(_gather_impl(ndim, *found))
    return lambda array, index: gather(array, (index,))


@functools.cache
def _scatter_of_one(ndim: int, found: tuple, from_array: bool):
    scatter = njit(**NUMPY_ERRORS)(_scatter_impl(ndim, *found, from_array))
    return lambda array, index, value: scatter(array, (index,), value)
