"""np.isclose and np.allclose in compiled code: NumPy's |a - b| <= atol + rtol * |b| with its
rules for infinities and NaN (equal_nan=), over arrays and numbers broadcast together."""

from __future__ import annotations

import numpy as np

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload
from ember.library.numpy.support import (
    NUMPY_ERRORS,
    as_type,
    is_array,
    is_real_number,
)


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
        if not all(is_array(t) or is_real_number(t) for t in (a, b)):
            return None
        if not (is_array(a) or is_array(b)):  # two numbers
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
    if not (is_array(a) or is_real_number(a)):
        raise TypingError('The first argument "a" must be array-like')
    if not (is_array(b) or is_real_number(b)):
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
