"""Reductions over a tuple of axes (`a.sum(axis=(0, 2))`, `np.max(a, axis=t)` with `t` a tuple
known only at run time): sum, prod, mean, max, min, all and any, with keepdims=. Written in
Python and compiled by ember: the axes, checked and sorted at run time, reduce one at a time."""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.extending import overload, overload_method
from ember.library.numpy.axis_forms2 import _keepdims_flag
from ember.library.numpy.axis_forms3 import distinct_axes_checker
from ember.library.numpy.support import (
    NUMPY_ERRORS,
    as_type,
    is_array,
    is_integer,
    is_none,
    numpy_dtype,
    parse_dtype,
)

_DUPLICATE = "duplicate value in 'axis'"


_distinct_axes_jit = distinct_axes_checker(_DUPLICATE)


def _axis_tuple(axis) -> bool:
    """A tuple of integers (constant or not), the empty tuple included."""
    axis = as_type(axis)
    return isinstance(axis, types.BaseTuple) and all(is_integer(t) for t in axis.types)


def _result_dtype(name: str, a: types.Array, dtype) -> str:
    """NumPy's dtype of the reduction's result, by name."""
    kind = np.dtype(str(a.dtype)) if isinstance(a.dtype, types.Number) else np.dtype(bool)
    if dtype is not None and not is_none(dtype):
        return numpy_dtype(parse_dtype(dtype)).name
    if name in ("all", "any"):
        return "bool"
    if name == "mean":
        return kind.name if kind.kind in "fc" else "float64"
    if name in ("sum", "prod") and kind.kind in "biu" and kind.itemsize < 8:
        return "uint64" if kind.kind == "u" else "int64"
    return kind.name


@functools.cache
def _tuple_reduction_impl(name: str, ndim: int, count: int, keep: bool, dt: str):  # noqa: PLR0913
    """`name` over `count` runtime axes of an `ndim`-d array."""
    dtype = "dtype=None, " if name in ("sum", "prod", "mean") else ""
    lines = [f"def reduce(a, axis=None, {dtype}keepdims=False):"]
    if count > ndim:  # more axes than dimensions: one is out of range or repeated
        lines += [f"    distinct(axis, {ndim})", "    raise ValueError(DUPLICATE)"]
    else:
        lines += _reduction_lines(name, ndim, count, keep)
    namespace = {
        "np": np,
        "distinct": _distinct_axes_jit,
        "is_reduced": _is_reduced_jit,
        "DT": getattr(np, dt),
        "DUPLICATE": _DUPLICATE,
    }
    exec("\n".join(lines) + "\n", namespace)  # noqa: S102 - fixed names and integers
    return namespace["reduce"]


def _reduction_lines(name: str, ndim: int, count: int, keep: bool) -> list[str]:
    """The axes reduce from the last (highest) one, so the lower axes keep their positions;
    no axes: a copy in the result's dtype (NumPy's)."""
    step = "sum" if name == "mean" else name
    if count == 0:
        lines = ["    axes = np.empty(0, np.int64)", "    result = a.astype(DT)"]
    else:
        lines = [f"    axes = distinct(axis, {ndim})"]
        value = "a"
        for k in range(count - 1, -1, -1):
            extra = ", DT" if step in ("sum", "prod") and k == count - 1 else ""
            lines.append(f"    r{k} = np.{step}({value}, axes[{k}]{extra})")
            value = f"r{k}"
        lines.append(f"    result = {value}")
    if name == "mean" and count:
        lines += ["    n = 1", f"    for k in range({count}):", "        n *= a.shape[axes[k]]"]
        scalar = count == ndim
        lines.append(
            "    result = DT(result / n)" if scalar else "    result = (result / n).astype(DT)"
        )
    if keep:
        dims = ", ".join(f"1 if is_reduced(axes, {k}) else a.shape[{k}]" for k in range(ndim))
        lines.append(f"    return np.asarray(result).reshape(({dims},))")
    else:
        lines.append("    return result")
    return lines


def _is_reduced(axes, k):
    for axis in axes:
        if axis == k:
            return True
    return False


_is_reduced_jit = njit(**NUMPY_ERRORS)(_is_reduced)


def _tuple_selector(name: str, step: str | None = None):
    """`name(a, axis, dtype=, keepdims=)` (the reduction `step`, when `name` is an alias)."""

    def select(a, axis=None, dtype=None, keepdims=False):
        if not (is_array(a) and _axis_tuple(axis)):
            return None
        if not isinstance(a.dtype, types.Number | types.Boolean):
            return None
        keep = _keepdims_flag(keepdims)
        if keep is None and not isinstance(keepdims, bool):
            return None  # a flag known only at run time: typing retries with the constant
        count = len(as_type(axis).types)
        dt = _result_dtype(step or name, a, dtype)
        return _tuple_reduction_impl(step or name, a.ndim, count, bool(keep), dt)

    if (step or name) in ("sum", "prod", "mean"):
        return select
    return lambda a, axis=None, keepdims=False: select(a, axis, None, keepdims)


for _name in ("sum", "prod", "mean", "max", "min", "all", "any"):
    overload(getattr(np, _name), jit_options=NUMPY_ERRORS)(_tuple_selector(_name))
    overload_method(types.Array, _name, jit_options=NUMPY_ERRORS)(_tuple_selector(_name))
for _name, _step in (("amax", "max"), ("amin", "min")):
    overload(getattr(np, _name), jit_options=NUMPY_ERRORS)(_tuple_selector(_name, _step))
