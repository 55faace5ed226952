"""Reshaping and rearranging NumPy functions, written in Python and compiled by ember:
expand_dims, roll, tile, repeat, meshgrid, cross, digitize and trapezoid (trapz).

Implementations that depend on the rank (`expand_dims`, `tile`) are generated per rank.
"""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.errors import TypingError
from ember.library.numpy_support import (
    implement,
    is_array,
    is_integer,
    is_none,
    is_number,
    jitted,
    numpy_dtype,
)


def _generated(name: str, source: str) -> object:
    namespace = {"np": np, "AxisError": np.exceptions.AxisError}
    exec(source, namespace)  # noqa: S102 - source assembled from integers and fixed text
    return namespace[name]


# ---------------------------------------------------------------------------- expand_dims


@functools.cache
def _expand_dims_impl(ndim: int):
    """One view per possible axis, chosen at run time (constants are not typed as literals)."""
    lines = ["def expand_dims(a, axis):", f"    if axis < 0:\n        axis += {ndim + 1}"]
    for axis in range(ndim + 1):
        index = ", ".join(["None" if k == axis else ":" for k in range(ndim + 1)])
        lines.append(f"    if axis == {axis}:\n        return a[{index}]")
    lines.append("    raise AxisError('axis is out of bounds for the result')")
    return _generated("expand_dims", "\n".join(lines) + "\n")


@implement(np.expand_dims, "a, axis")
def _select_expand_dims(a, axis):
    return _expand_dims_impl(a.ndim) if is_array(a) and is_integer(axis) else None


# ---------------------------------------------------------------------------- roll


def _roll(a, shift):
    flat = a.ravel()
    out = np.empty_like(flat)
    n = flat.shape[0]
    if n:
        offset = shift % n
        out[offset:] = flat[: n - offset]
        out[:offset] = flat[n - offset :]
    return out.reshape(a.shape)


@implement(np.roll, "a, shift")
def _select_roll(a, shift):
    return _roll if is_array(a) and is_integer(shift) else None


# ---------------------------------------------------------------------------- tile, repeat


@functools.cache
def _tile_impl(ndim: int):
    """Repeat the last axis `reps` times (NumPy's rule for an integer `reps`)."""
    lead = [f"a.shape[{k}]" for k in range(ndim - 1)]
    shape = ", ".join([*lead, "cols * reps"]) + ","
    source = f"""
def tile(a, reps):
    cols = a.shape[-1]
    rows = a.size // cols if cols else 0
    reps = max(reps, 0)
    flat = np.ascontiguousarray(a).reshape((rows, cols))
    out = np.empty((rows, cols * reps), a.dtype)
    for r in range(reps):
        out[:, r * cols : (r + 1) * cols] = flat
    return out.reshape(({shape}))
"""
    return _generated("tile", source)


def _tile_scalar(a, reps):
    return np.full(max(reps, 0), a)


@implement(np.tile, "A, reps")
def _select_tile(A, reps):
    if not is_integer(reps):
        return None
    if is_number(A) or (is_array(A) and A.ndim == 0):
        return _tile_scalar if is_number(A) else None
    return _tile_impl(A.ndim) if is_array(A) else None


def _repeat_int(a, repeats):
    if repeats < 0:
        raise ValueError("negative dimensions are not allowed")
    flat = a.ravel()
    out = np.empty(flat.shape[0] * repeats, flat.dtype)
    for i in range(flat.shape[0]):
        for j in range(repeats):
            out[i * repeats + j] = flat[i]
    return out


def _repeat_array(a, repeats):
    flat = a.ravel()
    if repeats.shape[0] != flat.shape[0]:
        raise ValueError("operands could not be broadcast together")
    total = 0
    for count in repeats:
        if count < 0:
            raise ValueError("repeats may not contain negative values.")
        total += count
    out = np.empty(total, flat.dtype)
    position = 0
    for i in range(flat.shape[0]):
        for _ in range(repeats[i]):
            out[position] = flat[i]
            position += 1
    return out


def _select_repeat(a, repeats):
    if not is_array(a):
        return None
    if is_integer(repeats):
        return _repeat_int
    if is_array(repeats) and repeats.ndim == 1 and isinstance(repeats.dtype, types.Integer):
        return _repeat_array
    return None


implement(np.repeat, "a, repeats")(_select_repeat)
implement((types.Array, "repeat"), "self, repeats")(_select_repeat)


# ---------------------------------------------------------------------------- meshgrid


@functools.cache
def _meshgrid_impl(ij: bool):
    def meshgrid(x, y, indexing):
        xf, yf = x.ravel(), y.ravel()
        rows, cols = (xf.size, yf.size) if ij else (yf.size, xf.size)
        xx = np.empty((rows, cols), x.dtype)
        yy = np.empty((rows, cols), y.dtype)
        for i in range(rows):
            for j in range(cols):
                xx[i, j] = xf[i] if ij else xf[j]
                yy[i, j] = yf[j] if ij else yf[i]
        return xx, yy

    return meshgrid


@implement(np.meshgrid, "x, y, indexing='xy'")
def _select_meshgrid(x, y, indexing):
    if not (is_array(x) and is_array(y)):
        return None
    if not isinstance(indexing, types.StringLiteral) or indexing.literal_value not in ("xy", "ij"):
        raise TypingError("np.meshgrid(indexing=...) must be the constant 'xy' or 'ij'")
    return _meshgrid_impl(indexing.literal_value == "ij")


# ---------------------------------------------------------------------------- cross


@functools.cache
def _cross_impl(ndim: int, dtype_name: str):
    """The cross product of 3-vectors (ndim 1) or of the rows of two (n, 3) arrays."""
    row = "" if ndim == 1 else "i, "
    shape = "3" if ndim == 1 else "(a.shape[0], 3)"
    source = f"""
def cross(a, b):
    if a.shape[-1] != 3 or b.shape[-1] != 3:
        raise ValueError("incompatible dimensions for cross product (dimension must be 3)")
    if a.shape[0] != b.shape[0]:
        raise ValueError("operands could not be broadcast together")
    out = np.empty({shape}, np.{dtype_name})
    for i in range(1 if {ndim} == 1 else a.shape[0]):
        out[{row}0] = a[{row}1] * b[{row}2] - a[{row}2] * b[{row}1]
        out[{row}1] = a[{row}2] * b[{row}0] - a[{row}0] * b[{row}2]
        out[{row}2] = a[{row}0] * b[{row}1] - a[{row}1] * b[{row}0]
    return out
"""
    return _generated("cross", source)


@implement(np.cross, "a, b")
def _select_cross(a, b):
    if not (is_array(a) and is_array(b)) or a.ndim != b.ndim or a.ndim > 2:
        return None
    dtype = np.result_type(numpy_dtype(a.dtype), numpy_dtype(b.dtype))
    return _cross_impl(a.ndim, dtype.name)


# ---------------------------------------------------------------------------- digitize


def _bin_of(value, bins, right):
    """NumPy's rule: how many bins lie at or below `value` (strictly below with `right`),
    counted from the end for decreasing bins (a binary search over them in increasing order)."""
    n = bins.shape[0]
    increasing = n < 2 or bins[n - 1] >= bins[0]
    low, high = 0, n
    while low < high:
        middle = (low + high) // 2
        edge = bins[middle] if increasing else bins[n - 1 - middle]
        before = edge < value if right else edge <= value
        if before:
            low = middle + 1
        else:
            high = middle
    return low if increasing else n - low


_bin_of_jit = jitted(_bin_of)


def _digitize_array(x, bins, right):
    flat = x.ravel()
    out = np.empty(flat.shape[0], np.intp)
    for i in range(flat.shape[0]):
        out[i] = _bin_of_jit(flat[i], bins, right)
    return out.reshape(x.shape)


def _digitize_scalar(x, bins, right):
    return _bin_of_jit(x, bins, right)


@implement(np.digitize, "x, bins, right=False")
def _select_digitize(x, bins, right):
    if not (is_array(bins) and bins.ndim == 1) or isinstance(bins.dtype, types.Complex):
        return None
    if is_array(x) and not isinstance(x.dtype, types.Complex):
        return _digitize_array
    return _digitize_scalar if is_number(x) else None


# ---------------------------------------------------------------------------- trapezoid


def _trapezoid_dx(y, x, dx):
    total = 0.0
    for i in range(1, y.shape[0]):
        total += (y[i] + y[i - 1]) / 2.0
    return total * dx


def _trapezoid_x(y, x, dx):
    if x.shape[0] != y.shape[0]:
        raise ValueError("x and y must have the same length")
    total = 0.0
    for i in range(1, y.shape[0]):
        total += (x[i] - x[i - 1]) * (y[i] + y[i - 1]) / 2.0
    return total


def _select_trapezoid(y, x, dx):
    if not (is_array(y) and y.ndim == 1) or isinstance(y.dtype, types.Complex):
        return None
    if is_none(x):
        return _trapezoid_dx if is_number(dx) else None
    return _trapezoid_x if is_array(x) and x.ndim == 1 else None


for _name in ("trapezoid", "trapz"):  # NumPy 2 renamed trapz; older NumPy has only trapz
    if hasattr(np, _name):
        implement(getattr(np, _name), "y, x=None, dx=1.0")(_select_trapezoid)
