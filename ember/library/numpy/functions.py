"""More NumPy functions, most written in Python and compiled by ember (see support.py):
clip, concatenate, stack, vstack, hstack, count_nonzero, nonzero (also as
np.where(condition)), flatnonzero, argwhere, isclose, allclose, unique, searchsorted,
bincount, outer, trace, diag, interp, histogram, flip, and the array methods clip and
nonzero.

Joining arrays (concatenate, stack) is lowered directly: each input is assigned into its view of
the result with the broadcasting assignment of arrays_kernels.py.
"""

from __future__ import annotations

import functools

import numpy as np
from llvmlite import ir as llvm

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import intrinsic, overload, overload_method
from ember.library.builtins.int_scalars import clip_bounds
from ember.library.builtins.numeric import truncated_or_int64_min
from ember.library.numpy.creation import nested_items
from ember.library.numpy.support import (
    NUMPY_ERRORS,
    as_type,
    from_numpy_dtype,
    is_integer,
    is_none,
    np_typer,
    numpy_dtype,
)
from ember.library.numpy.ufuncs import may_be_python_scalar
from ember.lowering import arrays as arr
from ember.lowering import arrays_kernels as kernels
from ember.lowering.arrays import ArrayFields, const
from ember.lowering.intrinsics import call_intrinsic
from ember.lowering.registry import lower_builtin
from ember.typing.signature import signature


def _array(typ) -> bool:
    return isinstance(typ, types.Array)


def _real_number(typ) -> bool:
    return isinstance(types.unliteral(typ), (types.Integer, types.Float, types.Boolean))


def _common_dtype(*dtypes) -> types.Type:
    return from_numpy_dtype(np.result_type(*(numpy_dtype(d) for d in dtypes)))


# ---------------------------------------------------------------------------- clip


def _clip(a, a_min, a_max, out=None):
    return np.minimum(np.maximum(a, a_min), a_max)


def _clip_integers(a, a_min, a_max, out=None):
    low, high = clip_bounds(a, a_min, a_max)
    return np.minimum(np.maximum(a, low), high)


def _clip_above(a, a_min, a_max, out=None):
    return np.minimum(a, a_max)


def _clip_below(a, a_min, a_max, out=None):
    return np.maximum(a, a_min)


def _clip_nothing(a, a_min, a_max, out=None):
    raise ValueError("array_clip: must set either max or min (One of max or min must be given)")


@functools.cache
def _clip_into(clipped):
    """`out=`: the clipped values assigned into `out` (broadcast to its shape), which returns."""
    clipped_jit = njit(**NUMPY_ERRORS)(clipped)

    def impl(a, a_min, a_max, out=None):
        out[...] = clipped_jit(a, a_min, a_max)
        return out

    return impl


def _clip_values(a, a_min, a_max):
    """The implementation for (a, a_min, a_max) without `out`; None when they do not fit."""
    if _array(a) and (is_none(a_min) or is_none(a_max)):
        if is_none(a_min) and is_none(a_max):
            return _clip_nothing
        bound = a_max if is_none(a_min) else a_min
        if _array(bound) or _real_number(bound):
            return _clip_above if is_none(a_min) else _clip_below
        return None
    ok = all(_array(t) or _real_number(t) for t in (a, a_min, a_max))
    if not (ok and _array(a)):
        return None
    if isinstance(a.dtype, types.Integer) and all(_python_int(t) for t in (a_min, a_max)):
        return _clip_integers  # bounds of a NumPy integer type promote as in np.maximum
    return _clip


def _python_int(typ) -> bool:
    return is_integer(typ) and may_be_python_scalar(typ)


@overload(np.clip, jit_options=NUMPY_ERRORS)
def _select_clip(a, a_min, a_max, out=None):
    clipped = _clip_values(a, as_type(a_min), as_type(a_max))
    out = as_type(out)
    if clipped is None or is_none(out) or clipped is _clip_nothing:
        return clipped
    if not _array(out):
        raise TypingError('The argument "out" must be an array if it is provided')
    return _clip_into(clipped)


@overload_method(types.Array, "clip", jit_options=NUMPY_ERRORS)
def _array_clip(self, min=None, max=None, out=None):
    return _select_clip(self, min, max, out)


# ---------------------------------------------------------------------------- joining


def _join_inputs(arrays) -> tuple | None:
    arrays = types.unliteral(arrays)
    if not isinstance(arrays, types.BaseTuple) or len(arrays) == 0:
        return None
    if not all(_array(t) for t in arrays.types):
        return None
    ndims = {t.ndim for t in arrays.types}
    if len(ndims) != 1:
        raise TypingError("all the input arrays must have the same number of dimensions")
    return tuple(arrays.types)


# Beyond this many arrays a tuple is joined by a loop over a list of them (axis_forms2): the
# code unrolled over every member grows past what LLVM's register allocator survives (an abort
# at ~25).
UNROLLED_JOIN_LIMIT = 16


def many_arrays(arrays) -> bool:
    """A tuple of more arrays of one type than the unrolled join takes."""
    return (
        isinstance(arrays, types.UniTuple)
        and _array(arrays.dtype)
        and len(arrays) > UNROLLED_JOIN_LIMIT
    )


@np_typer(np.concatenate, "arrays, axis=0")
def _type_concatenate(arrays, axis):
    if many_arrays(arrays):  # joined by a loop instead (axis_forms2)
        return None
    members = _join_inputs(arrays)
    if members is None or not isinstance(types.unliteral(axis), types.Integer):
        return None
    if members[0].ndim == 0:
        raise TypingError("zero-dimensional arrays cannot be concatenated")
    # NumPy orders the result as its inputs: Fortran when they all are
    fortran = members[0].ndim > 1 and all(m.layout == "F" for m in members)
    dtype = _common_dtype(*(m.dtype for m in members))
    return types.Array(dtype, members[0].ndim, "F" if fortran else "C")


def _view_along(builder, out_type, out: ArrayFields, axis, start, length) -> ArrayFields:
    """out[..., start:start+length, ...] along a run-time `axis`."""
    shape, data = [], out.data
    for k, (dim, stride) in enumerate(zip(out.shape, out.strides)):
        here = builder.icmp_signed("==", axis, const(k))
        shape.append(builder.select(here, length, dim))
        offset = builder.select(here, builder.mul(start, stride), const(0))
        data = arr.offset_pointer(builder, data, offset)
    return ArrayFields(out.meminfo, out.parent, arr.product(builder, shape), out.itemsize, data,
                       shape, list(out.strides))  # fmt: skip


@lower_builtin(np.concatenate, types.BaseTuple, types.Type)
def np_concatenate(context, builder, sig, args):
    from ember.library.numpy.reductions import _pick, normalize_axis

    members = tuple(sig.args[0].types)
    out_type = sig.return_type
    ndim = out_type.ndim
    axis = normalize_axis(context, builder, context.cast(builder, args[1], sig.args[1],
                                                         types.int64), ndim)  # fmt: skip
    inputs = [arr.unpack(builder, t, builder.extract_value(args[0], i))
              for i, t in enumerate(members)]  # fmt: skip
    first = inputs[0]
    total = const(0)
    bad = [llvm.Constant(arr.i1, 0)] * ndim  # per dimension: its message names it
    for fields in inputs:
        total = builder.add(total, _pick(builder, axis, fields.shape))
        for k in range(ndim):
            differs = builder.icmp_signed("!=", fields.shape[k], first.shape[k])
            off_axis = builder.icmp_signed("!=", axis, const(k))
            bad[k] = builder.or_(bad[k], builder.and_(differs, off_axis))
    for k in range(ndim):
        context.guard(
            builder,
            bad[k],
            ValueError,
            "all the input array dimensions except for the concatenation axis must match: "
            f"input sizes over dimension {k} do not match",
        )
    shape = [builder.select(builder.icmp_signed("==", axis, const(k)), total, first.shape[k])
             for k in range(ndim)]  # fmt: skip
    result = arr.allocate(context, builder, out_type, shape, order=out_type.layout)
    out = arr.unpack(builder, out_type, result)
    start = const(0)
    view_type = out_type.copy(layout="A")
    for member_type, fields, index in zip(members, inputs, range(len(members))):
        length = _pick(builder, axis, fields.shape)
        view = _view_along(builder, out_type, out, axis, start, length)
        kernels.assign(context, builder, view_type, view, member_type,
                       builder.extract_value(args[0], index))  # fmt: skip
        start = builder.add(start, length)
    return result


@np_typer(np.stack, "arrays, axis=0")
def _type_stack(arrays, axis):
    members = _join_inputs(arrays)
    if members is None or not isinstance(types.unliteral(axis), types.Integer):
        return None
    return types.Array(_common_dtype(*(m.dtype for m in members)), members[0].ndim + 1, "C")


@lower_builtin(np.stack, types.BaseTuple, types.Type)
def np_stack(context, builder, sig, args):
    from ember.library.numpy.reductions import normalize_axis

    members = tuple(sig.args[0].types)
    out_type = sig.return_type
    ndim = out_type.ndim
    axis = normalize_axis(context, builder, context.cast(builder, args[1], sig.args[1],
                                                         types.int64), ndim)  # fmt: skip
    inputs = [arr.unpack(builder, t, builder.extract_value(args[0], i))
              for i, t in enumerate(members)]  # fmt: skip
    first = inputs[0]
    bad = llvm.Constant(arr.i1, 0)
    for fields in inputs[1:]:
        for have, want in zip(fields.shape, first.shape):
            bad = builder.or_(bad, builder.icmp_signed("!=", have, want))
    context.guard(builder, bad, ValueError, "all input arrays must have the same shape")
    # the result's shape: the inputs' shape with len(arrays) inserted at `axis`
    count = const(len(members))
    shape = []
    for k in range(ndim):
        before = builder.icmp_signed("<", const(k), axis)
        at = builder.icmp_signed("==", const(k), axis)
        inner = first.shape[k] if k < ndim - 1 else const(1)
        outer = first.shape[k - 1] if k > 0 else const(1)
        shape.append(builder.select(at, count, builder.select(before, inner, outer)))
    result = arr.allocate(context, builder, out_type, shape)
    out = arr.unpack(builder, out_type, result)
    view_type = out_type.copy(ndim=ndim - 1, layout="A")
    for index, (member_type, _fields) in enumerate(zip(members, inputs)):
        # out[(slice,)*axis + (index,)]: drop dimension `axis` at offset index*stride[axis]
        data = out.data
        view_shape, view_strides = [], []
        for k in range(ndim - 1):
            before = builder.icmp_signed("<", const(k), axis)
            view_shape.append(builder.select(before, out.shape[k], out.shape[k + 1]))
            view_strides.append(builder.select(before, out.strides[k], out.strides[k + 1]))
        for k in range(ndim):
            here = builder.icmp_signed("==", axis, const(k))
            offset = builder.select(here, builder.mul(const(index), out.strides[k]), const(0))
            data = arr.offset_pointer(builder, data, offset)
        view = ArrayFields(out.meminfo, out.parent, arr.product(builder, view_shape),
                           out.itemsize, data, view_shape, view_strides)  # fmt: skip
        kernels.assign(context, builder, view_type, view, member_type,
                       builder.extract_value(args[0], index))  # fmt: skip
    return result


# ---------------------------------------------------------------------------- nonzero


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
    if not _array(a):
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
    if _array(a):
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
    if _array(a):
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
    if _array(a) and a.ndim == 0:
        raise TypingError(
            "Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() "
            "instead."
        )
    return _nonzero_impl(a.ndim) if _array(a) else None


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


def _as_inexact(b):
    """NumPy's isclose computes with b in floating point: integer b becomes float64."""


@overload(_as_inexact)
def _select_as_inexact(b):
    if isinstance(b, types.Array) and isinstance(b.dtype, (types.Integer, types.Boolean)):
        return lambda b: b.astype(np.float64)
    if isinstance(types.unliteral(b), (types.Integer, types.Boolean)):
        return lambda b: float(b)
    return lambda b: b


def _isclose(a, b, rtol, atol, equal_nan):
    b = _as_inexact(b)  # so that `a - b` cannot wrap around (iinfo extremes)
    # an infinite b is close only to itself: inf <= atol + rtol * inf must not count
    close = (np.abs(a - b) <= atol + rtol * np.abs(b)) & np.isfinite(b)
    same = a == b  # equal infinities
    both_nan = np.isnan(a) & np.isnan(b) & equal_nan
    return close | same | both_nan


_isclose_jit = njit(**NUMPY_ERRORS)(_isclose)


def _allclose(a, b, rtol, atol, equal_nan):
    np.broadcast_shapes(np.shape(a), np.shape(b))  # NumPy's mismatch message, before any work
    return bool(np.all(_isclose_jit(a, b, rtol, atol, equal_nan)))  # 0-d: a scalar


def _allclose_scalars(a, b, rtol, atol, equal_nan):
    return bool(_isclose_jit(a, b, rtol, atol, equal_nan))


def _select_closeness(result):
    def select(a, b, rtol, atol, equal_nan):
        if not all(_array(t) or _real_number(t) for t in (a, b)):
            return None
        if not (_array(a) or _array(b)):  # two numbers
            return _allclose_scalars if result is _allclose else result
        return result

    return select


@overload(np.isclose, jit_options=NUMPY_ERRORS)
def _np_isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    rtol = as_type(rtol)
    atol = as_type(atol)
    equal_nan = as_type(equal_nan)
    return _select_closeness(_isclose)(a, b, rtol, atol, equal_nan)


def _check_closeness_arguments(a, b, rtol, atol, equal_nan):
    """TypingErrors naming the argument that cannot be compared (as Numba words them)."""
    if not (_array(a) or _real_number(a)):
        raise TypingError('The first argument "a" must be array-like')
    if not (_array(b) or _real_number(b)):
        raise TypingError('The second argument "b" must be array-like')
    if not isinstance(rtol, (types.Float, types.Integer)) or isinstance(rtol, types.Boolean):
        raise TypingError('The third argument "rtol" must be a floating point')
    if not isinstance(atol, (types.Float, types.Integer)) or isinstance(atol, types.Boolean):
        raise TypingError('The fourth argument "atol" must be a floating point')
    if not isinstance(equal_nan, types.Boolean):
        raise TypingError('The fifth argument "equal_nan" must be a boolean')


@overload(np.allclose, jit_options=NUMPY_ERRORS)
def _np_allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    rtol = types.unliteral(as_type(rtol))
    atol = types.unliteral(as_type(atol))
    equal_nan = types.unliteral(as_type(equal_nan))
    _check_closeness_arguments(a, b, rtol, atol, equal_nan)
    return _select_closeness(_allclose)(a, b, rtol, atol, equal_nan)


# ---------------------------------------------------------------------------- sorted data


def _unique(a):
    values = np.sort(a.ravel())
    n = values.shape[0]
    if n == 0:
        return values
    keep = 1
    for i in range(1, n):
        if values[i] != values[keep - 1] and not (
            values[i] != values[i] and values[keep - 1] != values[keep - 1]
        ):
            values[keep] = values[i]
            keep += 1
    return values[:keep].copy()


@overload(np.unique, jit_options=NUMPY_ERRORS)
def _select_unique(ar):
    if _array(ar) and not isinstance(ar.dtype, types.Complex):
        return _unique
    return None


_unique_jit = njit(**NUMPY_ERRORS)(_unique)


def _both_uniques_sorted(ar1, ar2):
    return np.sort(np.concatenate((_unique_jit(ar1), _unique_jit(ar2))))


_both_uniques_sorted_jit = njit(**NUMPY_ERRORS)(_both_uniques_sorted)


def _union1d(ar1, ar2):
    return _unique_jit(np.concatenate((ar1.ravel(), ar2.ravel())))


def _intersect1d(ar1, ar2):
    both = _both_uniques_sorted_jit(ar1, ar2)  # a value in both appears twice, side by side
    return both[1:][both[1:] == both[:-1]]


def _setdiff1d(ar1, ar2):
    values = _unique_jit(ar1)
    return values[~np.isin(values, ar2)]


def _setxor1d(ar1, ar2):
    both = _both_uniques_sorted_jit(ar1, ar2)
    n = both.shape[0]
    alone = np.ones(n, np.bool_)  # in one array only: equal to neither neighbour
    for i in range(1, n):
        if both[i] == both[i - 1]:
            alone[i] = False
            alone[i - 1] = False
    return both[alone]


def _register_set_routine(function, impl) -> None:
    """np.union1d and kin over real arrays: sorted unique values, as NumPy returns them."""

    def select(ar1, ar2):
        if (
            _array(ar1)
            and _array(ar2)
            and not any(isinstance(a.dtype, types.Complex) for a in (ar1, ar2))
        ):
            return impl
        return None

    overload(function, jit_options=NUMPY_ERRORS)(select)


for _function, _impl in (
    (np.union1d, _union1d),
    (np.intersect1d, _intersect1d),
    (np.setdiff1d, _setdiff1d),
    (np.setxor1d, _setxor1d),
):
    _register_set_routine(_function, _impl)


def _sort_less(a, b):
    """NumPy's sort order: NaN (and NaT) after everything else."""
    return a < b or (b != b and a == a)


_sort_less_jit = njit(**NUMPY_ERRORS)(_sort_less)


@functools.cache
def _searchsorted_impl(right: bool, scalar: bool):
    """NumPy's binary search, step for step: the bounds carry over from one value to the next
    (narrowed when the values increase), so even an unsorted `a` gives NumPy's positions."""

    def goes_after(item, key):
        return not _sort_less_jit(key, item) if right else _sort_less_jit(item, key)

    after = njit(**NUMPY_ERRORS)(goes_after)

    def search(a, key, low, high):
        if key == key:  # not NaN: NumPy's order is the plain one (a NaN item compares false)
            while low < high:
                middle = low + ((high - low) >> 1)
                if (a[middle] <= key) if right else (a[middle] < key):
                    low = middle + 1
                else:
                    high = middle
            return low
        while low < high:
            middle = low + ((high - low) >> 1)
            if after(a[middle], key):
                low = middle + 1
            else:
                high = middle
        return low

    find = njit(**NUMPY_ERRORS)(search)
    if scalar:

        def impl(a, v, side):
            return find(a, v, 0, a.shape[0])

    else:

        def impl(a, v, side):
            out = np.empty(v.shape, np.int64)
            flat_out = out.ravel()
            flat_v = v.ravel()
            n = a.shape[0]
            if flat_v.shape[0] == 0:
                return out
            low, high = 0, n
            last = flat_v[0]
            for i in range(flat_v.shape[0]):
                key = flat_v[i]
                if after(last, key):  # the side's comparison, as NumPy's
                    high = n
                else:
                    low = 0
                    high = high + 1 if high < n else n
                last = key
                low = find(a, key, low, high)
                high = low  # the search ends with both bounds here, as NumPy's
                flat_out[i] = low
            return out

    return impl


@overload(np.searchsorted, jit_options=NUMPY_ERRORS)
def _select_searchsorted(a, v, side="left"):
    side = as_type(side)
    side_value = side if isinstance(side, str) else getattr(side, "literal_value", None)
    sequences = tuple(isinstance(t, (types.List, types.BaseTuple)) for t in (a, v))
    if any(sequences) and side_value in ("left", "right"):
        return _searchsorted_of_sequences(*sequences, side_value)
    if not (_array(a) and a.ndim == 1):
        return None
    if side_value not in ("left", "right"):
        raise TypingError("np.searchsorted: side must be the constant 'left' or 'right'")
    if _array(v):
        return _searchsorted_impl(side_value == "right", False)
    scalar = _real_number(v) or isinstance(
        types.unliteral(v), (types.NPDatetime, types.NPTimedelta)
    )
    return _searchsorted_impl(side_value == "right", True) if scalar else None


@functools.cache
def _searchsorted_of_sequences(a_sequence: bool, v_sequence: bool, side: str):
    """Lists and tuples (for the sorted array or the values) as the arrays NumPy makes."""
    a = "np.asarray(a)" if a_sequence else "a"
    v = "np.asarray(v)" if v_sequence else "v"
    source = f"def impl(a, v, side='left'):\n    return np.searchsorted({a}, {v}, side='{side}')\n"
    namespace = {"np": np}
    exec(source, namespace)  # noqa: S102 - fixed text and a checked side
    return namespace["impl"]


_NEGATIVE_BINCOUNT = (
    "bincount(): first argument must be non-negative "
    "('list' argument must have no negative elements)"
)


def _bincount_size(x, minlength):
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    size = minlength
    for value in x:
        if value < 0:
            raise ValueError(_NEGATIVE_BINCOUNT)
        if value + 1 > size:
            size = value + 1
    return size


_bincount_size_jit = njit(**NUMPY_ERRORS)(_bincount_size)


def _bincount(x, weights, minlength):
    out = np.zeros(_bincount_size_jit(x, minlength), np.int64)
    for value in x:
        out[value] += 1
    return out


def _bincount_weighted(x, weights, minlength):
    if weights.shape[0] != x.shape[0]:
        raise ValueError(
            "bincount(): weights and list don't have the same length "
            "(The weights and list don't have the same length.)"
        )
    out = np.zeros(_bincount_size_jit(x, minlength), np.float64)
    for i in range(x.shape[0]):
        out[x[i]] += weights[i]
    return out


def _vector_like(typ, item_kind) -> bool:
    """A 1-d array, list or homogeneous tuple whose items are of `item_kind`."""
    typ = types.unliteral(typ)
    if _array(typ):
        return typ.ndim == 1 and isinstance(typ.dtype, item_kind)
    if isinstance(typ, (types.List, types.UniTuple)):
        return isinstance(types.unliteral(typ.dtype), item_kind)
    return False


@functools.cache
def _bincount_of_sequences(weighted: bool):
    """Lists and tuples count as the arrays NumPy makes of them."""
    impl = njit(**NUMPY_ERRORS)(_bincount_weighted if weighted else _bincount)
    if weighted:
        return lambda x, weights=None, minlength=0: impl(
            np.asarray(x), np.asarray(weights), minlength
        )
    return lambda x, weights=None, minlength=0: impl(np.asarray(x), weights, minlength)


@overload(np.bincount, jit_options=NUMPY_ERRORS)
def _select_bincount(x, weights=None, minlength=0):
    weights = as_type(weights)
    minlength = as_type(minlength)
    if not _vector_like(x, types.Integer):
        return None
    if not (is_none(weights) or _vector_like(weights, (types.Integer, types.Float))):
        return None
    if _array(x) and (is_none(weights) or _array(weights)):
        return _bincount if is_none(weights) else _bincount_weighted
    return _bincount_of_sequences(not is_none(weights))


_LIKELY_IN_CACHE = 8  # NumPy's window around the previous answer before bisecting


@njit(**NUMPY_ERRORS)
def _bracket(key, xs, guess):
    """NumPy's search for interp: the j with xs[j] <= key < xs[j + 1] (-1 below, n above),
    starting near the previous answer `guess`. Its exact path matters when xs holds NaN."""
    n = xs.shape[0]
    if key > xs[n - 1]:
        return n
    if key < xs[0]:
        return -1
    if n <= 4:
        i = 1
        while i < n and key >= xs[i]:
            i += 1
        return i - 1
    guess = max(min(guess, n - 3), 1)
    low, high = 0, n
    if key < xs[guess]:
        if not key < xs[guess - 1]:  # not `>=`: a NaN edge answers here, as in NumPy
            return guess - 1
        high = guess - 1
        if guess > _LIKELY_IN_CACHE and key >= xs[guess - _LIKELY_IN_CACHE]:
            low = guess - _LIKELY_IN_CACHE
    else:
        if key < xs[guess + 1]:
            return guess
        if key < xs[guess + 2]:
            return guess + 1
        low = guess + 2
        if guess < n - _LIKELY_IN_CACHE - 1 and key < xs[guess + _LIKELY_IN_CACHE]:
            high = guess + _LIKELY_IN_CACHE
    while low < high:
        middle = low + ((high - low) >> 1)
        if key >= xs[middle]:
            low = middle + 1
        else:
            high = middle
    return low - 1


@njit(**NUMPY_ERRORS)
def _along(value, x0, x1, y0, y1, slope):
    """The line of `slope` through (x0, y0), (x1, y1) at value; from the other end when that
    gives NaN (an infinite y), and y0 itself when both ends are the same infinity."""
    out = slope * (value - x0) + y0
    if out != out:
        out = slope * (value - x1) + y1
        if out != out and y0 == y1:
            out = y0
    return out


@njit(**NUMPY_ERRORS)
def _between(value, x0, x1, y0, y1):
    return _along(value, x0, x1, y0, y1, (y1 - y0) / (x1 - x0))


@njit(**NUMPY_ERRORS)
def _between_complex(value, x0, x1, y0, y1):
    # NumPy's complex interp multiplies by 1 / dx where its real one divides: last-ulp equal
    inverse_dx = 1.0 / (x1 - x0)
    real = _along(value, x0, x1, y0.real, y1.real, (y1.real - y0.real) * inverse_dx)
    return complex(real, _along(value, x0, x1, y0.imag, y1.imag, (y1.imag - y0.imag) * inverse_dx))


@functools.cache
def _interp_core(complex_fp: bool):
    """np.interp over arrays: x, xp in float64, fp in float64 or complex128, NumPy's rules for
    NaN x, exact hits and the ends."""
    target = np.complex128 if complex_fp else np.float64
    between = _between_complex if complex_fp else _between

    def interp(x, xp, fp, left, right):
        xs = np.asarray(xp).astype(np.float64).ravel()
        ys = np.asarray(fp).astype(target).ravel()
        n = xs.shape[0]
        if n == 0:
            raise ValueError("array of sample points is empty")
        if ys.shape[0] != n:
            raise ValueError("fp and xp are not of the same length.")
        low = ys[0] if left is None else target(left)
        high = ys[n - 1] if right is None else target(right)
        flat_x = np.asarray(x).astype(np.float64).ravel()
        out = np.empty(flat_x.shape[0], target)
        j = 0
        for i in range(flat_x.shape[0]):
            value = flat_x[i]
            if n == 1:
                out[i] = low if value < xs[0] else (high if value > xs[0] else ys[0])
            elif value != value:
                out[i] = value
            else:
                j = _bracket(value, xs, j)
                if j == -1:
                    out[i] = low
                elif j == n:
                    out[i] = high
                elif j == n - 1 or xs[j] == value:
                    out[i] = ys[j]
                else:
                    out[i] = between(value, xs[j], xs[j + 1], ys[j], ys[j + 1])
        return out

    return njit(**NUMPY_ERRORS)(interp)


def _interp_source_ndim(x) -> int | None:
    if _array(x):
        return x.ndim
    if isinstance(x, types.List):
        return 1 if _real_number(x.dtype) or isinstance(x.dtype, types.Boolean) else None
    found = nested_items(x)
    return None if found is None else len(found[0])


@overload(np.interp, jit_options=NUMPY_ERRORS)
def _select_interp(x, xp, fp, left=None, right=None, period=None):
    left, right, period = as_type(left), as_type(right), as_type(period)
    if not is_none(period):
        return None  # keyword_forms.py
    ranks = [_interp_source_ndim(t) for t in (x, xp, fp)]
    if None in ranks:
        return None
    if ranks[1] != 1 or ranks[2] != 1:
        raise TypingError("np.interp: xp and fp must be 1-d sequences")
    leaves = _array_like_dtypes(fp)
    complex_fp = any(isinstance(t, types.Complex) for t in leaves)
    core = _interp_core(complex_fp)
    if ranks[0] == 0:
        return lambda x, xp, fp, left=None, right=None, period=None: core(x, xp, fp, left, right)[0]
    return lambda x, xp, fp, left=None, right=None, period=None: core(
        x, xp, fp, left, right
    ).reshape(np.asarray(x).shape)


def _array_like_dtypes(typ) -> list:
    if _array(typ):
        return [typ.dtype]
    if isinstance(typ, types.List):
        return [typ.dtype]
    return nested_items(typ)[1]


# ---------------------------------------------------------------------------- diagonals


def _diag_matrix(v, k):
    n = v.shape[0]
    size = n + abs(k)
    out = np.zeros((size, size), v.dtype)
    for i in range(n):
        if k >= 0:
            out[i, i + k] = v[i]
        else:
            out[i - k, i] = v[i]
    return out


def _diag_vector(v, k):
    rows, columns = v.shape
    first_row, first_column = (0, k) if k >= 0 else (-k, 0)
    n = max(min(rows - first_row, columns - first_column), 0)
    out = np.empty(n, v.dtype)
    for i in range(n):
        out[i] = v[first_row + i, first_column + i]
    return out


@overload(np.diag, jit_options=NUMPY_ERRORS)
def _select_diag(v, k=0):
    k = as_type(k)
    if is_none(v):
        raise TypingError('The argument "v" must be array-like')
    if not (_array(v) and isinstance(types.unliteral(k), types.Integer)):
        return None
    return {1: _diag_matrix, 2: _diag_vector}.get(v.ndim)


# ---------------------------------------------------------------------------- histogram


def _edge_bin(value, index, edges, last):
    """NumPy's guard against rounding at a bin's edges: `index` moved to the bin whose
    [left, right) edges (the last bin closed) hold `value`."""
    index = min(max(index, 0), last)
    if value < edges[index]:
        return index - 1
    if index < last and value >= edges[index + 1]:
        return index + 1
    return index


_edge_bin_jit = njit(**NUMPY_ERRORS)(_edge_bin)


def _histogram_in(flat, bins, low, high, refuse_nan):
    """Counts of `flat` in `bins` equal bins from `low` to `high`, and their edges; values
    outside are left out, as are NaNs unless `refuse_nan` (the range came from the values:
    NumPy finds it not finite)."""
    if bins <= 0:
        raise ValueError("`bins` must be positive, when an integer")
    if not (np.isfinite(low) and np.isfinite(high)):
        raise ValueError("the range of the bins is not finite")
    if low > high:
        raise ValueError("max must be larger than min in range parameter.")
    if low == high:
        low -= 0.5
        high += 0.5
    counts = np.zeros(bins, np.int64)
    edges = np.linspace(low, high, bins + 1)
    scale = bins / (high - low)
    last = bins - 1
    # A bin computed this far from a whole number is exact: the arithmetic's rounding errors
    # (a few units of 2**-52 of the bin count and the range's magnitude) are much smaller.
    # Only positions closer to an edge than that compare the value with the edges.
    tolerance = 2.0**-40 * (bins + (abs(low) + abs(high)) * scale)
    half_width = 0.5 - tolerance
    for i in range(flat.shape[0]):
        value = flat[i]
        position = (value - low) * scale
        whole = np.floor(position)
        # one test of the bin (NaN and far values: -2**63) and one of the distance from its
        # middle keep the common path short; a value outside the range fails one of them
        index = truncated_or_int64_min(whole)
        if 0 <= index < bins and abs(position - whole - 0.5) < half_width:
            counts[index] += 1
        elif low <= value <= high:
            counts[_edge_bin_jit(value, int(whole), edges, last)] += 1
        elif refuse_nan and value != value:
            raise ValueError("autodetected range of the values is not finite (NaN)")
    return counts, edges


_histogram_in_jit = njit(**NUMPY_ERRORS)(_histogram_in)


def _histogram_range(a, bins, range):
    low, high = range
    return _histogram_in_jit(a.ravel(), bins, float(low), float(high), False)


def _histogram_auto(a, bins, range):
    flat = a.ravel()
    if flat.shape[0] == 0:
        return _histogram_in_jit(flat, bins, 0.0, 1.0, True)
    low, high = _smallest_and_largest(flat)  # (NaN items skipped: the count refuses them)
    return _histogram_in_jit(flat, bins, float(low), float(high), True)


@intrinsic
def _smallest_and_largest(typingctx, array):
    """(a.min(), a.max()) of a non-empty array in one pass, but NaN items skipped (NaN only if
    all are): for floats IEEE minNum and maxNum, which vectorize much better than NumPy's
    NaN-propagating minimum and maximum."""
    if not (_array(array) and isinstance(array.dtype, types.Boolean | types.Integer | types.Float)):
        return None

    def codegen(context, builder, sig, args):
        from ember.library.numpy.reductions import _extreme_fold, _first_item, reduce_all

        fields = arr.unpack(builder, array, args[0])
        first = _first_item(builder, array, fields)
        if isinstance(array.dtype, types.Float):
            steps = [_float_step("llvm.minnum"), _float_step("llvm.maxnum")]
        else:
            steps = [_extreme_fold(array.dtype, is_max, first)[1] for is_max in (False, True)]
        init = context.make_tuple(builder, sig.return_type, [first, first])

        def step(b, pair, item, index):
            for position, one_step in enumerate(steps):
                value = one_step(b, b.extract_value(pair, position), item, index)
                pair = b.insert_value(pair, value, position)
            return pair

        return reduce_all(context, builder, array, fields, init.type, init, step,
                          memory_order=True)  # fmt: skip

    return signature(types.UniTuple(array.dtype, 2), array), codegen


def _float_step(intrinsic_name: str):
    return lambda b, acc, item, index: call_intrinsic(b, intrinsic_name, [acc, item])


def _histogram_edges(a, bins, range):
    """Bins given by their edges: [e0, e1), [e1, e2) ... [e(n-1), en], NaN outside."""
    n = bins.shape[0] - 1
    if n < 1:
        raise ValueError("`bins` must have at least two edges, when an array")
    if np.any(bins[1:] < bins[:-1]):  # (`range` is the parameter here, not the builtin)
        raise ValueError("`bins` must increase monotonically, when an array")
    counts = np.zeros(n, np.int64)
    for value in a.ravel():
        if bins[0] <= value <= bins[n]:
            index = np.searchsorted(bins, value, side="right") - 1
            counts[min(index, n - 1)] += 1
    return counts, bins


@overload(np.histogram, jit_options=NUMPY_ERRORS)
def _select_histogram(a, bins=10, range=None):
    bins = as_type(bins)
    range = as_type(range)
    if _array(a) and _array(bins) and bins.ndim == 1:
        return _histogram_edges  # range= does not apply to explicit edges
    if not (_array(a) and isinstance(types.unliteral(bins), types.Integer)):
        return None
    if is_none(range):
        return _histogram_auto
    if isinstance(range, types.BaseTuple) and len(range) == 2:
        return _histogram_range
    return None


# ---------------------------------------------------------------------------- flip


@np_typer(np.flip, "m")
def _type_flip(m):
    if not _array(m):
        raise TypingError(f"Cannot np.flip on {m} type: np.flip takes an array")
    if m.ndim == 0:  # NumPy's m[()]: the element
        return types.element_value_type(m.dtype)
    return m.copy(layout="A")


@lower_builtin(np.flip, types.Array)
def np_flip(context, builder, sig, args):
    """A view with every axis reversed (of a 0-d array: its element)."""
    fields = arr.unpack(builder, sig.args[0], args[0])
    if sig.args[0].ndim == 0:
        dtype = sig.args[0].dtype
        item = arr.load_item(builder, dtype, fields.data)
        return context.cast(builder, item, dtype, sig.return_type)
    data = fields.data
    strides = []
    for dim, stride in zip(fields.shape, fields.strides):
        last = builder.sub(dim, const(1))
        positive = builder.icmp_signed(">", dim, const(0))
        data = arr.offset_pointer(builder, data, builder.select(positive, builder.mul(last,
                                                                                      stride),
                                                                const(0)))  # fmt: skip
        strides.append(builder.neg(stride))
    view = ArrayFields(fields.meminfo, fields.parent, fields.nitems, fields.itemsize, data,
                       list(fields.shape), strides)  # fmt: skip
    arr.nrt_incref_fields(builder, view)
    return arr.pack(builder, sig.return_type, view)
