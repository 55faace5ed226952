"""NumPy's ufuncs with two outputs, as functions returning a pair: np.divmod (floor quotient and
remainder), np.modf (fractional and integral parts) and np.frexp (mantissa and int32 exponent)
of arrays and scalars, written in Python and compiled by ember (`out=` for divmod only)."""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload
from ember.library.numpy.support import NUMPY_ERRORS, as_type, is_array, is_none, numpy_dtype


def _real_operand(typ) -> bool:
    dtype = typ.dtype if is_array(typ) else types.unliteral(typ)
    return isinstance(dtype, (types.Integer, types.Float, types.Boolean))


def _divmod(x1, x2):
    return np.floor_divide(x1, x2), np.remainder(x1, x2)


def _divmod_into(x1, x2, out1=None, out2=None, out=None):
    np.floor_divide(x1, x2, out1)
    np.remainder(x1, x2, out2)
    return out1, out2


def _divmod_into_pair(x1, x2, out1=None, out2=None, out=None):
    return _divmod_into_jit(x1, x2, out[0], out[1])


_divmod_into_jit = njit(**NUMPY_ERRORS)(_divmod_into)


@overload(np.divmod, jit_options=NUMPY_ERRORS)
def _select_divmod(x1, x2, out1=None, out2=None, out=None):
    out1, out2, out = as_type(out1), as_type(out2), as_type(out)
    if not (_real_operand(x1) and _real_operand(x2)):
        return None
    if is_none(out1) and is_none(out2) and is_none(out):
        return lambda x1, x2, out1=None, out2=None, out=None: _divmod_jit(x1, x2)
    if is_array(out1) and is_array(out2) and is_none(out):
        return _divmod_into
    if isinstance(out, types.BaseTuple) and len(out) == 2 and all(is_array(t) for t in out):
        return _divmod_into_pair
    raise TypingError("np.divmod: give both outputs as arrays (out1, out2 or out=(a, b))")


_divmod_jit = njit(**NUMPY_ERRORS)(_divmod)


def _modf_scalar(x):
    """C's modf: the fractional part keeps x's sign (-0.0 for negative whole numbers), and is
    a signed 0 for infinities."""
    integral = np.trunc(x)
    fraction = 0.0 if np.isinf(x) else x - integral
    return np.copysign(fraction, x), integral


_modf_scalar_jit = njit(**NUMPY_ERRORS)(_modf_scalar)


@functools.cache
def _frexp_scalar_jit(dtype_name: str):
    """frexp by the bits: mantissa in [0.5, 1) with x's sign, exponent as int32; zeros,
    infinities and NaN come back unchanged with exponent 0."""
    float_type = np.dtype(dtype_name).type
    int_type = np.int64 if dtype_name == "float64" else np.int32
    mantissa_bits = 52 if dtype_name == "float64" else 23
    exponent_mask = 0x7FF if dtype_name == "float64" else 0xFF
    bias = 1022 if dtype_name == "float64" else 126
    subnormal_scale = float_type(2.0 ** (mantissa_bits + 2))

    def frexp(x):
        value = float_type(x)
        if value == 0 or not np.isfinite(value):
            return value, np.int32(0)
        shift = 0
        field = (value.view(int_type) >> mantissa_bits) & exponent_mask
        if field == 0:  # subnormal: scale into the normal range first
            value = value * subnormal_scale
            shift = mantissa_bits + 2
            field = (value.view(int_type) >> mantissa_bits) & exponent_mask
        bits = value.view(int_type)
        bits = int_type((bits & ~(exponent_mask << mantissa_bits)) | (bias << mantissa_bits))
        return bits.view(float_type), np.int32(field - bias - shift)

    return njit(**NUMPY_ERRORS)(frexp)


def _float_result(typ, ufunc) -> str | None:
    """The float dtype NumPy's loop gives for this operand, if ember has it (float32 for
    NumPy's float16: its operands are small integers, whose parts float32 holds exactly)."""
    dtype = typ.dtype if is_array(typ) else types.unliteral(typ)
    resolved = ufunc.resolve_dtypes((numpy_dtype(dtype), None, None))[1]
    if resolved.name == "float16":
        return "float32"
    return resolved.name if resolved.name in ("float32", "float64") else None


@functools.cache
def _pairwise_impl(scalar_fn, first_dtype: str, second_dtype: str):
    """Apply a scalar function returning a pair to every element of an array."""
    first_type, second_type = np.dtype(first_dtype).type, np.dtype(second_dtype).type

    def pairwise(x):
        first = np.empty(x.shape, first_type)
        second = np.empty(x.shape, second_type)
        flat_first, flat_second = first.reshape(x.size), second.reshape(x.size)
        for i, value in enumerate(x.flat):
            flat_first[i], flat_second[i] = scalar_fn(value)
        return first, second

    return pairwise


@overload(np.modf, jit_options=NUMPY_ERRORS)
def _select_modf(x):
    if not _real_operand(x):
        return None
    dtype = _float_result(x, np.modf)
    if dtype is None:
        return None
    if is_array(x):
        return _pairwise_impl(_modf_scalar_jit, dtype, dtype)
    return _modf_scalar


@overload(np.frexp, jit_options=NUMPY_ERRORS)
def _select_frexp(x):
    if not _real_operand(x):
        return None
    dtype = _float_result(x, np.frexp)
    if dtype is None:
        return None
    scalar = _frexp_scalar_jit(dtype)
    if is_array(x):
        return _pairwise_impl(scalar, dtype, "int32")
    return lambda x: scalar(x)
