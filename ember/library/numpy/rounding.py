"""np.round / np.around / ndarray.round of numbers and arrays, with `out=`: NumPy's rule (scale
by 10**decimals, round half to even, unscale) computed at the value's own precision; integers
round through float64 for negative decimals; complex numbers round each part."""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload, overload_method
from ember.library.numpy.support import NUMPY_ERRORS, as_type, is_none, numpy_dtype


@functools.cache
def _round_one(dtype_name: str):
    """A compiled function rounding one value of NumPy type `dtype_name`."""
    dtype = np.dtype(dtype_name)
    np_type = dtype.type
    if dtype.kind == "c":
        part = _round_one(np.empty(0, dtype).real.dtype.name)

        def round_complex(x, decimals):
            return np_type(complex(part(x.real, decimals), part(x.imag, decimals)))

        return njit(**NUMPY_ERRORS)(round_complex)
    if dtype.kind == "f":

        def round_real(x, decimals):
            if decimals >= 0:
                scale = np_type(10.0**decimals)
                return np.rint(x * scale) / scale
            scale = np_type(10.0**-decimals)
            return np.rint(x / scale) * scale

        return njit(**NUMPY_ERRORS)(round_real)

    def round_integer(x, decimals):
        if decimals >= 0:
            return np_type(x)
        scale = 10.0**-decimals
        return np_type(np.rint(x / scale) * scale)

    return njit(**NUMPY_ERRORS)(round_integer)


@functools.cache
def _round_array_impl(dtype_name: str, has_out: bool):
    one = _round_one(dtype_name)

    def fill(a, decimals, out):
        if out.shape != a.shape:
            raise ValueError("invalid output shape")
        for index in np.ndindex(a.shape):
            out[index] = one(a[index], decimals)
        return out

    fill_jit = njit(**NUMPY_ERRORS)(fill)
    if has_out:
        return fill

    def fresh(a, decimals, out):
        return fill_jit(a, decimals, np.empty_like(a))  # (a Fortran array stays Fortran)

    return fresh


def _rounds(typ) -> bool:
    return isinstance(typ, (types.Integer, types.Float, types.Complex))


def _select_round(a, decimals, out):
    a, decimals, out = (types.unliteral(as_type(t)) for t in (a, decimals, out))
    if not isinstance(decimals, types.Integer):
        return None
    if isinstance(a, types.Array):
        if not _rounds(a.dtype):
            return None
        if not (is_none(out) or isinstance(out, types.Array)):
            raise TypingError('The argument "out" must be an array if it is provided')
        return _round_array_impl(numpy_dtype(a.dtype).name, not is_none(out))
    if _rounds(a):
        if not is_none(out):
            raise TypingError('The argument "out" must be an array if it is provided')
        one = _round_one(numpy_dtype(a).name)
        return lambda a, decimals=0, out=None: one(a, decimals)
    raise TypingError('The argument "a" must be array-like')


@overload(np.round, jit_options=NUMPY_ERRORS)
def _np_round(a, decimals=0, out=None):
    return _select_round(a, decimals, out)


if np.around is not np.round:

    @overload(np.around, jit_options=NUMPY_ERRORS)
    def _np_around(a, decimals=0, out=None):
        return _select_round(a, decimals, out)


@overload_method(types.Array, "round", jit_options=NUMPY_ERRORS)
def _array_round(self, decimals=0, out=None):
    return _select_round(self, decimals, out)
