"""Reductions over a tuple of axes by gathering (std, var, the nan* reductions, median,
nanmedian, ptp, count_nonzero, average and the quantile family): the reduced axes move last and
flatten into one, so the function's one-axis form runs once. Also nanmedian along one axis."""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.extending import overload, overload_method
from ember.library.numpy.axis_forms2 import _keepdims_flag
from ember.library.numpy.axis_forms3 import distinct_axes_checker
from ember.library.numpy.axis_tuples import _axis_tuple, _is_reduced_jit
from ember.library.numpy.support import NUMPY_ERRORS, as_type, is_array, is_integer, is_none

_distinct_jit = distinct_axes_checker("duplicate value in 'axis'")


@functools.cache
def _gather_impl(ndim: int, count: int):
    """`gather(a, axes)`: `a` (ndim-d) with the `count` sorted `axes` moved last and flattened
    into one: a C-contiguous (ndim - count + 1)-d array."""
    kept = ndim - count
    perm = ", ".join([f"kept[{k}]" for k in range(kept)] + [f"axes[{k}]" for k in range(count)])
    shape = ", ".join([f"moved.shape[{k}]" for k in range(kept)] + ["n"])
    source = f"""
def gather(a, axes):
    kept = np.empty({max(kept, 1)}, np.int64)
    j = 0
    n = 1
    for k in range({ndim}):
        if is_reduced(axes, k):
            n *= a.shape[k]
        else:
            kept[j] = k
            j += 1
    moved = np.transpose(a, ({perm},))
    return np.ascontiguousarray(moved).reshape(({shape},))
"""
    namespace = {"np": np, "is_reduced": _is_reduced_jit}
    exec(source, namespace)  # noqa: S102 - fixed names and integers
    return njit(**NUMPY_ERRORS)(namespace["gather"])


# name -> (parameters after `a, axis`, the one-axis call on `lanes`, keepdims accepted)
_FORMS = {
    "std": ("dtype=None, out=None, ddof=0, keepdims=False", "np.std(lanes{axis}, ddof=ddof)"),
    "var": ("dtype=None, out=None, ddof=0, keepdims=False", "np.var(lanes{axis}, ddof=ddof)"),
    "nanstd": ("dtype=None, out=None, ddof=0, keepdims=False", "np.nanstd(lanes{axis}, ddof=ddof)"),
    "nanvar": ("dtype=None, out=None, ddof=0, keepdims=False", "np.nanvar(lanes{axis}, ddof=ddof)"),
    "nansum": ("dtype=None, out=None, keepdims=False", "np.nansum(lanes{axis})"),
    "nanprod": ("dtype=None, out=None, keepdims=False", "np.nanprod(lanes{axis})"),
    "nanmean": ("dtype=None, out=None, keepdims=False", "np.nanmean(lanes{axis})"),
    "nanmax": ("out=None, keepdims=False", "np.nanmax(lanes{axis})"),
    "nanmin": ("out=None, keepdims=False", "np.nanmin(lanes{axis})"),
    "median": ("out=None, overwrite_input=False, keepdims=False", "np.median(lanes{axis})"),
    "nanmedian": ("out=None, overwrite_input=False, keepdims=False", "np.nanmedian(lanes{axis})"),
    "ptp": ("out=None, keepdims=False", "np.ptp(lanes{axis})"),
    "count_nonzero": ("keepdims=False", "np.count_nonzero(lanes{axis})"),
    "average": ("weights=None", "np.average(lanes{axis})"),
}
_QUANTILES = ("percentile", "quantile", "nanpercentile", "nanquantile")
_UNSUPPORTED_IF_GIVEN = ("dtype", "out", "weights")


@functools.cache
def _tuple_form_impl(name: str, ndim: int, count: int, keep: bool):
    """`np.<name>(a, axis)` with `axis` a tuple of `count` integers."""
    quantile = name in _QUANTILES
    if quantile:
        params = "a, q, axis=None, out=None, overwrite_input=False"
        call = f"np.{name}(lanes, q{{axis}})"
    else:
        rest, call = _FORMS[name]
        params = f"a, axis=None, {rest}"
    kept = ndim - count
    lines = [f"def reduce({params}):"]
    if count > ndim:  # more axes than dimensions: one is out of range or repeated
        lines += [f"    distinct(axis, {ndim})", "    raise ValueError('duplicate value in axis')"]
    else:
        lines += [
            f"    axes = distinct(axis, {ndim})" if count else "    axes = np.empty(0, np.int64)",
            "    lanes = gather(a, axes)",
            f"    result = {call.format(axis=f', {kept}' if kept else '')}",
        ]
        if keep:
            dims = ", ".join(f"1 if is_reduced(axes, {k}) else a.shape[{k}]" for k in range(ndim))
            lines.append(f"    return np.asarray(result).reshape(({dims},))")
        else:
            lines.append("    return result")
    namespace = {
        "np": np,
        "distinct": _distinct_jit,
        "gather": _gather_impl(ndim, min(count, ndim)),
        "is_reduced": _is_reduced_jit,
    }
    exec("\n".join(lines) + "\n", namespace)  # noqa: S102 - fixed names and integers
    return namespace["reduce"]


def _only_defaults(**given) -> bool:
    """dtype=/out=/weights= are not given (or given as None): the gathered form ignores them."""
    return all(value is None or is_none(as_type(value)) for value in given.values())


def _tuple_selector(name: str):
    def select(a, axis=None, keepdims=False, **others):
        if not (is_array(a) and _axis_tuple(axis)):
            return None
        if not isinstance(a.dtype, types.Number | types.Boolean):
            return None
        if not _only_defaults(**{k: v for k, v in others.items() if k in _UNSUPPORTED_IF_GIVEN}):
            return None
        keep = _keepdims_flag(keepdims)
        if keep is None and not isinstance(keepdims, bool):
            return None  # a flag known only at run time: typing retries with the constant
        return _tuple_form_impl(name, a.ndim, len(as_type(axis).types), bool(keep))

    rest = _FORMS[name][0]
    names = [part.split("=")[0].strip() for part in rest.split(",")]
    others = ", ".join(f"{n}={n}" for n in names if n != "keepdims")
    keep_arg = "keepdims" if "keepdims" in names else "False"
    source = (
        f"def typed(a, axis=None, {rest}):\n"
        f"    return select(a, axis, {keep_arg}{', ' if others else ''}{others})\n"
    )
    namespace = {"select": select}
    exec(source, namespace)  # noqa: S102 - fixed parameter names
    return namespace["typed"]


def _quantile_tuple_selector(name: str):
    def select(a, q, axis=None, out=None, overwrite_input=False):
        if not (is_array(a) and _axis_tuple(axis) and _only_defaults(out=out)):
            return None
        if not isinstance(a.dtype, types.Integer | types.Float | types.Boolean):
            return None
        return _tuple_form_impl(name, a.ndim, len(as_type(axis).types), False)

    return select


for _name in _FORMS:
    overload(getattr(np, _name), jit_options=NUMPY_ERRORS)(_tuple_selector(_name))
for _name in ("std", "var"):
    overload_method(types.Array, _name, jit_options=NUMPY_ERRORS)(_tuple_selector(_name))
for _name in _QUANTILES:
    overload(getattr(np, _name), jit_options=NUMPY_ERRORS)(_quantile_tuple_selector(_name))


# ---------------------------------------------------------------------------- nanmedian(axis=)


def _nanmedian_float_along(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    return np.nanquantile(a, 0.5, axis=axis)


def _nanmedian_exact_along(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    return np.median(a, axis)


@overload(np.nanmedian, jit_options=NUMPY_ERRORS)
def _select_nanmedian_along(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """One axis: NumPy's nanmedian is the 0.5 'linear' nanquantile; no NaN in exact dtypes."""
    if not (is_array(a) and is_integer(as_type(axis)) and _only_defaults(out=out)):
        return None
    if keepdims is not False:
        return None  # keepdims given: not supported along one axis
    if isinstance(a.dtype, types.Float):
        return _nanmedian_float_along
    if isinstance(a.dtype, types.Integer | types.Boolean):
        return _nanmedian_exact_along
    return None
