"""Still more argument forms of NumPy functions whose plain forms live elsewhere, written in Python
and compiled by ember: initial= of sum/prod/min/max, mean(dtype=), ptp/percentile/quantile along
an axis, tuple reps/axes of tile, expand_dims, flip and roll, insert/delete along an axis,
compress, and a.item(i) / a.item((i, j)) / a.item(i, j)."""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload, overload_method
from ember.library.numpy.axis_forms import _axis_jit, _explicit_none
from ember.library.numpy.manipulation import generated
from ember.library.numpy.support import (
    NUMPY_ERRORS,
    as_type,
    is_array,
    is_integer,
    is_none,
    is_number,
    numpy_dtype,
    parse_dtype,
)


def _omitted(value) -> bool:
    """Not given, or given as None."""
    return value is None or is_none(value)


def _false_flag(value) -> bool:
    """keepdims left at False (its default or the constant False)."""
    if isinstance(value, bool):
        return value is False
    return isinstance(value, types.BooleanLiteral) and value.literal_value is False


def _integer_tuple(typ) -> bool:
    typ = types.unliteral(typ) if not isinstance(typ, types.BaseTuple) else typ
    return isinstance(typ, types.BaseTuple) and all(is_integer(t) for t in typ.types)


def distinct_axes_checker(repeated: str):
    """A compiled `check(axes, ndim)`: the axes normalized (AxisError when out of range) and
    sorted; ValueError(repeated) when one is given twice."""

    def check(axes, ndim):
        ordered = np.empty(len(axes), np.int64)
        for k in range(len(axes)):  # an insertion sort: a few items, and cheaper to compile
            axis = _axis_jit(axes[k], ndim)
            j = k
            while j > 0 and ordered[j - 1] > axis:
                ordered[j] = ordered[j - 1]
                j -= 1
            ordered[j] = axis
        for k in range(1, ordered.shape[0]):
            if ordered[k] == ordered[k - 1]:
                raise ValueError(repeated)
        return ordered

    return njit(**NUMPY_ERRORS)(check)


_check_distinct_jit = distinct_axes_checker("repeated axis")


# ---------------------------------------------------------------------------- initial=


def _sum_dtype(a: types.Array, dtype) -> np.dtype:
    """NumPy's dtype of a sum: the one asked for, else small integers widen to int64/uint64."""
    if not _omitted(dtype):
        return numpy_dtype(parse_dtype(dtype))
    kind = numpy_dtype(a.dtype)
    if kind.kind == "b" or (kind.kind == "i" and kind.itemsize < 8):
        return np.dtype(np.int64)
    if kind.kind == "u" and kind.itemsize < 8:
        return np.dtype(np.uint64)
    return kind


@functools.cache
def _sum_initial_impl(name: str, method: bool, with_axis: bool, with_dtype: bool, dtype: str):
    """initial + the plain reduction, initial taken in the result's dtype (NumPy's cast)."""
    args = ", ".join(["axis"] * with_axis + ["dtype"] * with_dtype)
    call = f"a.{name}({args})" if method else f"np.{name}(a{', ' if args else ''}{args})"
    combine = "+" if name == "sum" else "*"
    source = f"""
def reduce(a, axis=None, dtype=None, out=None, keepdims=False, initial=None):
    return {call} {combine} DT(initial)
"""
    return generated("reduce", source, DT=getattr(np, dtype))


def _sum_initial_selector(name: str, method: bool):
    def select(a, axis=None, dtype=None, out=None, keepdims=False, initial=None):
        axis, dtype, out, initial = (as_type(v) for v in (axis, dtype, out, initial))
        if not is_array(a) or _omitted(initial) or not _omitted(out):
            return None
        if not (_false_flag(keepdims) and is_number(initial)):
            return None
        if not (_omitted(axis) or is_integer(axis)):
            return None
        result = _sum_dtype(a, dtype).name
        return _sum_initial_impl(name, method, not _omitted(axis), not _omitted(dtype), result)

    return select


for _name in ("sum", "prod"):
    overload(getattr(np, _name), jit_options=NUMPY_ERRORS)(_sum_initial_selector(_name, False))
    overload_method(types.Array, _name, jit_options=NUMPY_ERRORS)(
        _sum_initial_selector(_name, True)
    )


def _larger(x, y):
    """max as NumPy's: a NaN on either side wins."""
    if x != x or x > y:
        return x
    return y


def _smaller(x, y):
    if x != x or x < y:
        return x
    return y


_larger_jit = njit(**NUMPY_ERRORS)(_larger)
_smaller_jit = njit(**NUMPY_ERRORS)(_smaller)


@functools.cache
def _extreme_initial_impl(largest: bool, along: bool, dtype: str):
    """max/min seeded with `initial`: an empty array (or axis) gives `initial` itself."""
    pick = "larger" if largest else "smaller"
    ufunc = "np.maximum" if largest else "np.minimum"
    if not along:
        body = f"""
    result = DT(initial)
    for value in a.flat:
        result = {pick}(value, result)
    return result
"""
    else:
        body = f"""
    ax = axis_of(axis, a.ndim)
    moved = np.moveaxis(a, ax, 0)
    result = np.full(moved.shape[1:], initial, DT)
    for i in range(moved.shape[0]):
        result = {ufunc}(moved[i], result)
    return result
"""
    source = "def extreme(a, axis=None, out=None, keepdims=False, initial=None):" + body
    return generated(
        "extreme", source, DT=getattr(np, dtype), larger=_larger_jit, smaller=_smaller_jit
    )


def _extreme_initial_selector(largest: bool):
    def select(a, axis=None, out=None, keepdims=False, initial=None):
        axis, out, initial = (as_type(v) for v in (axis, out, initial))
        if not is_array(a) or _omitted(initial) or not _omitted(out):
            return None
        if not (_false_flag(keepdims) and is_number(initial)):
            return None
        if isinstance(a.dtype, types.Complex) or isinstance(
            types.unliteral(initial), types.Complex
        ):
            return None
        dtype = numpy_dtype(a.dtype).name
        if _omitted(axis):
            return _extreme_initial_impl(largest, False, dtype)
        if not is_integer(axis):
            return None
        if a.ndim == 1:  # the one axis: a number, as without an axis
            plain = _extreme_initial_impl(largest, False, dtype)
            plain_jit = njit(**NUMPY_ERRORS)(plain)

            def one_axis(a, axis=None, out=None, keepdims=False, initial=None):
                _axis_jit(axis, 1)
                return plain_jit(a, None, None, False, initial)

            return one_axis
        return _extreme_initial_impl(largest, True, dtype)

    return select


for _name, _largest in (("max", True), ("min", False), ("amax", True), ("amin", False)):
    if hasattr(np, _name):
        overload(getattr(np, _name), jit_options=NUMPY_ERRORS)(_extreme_initial_selector(_largest))
    if _name in ("max", "min"):
        overload_method(types.Array, _name, jit_options=NUMPY_ERRORS)(
            _extreme_initial_selector(_largest)
        )


# ---------------------------------------------------------------------------- mean(dtype=)


@functools.cache
def _mean_dtype_impl(dtype: str, with_axis: bool):
    call = "np.mean(a.astype(DT), axis)" if with_axis else "np.mean(a.astype(DT))"
    source = f"def mean(a, axis=None, dtype=None):\n    return {call}\n"
    return generated("mean", source, DT=getattr(np, dtype))


def _mean_dtype_selector(a, axis=None, dtype=None):
    axis, dtype = as_type(axis), as_type(dtype)
    if not is_array(a) or _omitted(dtype) or not (_omitted(axis) or is_integer(axis)):
        return None
    target = parse_dtype(dtype)
    if not isinstance(target, (types.Float, types.Complex)):
        raise TypingError(f"mean(dtype={target}): ember computes means in float or complex dtypes")
    return _mean_dtype_impl(numpy_dtype(target).name, not _omitted(axis))


overload(np.mean, jit_options=NUMPY_ERRORS)(_mean_dtype_selector)
overload_method(types.Array, "mean", jit_options=NUMPY_ERRORS)(_mean_dtype_selector)


# ---------------------------------------------------------------------------- ptp, quantiles


def _ptp_along(a, axis):
    return np.max(a, axis) - np.min(a, axis)


@overload(np.ptp, jit_options=NUMPY_ERRORS)
def _select_ptp_along(a, axis=None):
    axis = as_type(axis)
    if not is_array(a) or isinstance(a.dtype, (types.Boolean, types.Complex)):
        return None
    if _explicit_none(axis):
        return lambda a, axis=None: np.ptp(a)
    if not is_integer(axis):
        return None
    if a.ndim == 1:
        return lambda a, axis=None: np.ptp(a) if _axis_jit(axis, 1) == 0 else np.ptp(a)
    return _ptp_along


@functools.cache
def _quantile_along_impl(function: str, array_q: bool, one_axis: bool):
    """The plain quantile of every line along `axis` (moved last and made contiguous)."""
    if one_axis:
        source = f"""
def along(a, q, axis=None):
    axis_of(axis, 1)
    return np.{function}(a, q)
"""
        return generated("along", source)
    shape = "q.shape + rest" if array_q else "rest"
    store = (
        "out[:, i] = np.ravel(np.asarray(np.{f}(rows[i], q)))"
        if array_q
        else ("out[i] = np.{f}(rows[i], q)")
    )
    make = "np.empty((np.asarray(q).size, count))" if array_q else "np.empty(count)"
    source = f"""
def along(a, q, axis=None):
    ax = axis_of(axis, a.ndim)
    moved = np.moveaxis(a, ax, -1)
    rest = moved.shape[:-1]
    count = 1
    for extent in rest:
        count *= extent
    rows = np.ascontiguousarray(moved).reshape((count, moved.shape[-1]))
    out = {make}
    for i in range(count):
        {store.format(f=function)}
    return out.reshape({shape})
"""
    return generated("along", source)


def _quantile_along_selector(function: str):
    def select(a, q, axis=None):
        axis = as_type(axis)
        if not is_array(a) or isinstance(a.dtype, types.Complex):
            return None
        if _explicit_none(axis):
            return generated(
                "plain", f"def plain(a, q, axis=None):\n    return np.{function}(a, q)\n"
            )
        if not is_integer(axis):
            return None
        if is_number(q):
            return _quantile_along_impl(function, False, a.ndim == 1)
        if is_array(q):
            return _quantile_along_impl(function, True, a.ndim == 1)
        return None

    return select


for _name in ("percentile", "quantile", "nanpercentile", "nanquantile"):
    overload(getattr(np, _name), jit_options=NUMPY_ERRORS)(_quantile_along_selector(_name))


# ---------------------------------------------------------------------------- tuple axes, reps


@functools.cache
def _tile_tuple_impl(ndim: int, nreps: int):
    """NumPy's rule: the shorter of A's shape and reps is padded with leading 1s; the result
    is filled block by block (one slice assignment per repetition)."""
    rank = max(ndim, nreps)
    view = ", ".join(["None"] * (rank - ndim) + [":"] * ndim)
    lines = ["def tile(A, reps):", f"    b = A[{view}]"]
    for k in range(rank):
        rep = "1" if k < rank - nreps else f"reps[{k - (rank - nreps)}]"
        lines.append(f"    r{k} = {rep}\n    s{k} = b.shape[{k}]")
        lines.append(
            f"    if r{k} < 0:\n        raise ValueError('negative dimensions are not allowed')"
        )
    shape = ", ".join(f"s{k} * r{k}" for k in range(rank))
    lines.append(f"    out = np.empty(({shape},), A.dtype)")
    indent = "    "
    for k in range(rank):
        lines.append(f"{indent}for i{k} in range(r{k}):")
        indent += "    "
    block = ", ".join(f"i{k} * s{k} : (i{k} + 1) * s{k}" for k in range(rank))
    lines.append(f"{indent}out[{block}] = b")
    lines.append("    return out")
    return generated("tile", "\n".join(lines) + "\n")


def _tile_number(A, reps):
    for r in reps:
        if r < 0:
            raise ValueError("negative dimensions are not allowed")
    return np.full(reps, A)


@overload(np.tile, jit_options=NUMPY_ERRORS)
def _select_tile_tuple(A, reps):
    if not _integer_tuple(reps):
        return None
    if is_number(A):
        return _tile_number if len(reps) else None
    if is_array(A) and A.ndim + len(reps) > 0:
        return _tile_tuple_impl(A.ndim, len(reps))
    return None


@functools.cache
def _expand_dims_tuple_impl(ndim: int, count: int):
    """The new axes in increasing order, each inserted into the array grown so far."""
    lines = [
        "def expand(a, axis):",
        f"    axes = check_distinct(axis, {ndim + count})",
        "    b0 = a",
    ]
    lines += [f"    b{k + 1} = np.expand_dims(b{k}, axes[{k}])" for k in range(count)]
    lines.append(f"    return b{count}")
    return generated("expand", "\n".join(lines) + "\n", check_distinct=_check_distinct_jit)


@overload(np.expand_dims, jit_options=NUMPY_ERRORS)
def _select_expand_dims_tuple(a, axis):
    if not (is_array(a) and _integer_tuple(axis)):
        return None
    return _expand_dims_tuple_impl(a.ndim, len(axis))


@functools.cache
def _flip_tuple_impl(count: int):
    lines = ["def flip(m, axis=None):", "    check_distinct(axis, m.ndim)", "    b0 = m"]
    lines += [f"    b{k + 1} = np.flip(b{k}, axis[{k}])" for k in range(count)]
    lines.append(f"    return b{count}")
    return generated("flip", "\n".join(lines) + "\n", check_distinct=_check_distinct_jit)


@overload(np.flip, jit_options=NUMPY_ERRORS)
def _select_flip_tuple(m, axis=None):
    axis = as_type(axis)
    if is_array(m) and isinstance(axis, types.BaseTuple) and _integer_tuple(axis):
        return _flip_tuple_impl(len(axis))
    return None


@functools.cache
def _roll_tuple_impl(shifts: int, axes: int):
    """NumPy broadcasts shift against axis; rolls along the pairs one after another (two
    shifts of one axis add up)."""
    pairs = max(shifts, axes)
    shift = (lambda k: f"shift[{k}]") if shifts else (lambda k: "shift")
    axis = (lambda k: f"axis[{k}]") if axes else (lambda k: "axis")
    lines = ["def roll(a, shift, axis=None):", "    b0 = a"]
    lines += [f"    b{k + 1} = np.roll(b{k}, {shift(k)}, {axis(k)})" for k in range(pairs)]
    lines.append(f"    return b{pairs}")
    return generated("roll", "\n".join(lines) + "\n")


def _roll_flat_tuple(a, shift, axis=None):
    total = 0
    for s in shift:
        total += s
    return np.roll(a, total)


@overload(np.roll, jit_options=NUMPY_ERRORS)
def _select_roll_tuple(a, shift, axis=None):
    axis = as_type(axis)
    if not is_array(a) or a.ndim == 0:
        return None
    shift_tuple, axis_tuple = _integer_tuple(shift), _integer_tuple(axis)
    if not (shift_tuple or axis_tuple):
        return None
    if _omitted(axis):
        return _roll_flat_tuple if shift_tuple else None
    if not ((shift_tuple or is_integer(shift)) and (axis_tuple or is_integer(axis))):
        return None
    if shift_tuple and axis_tuple and len(shift) != len(axis):
        raise TypingError("np.roll: 'shift' and 'axis' should be scalars or 1D sequences of the "
                          "same length")  # fmt: skip
    return _roll_tuple_impl(len(shift) if shift_tuple else 0, len(axis) if axis_tuple else 0)


# ---------------------------------------------------------------------------- insert, delete


def _compress_along(condition, a, axis):
    ax = _axis_jit(axis, a.ndim)
    chosen = np.nonzero(np.asarray(condition))[0]
    n = a.shape[ax]
    for index in chosen:
        if index >= n:
            raise IndexError("index out of bounds for the axis in compress")
    return np.take(a, chosen, ax)


def _compress_flat(condition, a, axis=None):
    flat = np.ravel(a)
    chosen = np.nonzero(np.asarray(condition))[0]
    for index in chosen:
        if index >= flat.shape[0]:
            raise IndexError("index out of bounds for the array in compress")
    return flat[chosen]


_compress_along_jit = njit(**NUMPY_ERRORS)(_compress_along)
_compress_flat_jit = njit(**NUMPY_ERRORS)(_compress_flat)


def _condition_like(typ) -> bool:
    if is_array(typ):
        return typ.ndim == 1 and isinstance(typ.dtype, (types.Boolean, types.Integer))
    return isinstance(typ, (types.List, types.BaseTuple))


def _select_compress(condition, a, axis=None):
    axis = as_type(axis)
    if not (is_array(a) and _condition_like(condition)):
        return None
    if _omitted(axis):
        return lambda condition, a, axis=None: _compress_flat_jit(condition, a)
    if is_integer(axis):
        return lambda condition, a, axis=None: _compress_along_jit(condition, a, axis)
    return None


overload(np.compress, jit_options=NUMPY_ERRORS)(_select_compress)


@overload_method(types.Array, "compress", jit_options=NUMPY_ERRORS)
def _array_compress(a, condition, axis=None):
    impl = _select_compress(condition, a, axis)
    if impl is None:
        return None
    return lambda a, condition, axis=None: np.compress(condition, a, axis)


def _delete_along(arr, obj, axis):
    ax = _axis_jit(axis, arr.ndim)
    n = arr.shape[ax]
    keep = np.ones(n, np.bool_)
    for index in np.asarray(obj).ravel():
        if index < -n or index >= n:
            raise IndexError("index out of bounds for the axis in delete")
        keep[index + n if index < 0 else index] = False
    return _compress_along_jit(keep, arr, ax)


def _delete_slice_along(arr, obj, axis):
    ax = _axis_jit(axis, arr.ndim)
    keep = np.ones(arr.shape[ax], np.bool_)
    keep[obj] = False
    return _compress_along_jit(keep, arr, ax)


@overload(np.delete, jit_options=NUMPY_ERRORS)
def _select_delete_along(arr, obj, axis=None):
    axis = as_type(axis)
    if not is_array(arr):
        return None
    positions = is_integer(obj) or isinstance(obj, types.SliceType)
    positions = positions or (is_array(obj) and isinstance(obj.dtype, types.Integer))
    if _explicit_none(axis):  # the two-argument form (only for what it takes: no recursion)
        return (lambda arr, obj, axis=None: np.delete(arr, obj)) if positions else None
    if not is_integer(axis):
        return None
    if isinstance(obj, types.SliceType):
        return _delete_slice_along
    integers = is_array(obj) and isinstance(obj.dtype, types.Integer)
    return _delete_along if is_integer(obj) or integers else None


@functools.cache
def _insert_along_impl(ndim: int, values_ndim: int):
    """NumPy's rule for one insertion point: `values` gets leading 1s up to the array's rank,
    its first axis counts the new items; in the frame with `axis` moved first it broadcasts
    into the gap as it is."""
    ones = "(" + "1, " * (ndim - values_ndim) + ")"
    source = f"""
def insert(arr, obj, values, axis=None):
    ax = axis_of(axis, arr.ndim)
    n = arr.shape[ax]
    if obj < -n or obj > n:
        raise IndexError("index out of bounds for the axis in insert")
    position = obj + n if obj < 0 else obj
    v = np.ascontiguousarray(np.asarray(values)).reshape({ones} + np.shape(values))
    k = v.shape[0]
    source = np.moveaxis(arr, ax, 0)
    out = np.empty((n + k,) + source.shape[1:], arr.dtype)
    out[:position] = source[:position]
    out[position : position + k] = v
    out[position + k :] = source[position:]
    return np.ascontiguousarray(np.moveaxis(out, 0, ax))
"""
    return generated("insert", source)


@functools.cache
def _insert_many_along_impl(ndim: int, values_ndim: int):
    """NumPy's rule for a sequence of insertion points: the k-th position (counted in the
    array before insertion; equal ones keep their order) gets the k-th item of `values`
    broadcast to the array's shape with one item along `axis` per position. A sequence of one
    position inserts `values` as a block: as many items as it has along `axis`."""
    ones = "(" + "1, " * (ndim - values_ndim) + ")"
    source = f"""
def insert(arr, obj, values, axis=None):
    ax = axis_of(axis, arr.ndim)
    n = arr.shape[ax]
    given = np.asarray(obj).ravel()
    positions = np.empty(given.size, np.int64)
    for k in range(given.size):
        p = given[k]
        if p < -n or p > n:
            raise IndexError("index " + str(p) + " is out of bounds for axis " + str(ax)
                             + " with size " + str(n))
        positions[k] = p + n if p < 0 else p
    v = np.ascontiguousarray(np.asarray(values)).reshape({ones} + np.shape(values))
    if positions.size == 1:
        count = v.shape[ax]
        targets = positions[0] + np.arange(count)
    else:
        count = positions.size
        targets = positions.copy()
        targets[np.argsort(positions, kind="mergesort")] += np.arange(count)
    source = np.moveaxis(arr, ax, 0)
    block = np.empty((count,) + source.shape[1:], arr.dtype)
    np.moveaxis(block, 0, ax)[...] = v
    out = np.empty((n + count,) + source.shape[1:], arr.dtype)
    kept = np.ones(n + count, np.bool_)
    for k in range(count):
        out[targets[k]] = block[k]
        kept[targets[k]] = False
    j = 0
    for i in range(n + count):
        if kept[i]:
            out[i] = source[j]
            j += 1
    return np.ascontiguousarray(np.moveaxis(out, 0, ax))
"""
    return generated("insert", source)


def _integer_positions(obj) -> bool:
    """A list, tuple or 1-d array of integers (positions for np.insert)."""
    if is_array(obj):
        return obj.ndim == 1 and isinstance(obj.dtype, types.Integer)
    if isinstance(obj, types.List | types.UniTuple):
        return is_integer(obj.dtype)
    return False


@overload(np.insert, jit_options=NUMPY_ERRORS)
def _select_insert_along(arr, obj, values, axis=None):
    axis = as_type(axis)
    if not (is_array(arr) and is_integer(axis)):
        return None
    if is_number(values):
        values_ndim = 0
    elif is_array(values) and values.ndim <= arr.ndim:
        values_ndim = values.ndim
    else:
        return None
    if is_integer(obj):
        return _insert_along_impl(arr.ndim, values_ndim)
    if _integer_positions(obj):
        return _insert_many_along_impl(arr.ndim, values_ndim)
    return None


# ---------------------------------------------------------------------------- item


def _flat_item(a, index):
    n = a.size
    if index < -n or index >= n:
        raise IndexError("index out of bounds for the array in item")
    return np.ravel(a)[index + n if index < 0 else index]  # a view unless `a` is strided


_flat_item_jit = njit(**NUMPY_ERRORS)(_flat_item)


@functools.cache
def _item_at_impl(ndim: int):
    """a.item((i, j)): each index checked against its axis (negatives count from the end, as
    NumPy)."""
    lines = ["def item(a, index):"]
    for k in range(ndim):
        lines.append(f"    j{k} = index[{k}]")
        lines.append(f"    if j{k} < -a.shape[{k}] or j{k} >= a.shape[{k}]:")
        lines.append("        raise IndexError('index out of bounds for the array in item')")
        lines.append(f"    if j{k} < 0:\n        j{k} += a.shape[{k}]")
    lines.append(f"    return a[{', '.join(f'j{k}' for k in range(ndim))},]")
    return njit(**NUMPY_ERRORS)(generated("item", "\n".join(lines) + "\n"))


def item_implementation(a, args: tuple):
    """The implementation of a.item(*args) for index arguments (None: not such a call):
    a.item(i) (a flat index), a.item((i, j)) and a.item(i, j)."""
    if len(args) == 1 and is_integer(args[0]):
        return lambda a, *args: _flat_item_jit(a, args[0])
    packed = len(args) == 1 and _integer_tuple(args[0])
    if not (packed or (len(args) > 1 and all(is_integer(t) for t in args))):
        return None
    if len(args[0] if packed else args) != a.ndim:
        raise TypingError("a.item(i, j, ...) needs one index per dimension of the array")
    at = _item_at_impl(a.ndim)
    if packed:
        return lambda a, *args: at(a, args[0])
    return lambda a, *args: at(a, args)
