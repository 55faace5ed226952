"""np.clip and a.clip(min, max, out=) in compiled code: np.minimum of np.maximum, either bound may
be None; an integer array with Python-int bounds keeps its dtype (bounds clamped to its range)."""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload, overload_method
from ember.library.builtins.int_scalars import clip_bounds
from ember.library.numpy.support import (
    NUMPY_ERRORS,
    as_type,
    is_array,
    is_integer,
    is_none,
    is_real_number,
)
from ember.library.numpy.ufuncs import may_be_python_scalar


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
    if is_array(a) and (is_none(a_min) or is_none(a_max)):
        if is_none(a_min) and is_none(a_max):
            return _clip_nothing
        bound = a_max if is_none(a_min) else a_min
        if is_array(bound) or is_real_number(bound):
            return _clip_above if is_none(a_min) else _clip_below
        return None
    ok = all(is_array(t) or is_real_number(t) for t in (a, a_min, a_max))
    if not (ok and is_array(a)):
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
    if not is_array(out):
        raise TypingError('The argument "out" must be an array if it is provided')
    return _clip_into(clipped)


@overload_method(types.Array, "clip", jit_options=NUMPY_ERRORS)
def _array_clip(self, min=None, max=None, out=None):
    return _select_clip(self, min, max, out)
