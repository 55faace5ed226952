"""np.interp in compiled code: NumPy's piecewise-linear interpolation (left=, right=, complex fp),
finding each x's interval by NumPy's cached-guess bisection."""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload
from ember.library.numpy.creation import nested_items
from ember.library.numpy.support import (
    NUMPY_ERRORS,
    as_type,
    is_array,
    is_none,
    is_real_number,
)

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
    if is_array(x):
        return x.ndim
    if isinstance(x, types.List):
        return 1 if is_real_number(x.dtype) else None
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
    if is_array(typ):
        return [typ.dtype]
    if isinstance(typ, types.List):
        return [typ.dtype]
    return nested_items(typ)[1]
