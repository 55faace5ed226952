"""Sliding sums of NumPy vectors, written in Python and compiled by ember: convolve and
correlate (modes 'full', 'same', 'valid'). (vdot, inner, outer, kron: linalg/vector_products.)"""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload
from ember.library.numpy.support import NUMPY_ERRORS, as_type, is_array, numpy_dtype


def _vector(typ) -> bool:
    return is_array(typ) and typ.ndim == 1


def _result_dtype(a, b) -> str:
    return np.result_type(numpy_dtype(a.dtype), numpy_dtype(b.dtype)).name


# ---------------------------------------------------------------------------- convolution


@functools.cache
def _sliding_impl(mode: str, flip: bool, dtype_name: str):
    """convolve (flip=True) or correlate of two vectors in NumPy's `mode`. The full result has
    n + m - 1 items; 'same' keeps max(n, m) of them centred, 'valid' the complete overlaps.
    Correlation is convolution with the kernel reversed."""
    dtype = getattr(np, dtype_name)
    keep_all, keep_centre = mode == "full", mode == "same"  # constants for the compiled code

    def sliding(a, v, mode_arg):
        n, m = a.shape[0], v.shape[0]
        if m == 0:
            raise ValueError("v cannot be empty")
        if n == 0:
            raise ValueError("a cannot be empty")
        full = n + m - 1
        out = np.zeros(full, dtype)
        for k in range(full):  # out[k] = sum over j of a[k - j] * kernel[j]
            low, high = max(0, k - n + 1), min(m - 1, k)
            for j in range(low, high + 1):
                kernel = v[j] if flip else np.conj(v[m - 1 - j])
                out[k] += a[k - j] * kernel
        if keep_all:
            return out
        if keep_centre:
            length = max(n, m)
            start = (full - length) // 2
            if not flip and n < m:  # NumPy correlates the swapped pair, then reverses it
                start = full - length - start
            return out[start : start + length].copy()
        length = max(n, m) - min(n, m) + 1
        start = min(n, m) - 1
        return out[start : start + length].copy()

    return sliding


@functools.cache
def _sliding_any_mode(flip: bool, dtype_name: str):
    """A mode known only at run time (a string variable) picks among the three."""
    full, same, valid = (
        njit(**NUMPY_ERRORS)(_sliding_impl(mode, flip, dtype_name))
        for mode in ("full", "same", "valid")
    )

    def sliding(a, v, mode):
        if mode == "full":
            return full(a, v, mode)
        if mode == "same":
            return same(a, v, mode)
        if mode == "valid":
            return valid(a, v, mode)
        raise ValueError("mode must be one of 'full', 'same' or 'valid'")

    return sliding


def _select_sliding(flip: bool, default: str):
    def select(a, v, mode):
        if not (_vector(a) and _vector(v)):
            return None
        chosen = default if isinstance(mode, types.NoneType) else None
        if isinstance(mode, types.StringLiteral):
            chosen = mode.literal_value
        elif isinstance(mode, types.UnicodeType):
            return _sliding_any_mode(flip, _result_dtype(a, v))
        if chosen not in ("full", "same", "valid"):
            raise TypingError("mode must be the constant 'full', 'same' or 'valid'")
        return _sliding_impl(chosen, flip, _result_dtype(a, v))

    return select


@overload(np.convolve, jit_options=NUMPY_ERRORS)
def _np_convolve(a, v, mode=None):
    mode = as_type(mode)
    return _select_sliding(True, "full")(a, v, mode)


@overload(np.correlate, jit_options=NUMPY_ERRORS)
def _np_correlate(a, v, mode=None):
    mode = as_type(mode)
    return _select_sliding(False, "valid")(a, v, mode)
