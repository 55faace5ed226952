"""More argument forms of NumPy functions, written in Python and compiled by ember: keepdims=True
of the reductions, nansum/nanprod/nanmax/nanmin/nanmean/nanargmax/nanargmin along an axis,
order='F' of zeros/ones/empty/full, lists of arrays for concatenate, stack, vstack and hstack, and
np.unique's return_index/return_inverse/return_counts and axis=."""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload, overload_method
from ember.library.numpy.axis_forms import _axis_jit, _explicit_none, _literal_string
from ember.library.numpy.joining import many_arrays
from ember.library.numpy.support import NUMPY_ERRORS, is_array, is_integer
from ember.typing.overload import as_type

# ---------------------------------------------------------------------------- keepdims=True


def _keepdims_flag(keepdims) -> bool | None:
    """True or False for a constant keepdims; None when not given (the plain form applies)."""
    if isinstance(keepdims, bool):
        return None if keepdims is False else True
    if isinstance(keepdims, types.BooleanLiteral):
        return keepdims.literal_value
    return None  # (a flag known only at run time: typing retries with the constant, if any)


@functools.cache
def _keepdims_impl(name: str, ndim: int, method: bool, with_axis: bool):
    """`name(a, axis)` with the reduced axis kept as length 1 (or every axis, without one)."""
    call = f"a.{name}({{}})" if method else f"np.{name}(a{{}})"
    ones = "(" + "1, " * ndim + ")"
    if with_axis:
        reduced = call.format("axis" if method else ", axis")
        if ndim == 1:
            body = f"    axis_of(axis, 1)\n    return np.asarray({reduced}).reshape((1,))"
        else:
            body = f"    ax = axis_of(axis, {ndim})\n    return np.expand_dims({reduced}, ax)"
    else:
        body = f"    return np.asarray({call.format('')}).reshape({ones})"
    source = f"def keep(a, axis=None, keepdims=False):\n{body}\n"
    namespace = {"np": np, "axis_of": _axis_jit}
    exec(source, namespace)  # noqa: S102 - assembled from fixed names and integers
    return namespace["keep"]


def _keepdims_selector(name: str, method: bool):
    def select(a, axis=None, keepdims=False):
        if not is_array(a) or a.ndim == 0:
            return None
        flag = _keepdims_flag(keepdims)
        if flag is None:
            return None
        if flag is False:
            return _plain_impl(name, method, _explicit_none(axis) or axis is None)
        if is_integer(as_type(axis)):
            return _keepdims_impl(name, a.ndim, method, True)
        if axis is None or _explicit_none(axis):
            return _keepdims_impl(name, a.ndim, method, False)
        return None

    return select


@functools.cache
def _plain_impl(name: str, method: bool, without_axis: bool):
    """keepdims=False given: the form without it."""
    reduced = (
        (f"a.{name}()" if without_axis else f"a.{name}(axis)")
        if method
        else (f"np.{name}(a)" if without_axis else f"np.{name}(a, axis)")
    )
    namespace = {"np": np}
    exec(f"def plain(a, axis=None, keepdims=False):\n    return {reduced}\n", namespace)  # noqa: S102
    return namespace["plain"]


_KEEPDIMS_FUNCTIONS = (
    "sum", "prod", "mean", "max", "min", "amax", "amin", "all", "any", "argmax", "argmin",
    "std", "var", "nansum", "nanprod", "nanmax", "nanmin", "nanmean", "median", "ptp",
    "count_nonzero",
)  # fmt: skip
_KEEPDIMS_METHODS = ("sum", "prod", "mean", "max", "min", "all", "any", "argmax", "argmin",
                     "std", "var")  # fmt: skip

for _name in _KEEPDIMS_FUNCTIONS:
    overload(getattr(np, _name), jit_options=NUMPY_ERRORS)(_keepdims_selector(_name, False))
for _name in _KEEPDIMS_METHODS:
    overload_method(types.Array, _name, jit_options=NUMPY_ERRORS)(_keepdims_selector(_name, True))


# ---------------------------------------------------------------------------- nan* along an axis


def _nansum_along(a, axis):
    return np.sum(np.where(np.isnan(a), 0, a), axis)


def _nanprod_along(a, axis):
    return np.prod(np.where(np.isnan(a), 1, a), axis)


def _nanmean_along(a, axis):
    present = ~np.isnan(a)
    return np.sum(np.where(present, a, 0), axis) / np.sum(present, axis)


def _nanmax_along(a, axis):
    missing = np.isnan(a)
    largest = np.max(np.where(missing, -np.inf, a), axis)
    return np.where(np.all(missing, axis), np.nan, largest).astype(largest.dtype)


def _nanmin_along(a, axis):
    missing = np.isnan(a)
    smallest = np.min(np.where(missing, np.inf, a), axis)
    return np.where(np.all(missing, axis), np.nan, smallest).astype(smallest.dtype)


def _nanargmax_along(a, axis):
    missing = np.isnan(a)
    if np.any(np.all(missing, axis)):
        raise ValueError("All-NaN slice encountered")
    return np.argmax(np.where(missing, -np.inf, a), axis)


def _nanargmin_along(a, axis):
    missing = np.isnan(a)
    if np.any(np.all(missing, axis)):
        raise ValueError("All-NaN slice encountered")
    return np.argmin(np.where(missing, np.inf, a), axis)


def _nan_axis_selector(skipping, exact_name: str, whole_name: str):
    """Floats along an axis of a 2-d or larger array: NaN entries skipped; integers and booleans
    hold no NaN (the plain reduction). A vector's axis: the whole-vector form."""
    skipping_jit = njit(**NUMPY_ERRORS)(skipping)
    namespace = {"np": np, "axis_of": _axis_jit}
    source = (
        f"def exact(a, axis):\n    return np.{exact_name}(a, axis)\n"
        f"def whole(a, axis):\n    axis_of(axis, 1)\n    return np.{whole_name}(a)\n"
    )
    exec(source, namespace)  # noqa: S102 - fixed names
    exact, whole = namespace["exact"], namespace["whole"]

    def select(a, axis):
        if not (is_array(a) and a.ndim >= 1 and is_integer(as_type(axis))):
            return None
        if a.ndim == 1:
            return whole
        if isinstance(a.dtype, types.Float):
            return lambda a, axis: skipping_jit(a, _axis_jit(axis, a.ndim))
        if isinstance(a.dtype, (types.Integer, types.Boolean)):
            return exact
        return None

    return select


for _function, _skipping, _exact in (
    (np.nansum, _nansum_along, "sum"),
    (np.nanprod, _nanprod_along, "prod"),
    (np.nanmean, _nanmean_along, "mean"),
    (np.nanmax, _nanmax_along, "max"),
    (np.nanmin, _nanmin_along, "min"),
    (np.nanargmax, _nanargmax_along, "argmax"),
    (np.nanargmin, _nanargmin_along, "argmin"),
):
    overload(_function, jit_options=NUMPY_ERRORS)(
        _nan_axis_selector(_skipping, _exact, _function.__name__)
    )


# ---------------------------------------------------------------------------- order='F'


def _fortran(order, shape) -> bool | None:
    """True for a constant 'F' with a tuple shape; None when order was not given."""
    text = _literal_string(order)
    if isinstance(order, str) and order == "C":
        return None  # omitted
    if text not in ("C", "F", "A", "K"):
        raise TypingError("order must be the constant 'C' or 'F' in compiled code")
    return text == "F" and isinstance(shape, types.BaseTuple) and len(shape) > 1


@functools.cache
def _ordered_forms(name: str):
    """(Fortran, C) implementations of `np.<name>(shape, dtype, order)`: a Fortran array is
    the transpose of the C array of the reversed shape."""
    namespace = {"np": np}
    source = (
        f"def fortran(shape, dtype=float, order='C'):\n    return np.{name}(shape[::-1], dtype).T\n"
        f"def c_order(shape, dtype=float, order='C'):\n    return np.{name}(shape, dtype)\n"
    )
    exec(source, namespace)  # noqa: S102 - a fixed NumPy name
    return namespace["fortran"], namespace["c_order"]


def _select_ordered(name: str):
    def select(shape, dtype=float, order="C"):
        fortran = _fortran(order, shape)
        if fortran is None:
            return None
        return _ordered_forms(name)[0 if fortran else 1]

    return select


overload(np.zeros, jit_options=NUMPY_ERRORS)(_select_ordered("zeros"))
overload(np.empty, jit_options=NUMPY_ERRORS)(_select_ordered("empty"))
overload(np.ones, jit_options=NUMPY_ERRORS)(_select_ordered("ones"))


@overload(np.full, jit_options=NUMPY_ERRORS)
def _full_ordered(shape, fill_value, dtype=None, order="C"):
    fortran = _fortran(order, shape)
    if fortran is None:
        return None
    given = not (dtype is None or _explicit_none(dtype))
    if fortran:
        if given:
            return lambda shape, fill_value, dtype=None, order="C": (
                np.full(shape[::-1], fill_value, dtype).T
            )
        return lambda shape, fill_value, dtype=None, order="C": np.full(shape[::-1], fill_value).T
    if given:
        return lambda shape, fill_value, dtype=None, order="C": np.full(shape, fill_value, dtype)
    return lambda shape, fill_value, dtype=None, order="C": np.full(shape, fill_value)


# ---------------------------------------------------------------------------- lists of arrays


def _array_list(arrays) -> bool:
    return isinstance(arrays, (types.List, types.ListType)) and is_array(arrays.dtype)


def _concatenate_list(arrays, axis=0):
    if len(arrays) == 0:
        raise ValueError("need at least one array to concatenate")
    first = arrays[0]
    ax = _axis_jit(axis, first.ndim)
    total = 0
    for part in arrays:
        if part.ndim != first.ndim:
            raise ValueError("all the input arrays must have same number of dimensions")
        for k in range(first.ndim):
            if k != ax and part.shape[k] != first.shape[k]:
                raise ValueError(
                    "all the input array dimensions except for the concatenation axis "
                    "must match exactly"
                )
        total += part.shape[ax]
    leading = np.moveaxis(first, ax, 0)
    out = np.empty((total,) + leading.shape[1:], first.dtype)
    position = 0
    for part in arrays:
        length = part.shape[ax]
        out[position : position + length] = np.moveaxis(part, ax, 0)
        position += length
    return np.ascontiguousarray(np.moveaxis(out, 0, ax))


_concatenate_list_jit = njit(**NUMPY_ERRORS)(_concatenate_list)


@overload(np.concatenate, jit_options=NUMPY_ERRORS)
def _select_concatenate_list(arrays, axis=0):
    if _array_list(arrays) and arrays.dtype.ndim >= 1 and is_integer(as_type(axis)):
        return _concatenate_list
    if many_arrays(arrays) and arrays.dtype.ndim >= 1 and is_integer(as_type(axis)):
        return lambda arrays, axis=0: _concatenate_list_jit(list(arrays), axis)
    return None


@overload(np.vstack, jit_options=NUMPY_ERRORS)
def _select_vstack_list(tup):
    if not _array_list(tup):
        return None
    if tup.dtype.ndim == 1:
        return lambda tup: _concatenate_list_jit([np.expand_dims(a, 0) for a in tup], 0)
    return lambda tup: _concatenate_list_jit(tup, 0)


@overload(np.hstack, jit_options=NUMPY_ERRORS)
def _select_hstack_list(tup):
    if not _array_list(tup) or tup.dtype.ndim == 0:
        return None
    axis = 0 if tup.dtype.ndim == 1 else 1
    return lambda tup: _concatenate_list_jit(tup, axis)


@overload(np.stack, jit_options=NUMPY_ERRORS)
def _select_stack_list(arrays, axis=0):
    if not (_array_list(arrays) and is_integer(as_type(axis))):
        return None

    def stack_list(arrays, axis=0):
        if len(arrays) == 0:
            raise ValueError("need at least one array to stack")
        ax = _axis_jit(axis, arrays[0].ndim + 1)
        for a in arrays:
            if a.shape != arrays[0].shape:
                raise ValueError("all input arrays must have the same shape")
        return _concatenate_list_jit([np.expand_dims(a, ax) for a in arrays], ax)

    return stack_list


# ---------------------------------------------------------------------------- unique(return_*=)


def _unique_parts(ar):
    """(sorted values, the stable sort's order, where each new value starts) of `ar` flattened;
    NaNs count as one value, as NumPy's equal_nan=True."""
    flat = ar.ravel()
    order = np.argsort(flat, kind="mergesort")
    ordered = flat[order]
    n = ordered.shape[0]
    starts = np.empty(n, np.bool_)
    for i in range(n):
        if i == 0:
            starts[i] = True
        else:
            current, previous = ordered[i], ordered[i - 1]
            both_nan = current != current and previous != previous
            starts[i] = current != previous and not both_nan
    return ordered, order, starts


_unique_parts_jit = njit(**NUMPY_ERRORS)(_unique_parts)


def _unique_rows(ar, axis):
    """`_unique_parts` of the slices of `ar` along `axis` (as rows), sorted lexicographically
    (stable sorts from the last column to the first), and the slices' own shape."""
    ax = _axis_jit(axis, ar.ndim)
    moved = np.ascontiguousarray(np.moveaxis(ar, ax, 0))
    n = moved.shape[0]
    width = 1
    for d in moved.shape[1:]:
        width *= d
    rows = moved.reshape((n, width))
    order = np.arange(n)
    for c in range(width - 1, -1, -1):
        order = order[np.argsort(rows[order, c], kind="mergesort")]
    ordered = rows[order]
    starts = np.empty(n, np.bool_)
    for i in range(n):
        starts[i] = i == 0 or np.any(ordered[i] != ordered[i - 1])  # NaN rows stay apart
    return ordered, order, starts, moved.shape[1:]


_unique_rows_jit = njit(**NUMPY_ERRORS)(_unique_rows)


@functools.cache
def _unique_impl(with_index: bool, with_inverse: bool, with_counts: bool, along: bool = False):
    """NumPy's unique with the asked extras: first positions, inverse (the input's shape from
    NumPy 2, for axis=None; 1-d along an axis), counts; all np.intp. `along`: of the slices
    along `axis` (the unique ones stacked along that axis)."""
    lines = ["def unique(ar, return_index=False, return_inverse=False, return_counts=False):"]
    if along:
        lines[0] = lines[0][:-2] + ", axis=None):"
        lines += [
            "    ordered, order, starts, shape = rows(ar, axis)",
            "    chosen = ordered[starts]",
            "    stacked = chosen.reshape((chosen.shape[0],) + shape)",
            "    results = (np.moveaxis(stacked, 0, axis),)",
        ]
    else:
        lines += [
            "    ordered, order, starts = parts(ar)",
            "    results = (ordered[starts].copy(),)",
        ]
    if with_index:
        lines.append("    results = results + (order[starts].copy(),)")
    if with_inverse:
        lines += [
            "    inverse = np.empty(ordered.shape[0], np.intp)",
            "    inverse[order] = np.cumsum(starts) - 1",
            f"    results = results + ({'inverse' if along else 'inverse.reshape(ar.shape)'},)",
        ]
    if with_counts:
        lines += [
            "    positions = np.flatnonzero(starts)",
            "    ends = np.append(positions[1:], ordered.shape[0])",
            "    results = results + (ends - positions,)",
        ]
    plain = not (with_index or with_inverse or with_counts)
    lines.append("    return results[0]" if plain else "    return results")
    namespace = {"np": np, "parts": _unique_parts_jit, "rows": _unique_rows_jit}
    exec("\n".join(lines) + "\n", namespace)  # noqa: S102 - fixed text chosen above
    return namespace["unique"]


def _constant_flag(value) -> bool | None:
    """A constant flag's value; None for a flag known only at run time (typing retries with
    the constant, when there is one)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, types.BooleanLiteral):
        return value.literal_value
    return None


@overload(np.unique, jit_options=NUMPY_ERRORS)
def _select_unique_extras(ar, return_index=False, return_inverse=False, return_counts=False):
    if not is_array(ar) or isinstance(ar.dtype, types.Complex):
        return None
    flags = tuple(_constant_flag(f) for f in (return_index, return_inverse, return_counts))
    if None in flags:
        return None
    if not any(flags):
        given = not all(isinstance(f, bool) for f in (return_index, return_inverse, return_counts))
        return _unique_plain if given else None
    return _unique_impl(*flags)


def _unique_plain(ar, return_index=False, return_inverse=False, return_counts=False):
    return np.unique(ar)


@overload(np.unique, jit_options=NUMPY_ERRORS)
def _select_unique_along(
    ar, return_index=False, return_inverse=False, return_counts=False, axis=None
):
    if not (is_array(ar) and ar.ndim >= 1 and is_integer(as_type(axis))):
        return None
    flags = tuple(_constant_flag(f) for f in (return_index, return_inverse, return_counts))
    if None in flags:
        return None
    return _unique_impl(*flags, along=True)
