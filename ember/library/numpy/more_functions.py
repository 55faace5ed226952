"""NumPy functions written in Python and compiled by ember: lexsort, sort_complex, i0 (the
modified Bessel function of order 0), real_if_close (real arrays) and cumulative_sum /
cumulative_prod (NumPy 2.1's cumsum/cumprod with include_initial)."""

from __future__ import annotations

import functools
import math

import numpy as np

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload
from ember.library.numpy.axis_forms import _axis_jit
from ember.library.numpy.axis_forms3 import _omitted
from ember.library.numpy.manipulation import generated
from ember.library.numpy.support import (
    NUMPY_ERRORS,
    as_type,
    is_array,
    is_integer,
    is_number,
    numpy_dtype,
    parse_dtype,
)

# ---------------------------------------------------------------------------- lexsort


def _stable_order(key, order):
    """`order` re-sorted (stably) by key[order]: the earlier order breaks ties."""
    return order[np.argsort(key[order], kind="mergesort")]


_stable_order_jit = njit(**NUMPY_ERRORS)(_stable_order)


def _lexsort_rows(keys, axis=-1):
    if keys.shape[0] == 0:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    _axis_jit(axis, 1)
    order = np.argsort(keys[0], kind="mergesort")
    for k in range(1, keys.shape[0]):
        order = _stable_order_jit(keys[k], order)
    return order


@functools.cache
def _lexsort_tuple_impl(count: int):
    """The last key sorts first: sort by each key from the first, stably."""
    lines = [
        "def lexsort(keys, axis=-1):",
        "    axis_of(axis, 1)",
        "    order = np.argsort(keys[0], kind='mergesort')",
    ]
    for k in range(1, count):
        lines.append(f"    if keys[{k}].shape[0] != keys[0].shape[0]:")
        lines.append("        raise ValueError('all keys need to be the same shape')")
        lines.append(f"    order = stable_order(keys[{k}], order)")
    lines.append("    return order")
    return generated("lexsort", "\n".join(lines) + "\n", stable_order=_stable_order_jit)


def _real_key(typ) -> bool:
    return is_array(typ) and typ.ndim == 1 and not isinstance(typ.dtype, types.Complex)


@overload(np.lexsort, jit_options=NUMPY_ERRORS)
def _select_lexsort(keys, axis=-1):
    if not is_integer(as_type(axis)) and axis != -1:
        return None
    if is_array(keys) and keys.ndim == 2 and not isinstance(keys.dtype, types.Complex):
        return _lexsort_rows
    if isinstance(keys, types.BaseTuple) and all(_real_key(t) for t in keys.types):
        if len(keys) == 0:
            raise TypingError("np.lexsort needs at least one key")
        return _lexsort_tuple_impl(len(keys))
    return None


# ---------------------------------------------------------------------------- sort_complex


@functools.cache
def _sort_complex_impl(dtype: str):
    source = "def sort_complex(a):\n    return np.sort(a).astype(DT)\n"
    return generated("sort_complex", source, DT=getattr(np, dtype))


@overload(np.sort_complex, jit_options=NUMPY_ERRORS)
def _select_sort_complex(a):
    if not is_array(a) or a.ndim == 0:
        return None
    dtype = numpy_dtype(a.dtype)
    if dtype.kind == "c":
        target = dtype
    elif dtype.char in "bhBH":  # NumPy's choice: the small integers fit in complex64
        target = np.dtype(np.complex64)
    elif dtype.kind in "biuf":
        target = np.dtype(np.complex128)
    else:
        return None
    return _sort_complex_impl(target.name)


# ---------------------------------------------------------------------------- i0


_LARGE = 30.0  # from here the asymptotic series converges to double precision


def _i0_of(x):
    """I0 by its power series sum((x/2)**2k / k!**2) (positive terms: no cancellation) up to
    |x| = 30, and beyond by the asymptotic series e**x / sqrt(2 pi x) * sum(a_k / x**k)."""
    x = abs(x)
    if x != x:
        return x
    if x < _LARGE:
        quarter = x * x / 4.0
        term, total, k = 1.0, 1.0, 0
        while term > total * 1e-17:
            k += 1
            term *= quarter / (k * k)
            total += term
        return total
    if x == math.inf:
        return x
    term, total, k = 1.0, 1.0, 0
    while term > total * 1e-17:
        term *= (2 * k + 1) * (2 * k + 1) / (8.0 * (k + 1) * x)
        total += term
        k += 1
    return math.exp(x) / math.sqrt(2.0 * math.pi * x) * total


_i0_of_jit = njit(**NUMPY_ERRORS)(_i0_of)


@functools.cache
def _i0_array_impl(dtype: str):
    source = """
def i0(x):
    out = np.empty(x.shape, DT)
    flat_in = np.ravel(x)
    flat_out = out.ravel()
    for k in range(flat_in.shape[0]):
        flat_out[k] = i0_of(float(flat_in[k]))
    return out
"""
    return generated("i0", source, DT=getattr(np, dtype), i0_of=_i0_of_jit)


@overload(np.i0, jit_options=NUMPY_ERRORS)
def _select_i0(x):
    if is_number(x) or isinstance(x, types.Boolean):
        if isinstance(types.unliteral(x), types.Complex):
            raise TypingError("i0 not supported for complex values")
        return lambda x: _i0_of_jit(float(x))  # NumPy: a 0-d array; here a float
    if not is_array(x):
        return None
    if isinstance(x.dtype, types.Complex):
        raise TypingError("i0 not supported for complex values")
    dtype = x.dtype if isinstance(x.dtype, types.Float) else types.float64
    return _i0_array_impl(numpy_dtype(dtype).name)


# ---------------------------------------------------------------------------- real_if_close


@overload(np.real_if_close, jit_options=NUMPY_ERRORS)
def _select_real_if_close(a, tol=100):
    if not is_array(a):
        return None
    if isinstance(a.dtype, types.Complex):
        raise TypingError(
            "np.real_if_close of a complex array: its result type would depend on the values; "
            "test np.all(np.abs(a.imag) < tol * eps) and use a.real in compiled code"
        )
    return lambda a, tol=100: a


# ---------------------------------------------------------------------------- cumulative_*


@functools.cache
def _cumulative_impl(name: str, with_axis: bool, dtype: str | None):
    """np.cumsum/np.cumprod along the axis, with the identity first when include_initial."""
    identity = "0" if name == "cumsum" else "1"
    values = "x.astype(DT)" if dtype else "x"
    if with_axis:
        head = f"    ax = axis_of(axis, x.ndim)\n    done = np.{name}({values}, ax)"
    else:
        head = f"    ax = 0\n    done = np.{name}({values})"
    source = f"""
def cumulative(x, axis=None, dtype=None, out=None, include_initial=False):
{head}
    if not include_initial:
        return done
    moved = np.moveaxis(done, ax, 0)
    grown = np.empty((moved.shape[0] + 1,) + moved.shape[1:], done.dtype)
    grown[0] = {identity}
    grown[1:] = moved
    return np.ascontiguousarray(np.moveaxis(grown, 0, ax))
"""
    return generated("cumulative", source, DT=getattr(np, dtype) if dtype else None)


def _cumulative_selector(name: str):
    def select(x, axis=None, dtype=None, out=None, include_initial=False):
        axis, dtype, out = as_type(axis), as_type(dtype), as_type(out)
        if not is_array(x) or not _omitted(out):
            return None
        if _omitted(axis):
            if x.ndim != 1:
                raise TypingError(
                    f"np.{name}: axis is required for arrays of more than 1 dimension"
                )
            with_axis = False
        elif is_integer(axis):
            with_axis = True
        else:
            return None
        target = None if _omitted(dtype) else numpy_dtype(parse_dtype(dtype)).name
        impl = "cumsum" if name == "cumulative_sum" else "cumprod"
        return _cumulative_impl(impl, with_axis, target)

    return select


for _name in ("cumulative_sum", "cumulative_prod"):
    if hasattr(np, _name):
        overload(getattr(np, _name), jit_options=NUMPY_ERRORS)(_cumulative_selector(_name))
